/* artifact_contract validate --manifest PATH [--role ROLE] [--json-out PATH] */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_set.h"
#include "artifact_contract/cli/ac_cli.h"
#include "artifact_contract/cli/commands.h"

int cmd_validate(int argc, char **argv)
{
    ac_cli c;
    ac_cli_init(&c, "validate", argc, argv);
    static const struct option opts[] = {
        {"manifest", required_argument, NULL, AC_OPT_MANIFEST},
        {"role", required_argument, NULL, AC_OPT_ROLE},
        AC_SET_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    ac_set_opts o;
    ac_cli_set_opts_init(&o);
    o.single = 1;
    ac_set_entry entry = {NULL, NULL};
    int rc = 0, opt;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (opt == AC_OPT_MANIFEST) {
            entry.path = optarg;
            continue;
        }
        if (opt == AC_OPT_ROLE) {
            entry.role = optarg;
            continue;
        }
        int r = ac_cli_set_option(&c, opt, &o);
        rc = r < 0 ? ac_cli_bad_option(&c, argv, opt) : r;
    }
    if (rc)
        return rc;
    if (optind < argc)
        return ac_cli_usage(&c, "unrecognized arguments: %s", argv[optind]);
    if (!entry.path)
        return ac_cli_usage(&c, "the following arguments are required: --manifest");
    return ac_cli_run_set(&c, &entry, 1, &o);
}
