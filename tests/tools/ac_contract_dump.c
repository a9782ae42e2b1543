/* Test helper: prints the contract's role table as JSON ("roles") or checks
 * artifact paths read from stdin, one per line, against the runtime grammar
 * ("paths": prints "ok" or "error: <message>" per line), or prints the rule
 * codes as markdown table rows ("codes").  Used to prove the
 * shipped JSON Schemas agree with the code (reference tests 44 and 45). */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/ac_path.h"
#include "artifact_contract/ac_roles.h"
#include "artifact_contract/base/sk_alloc.h"

static int dump_roles(void)
{
    printf("{");
    for (size_t i = 0; ac_role_at(i); i++) {
        const ac_role *r = ac_role_at(i);
        printf("%s\"%s\":{\"schema\":\"%s\",\"required\":[", i ? "," : "", r->name,
               ac_schema_version(r->schema));
        for (size_t k = 0; r->required[k]; k++)
            printf("%s\"%s\"", k ? "," : "", r->required[k]);
        printf("]}");
    }
    printf("}\n");
    return 0;
}

static int check_paths(void)
{
    char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n')
            line[--n] = '\0';
        char spec[8300], *role = NULL, *path = NULL;
        sk_diag d;
        snprintf(spec, sizeof spec, "kernel_details=%s", line);
        if (ac_file_spec_parse(spec, AC_SCHEMA_1_0, &role, &path, &d) == SK_OK)
            printf("ok\n");
        else
            printf("error: %s\n", d.msg);
        sk_free(role);
        sk_free(path);
    }
    return 0;
}

/* The markdown rows of the error-code table in docs/artifact_contract.md. */
static int dump_codes(void)
{
    for (size_t i = 0; ac_code_at(i); i++)
        printf("| %d | `%s` | %s |\n", ac_code_at(i), ac_code_name(ac_code_at(i)),
               ac_code_meaning(ac_code_at(i)));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "codes") == 0)
        return dump_codes();
    if (argc == 2 && strcmp(argv[1], "roles") == 0)
        return dump_roles();
    if (argc == 2 && strcmp(argv[1], "paths") == 0)
        return check_paths();
    fprintf(stderr, "usage: ac_contract_dump roles|paths|codes\n");
    return 2;
}
