/* artifact_contract validate-set --manifest ROLE=PATH... [--json-out PATH] */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_path.h"
#include "artifact_contract/ac_set.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/cli/ac_cli.h"
#include "artifact_contract/cli/commands.h"

/* A set has at most six roles; room for more lets the library report the
 * duplicate or unsupported role instead of a generic "too many". */
#define MAX_MANIFEST_ARGS 64

typedef struct specs {
    ac_set_entry entries[MAX_MANIFEST_ARGS];
    char *owned[2 * MAX_MANIFEST_ARGS];
    size_t n, nowned;
} specs;

static void specs_free(specs *s)
{
    for (size_t i = 0; i < s->nowned; i++)
        sk_free(s->owned[i]);
}

int cmd_validate_set(int argc, char **argv)
{
    ac_cli c;
    ac_cli_init(&c, "validate-set", argc, argv);
    static const struct option opts[] = {
        {"manifest", required_argument, NULL, AC_OPT_MANIFEST},
        AC_SET_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    ac_set_opts o;
    ac_cli_set_opts_init(&o);
    specs sp;
    memset(&sp, 0, sizeof sp);
    const char *raw[MAX_MANIFEST_ARGS];
    size_t nraw = 0;
    int rc = 0, opt;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (opt == AC_OPT_MANIFEST) {
            if (nraw == MAX_MANIFEST_ARGS)
                rc = ac_cli_usage(&c, "too many --manifest arguments");
            else
                raw[nraw++] = optarg;
            continue;
        }
        int r = ac_cli_set_option(&c, opt, &o);
        if (r < 0)
            rc = ac_cli_bad_option(&c, argv, opt);
        else
            rc = r;
    }
    if (rc)
        goto out;
    if (optind < argc) {
        rc = ac_cli_usage(&c, "unrecognized arguments: %s", argv[optind]);
        goto out;
    }
    if (nraw == 0) {
        rc = ac_cli_usage(&c, "the following arguments are required: --manifest");
        goto out;
    }
    sk_diag d;
    sk_diag_clear(&d);
    for (size_t i = 0; i < nraw; i++) {
        char *role = NULL, *path = NULL;
        if (ac_manifest_spec_parse(raw[i], &role, &path, &d)) {
            rc = ac_cli_fail(&c, &d);
            goto out;
        }
        sp.owned[sp.nowned++] = role;
        sp.owned[sp.nowned++] = path;
        sp.entries[sp.n].role = role;
        sp.entries[sp.n].path = path;
        sp.n++;
    }
    rc = ac_cli_run_set(&c, sp.entries, sp.n, &o);
out:
    specs_free(&sp);
    return rc;
}

