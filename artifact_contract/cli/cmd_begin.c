/* artifact_contract begin --role ROLE --root PATH --session-out PATH */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "artifact_contract/ac_contract.h"
#include "artifact_contract/cli/ac_cli.h"
#include "artifact_contract/cli/commands.h"

int cmd_begin(int argc, char **argv)
{
    ac_cli c;
    ac_cli_init(&c, "begin", argc, argv);
    enum { O_ROLE = 1, O_ROOT, O_SESSION_OUT, O_JSON_ERRORS };
    static const struct option opts[] = {
        {"role", required_argument, NULL, O_ROLE},
        {"root", required_argument, NULL, O_ROOT},
        {"session-out", required_argument, NULL, O_SESSION_OUT},
        {"json-errors", no_argument, NULL, O_JSON_ERRORS},
        {NULL, 0, NULL, 0},
    };
    const char *role = NULL, *root = NULL, *session_out = NULL;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (opt) {
        case O_ROLE: role = optarg; break;
        case O_ROOT: root = optarg; break;
        case O_SESSION_OUT: session_out = optarg; break;
        case O_JSON_ERRORS: break;
        default: return ac_cli_bad_option(&c, argv, opt);
        }
    }
    if (optind < argc)
        return ac_cli_usage(&c, "unrecognized arguments: %s", argv[optind]);
    if (!role || !root || !session_out)
        return ac_cli_usage(&c, "the following arguments are required:%s%s%s",
                            role ? "" : " --role", root ? "" : " --root",
                            session_out ? "" : " --session-out");
    cJSON *record = NULL;
    sk_buf text = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    int rc = 0;
    if (ac_begin_text(role, root, session_out, &record, &text, &d))
        rc = ac_cli_fail(&c, &d);
    else /* the published bytes: canonical JSON and a newline */
        fwrite(text.data, 1, text.len, stdout);
    cJSON_Delete(record);
    sk_buf_free(&text);
    return rc;
}
