/* artifact_contract status ROOT */
#include <getopt.h>
#include <stdlib.h>

#include "artifact_contract/ac_contract.h"
#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/cli/ac_cli.h"
#include "artifact_contract/cli/commands.h"

int cmd_status(int argc, char **argv)
{
    ac_cli c;
    ac_cli_init(&c, "status", argc, argv);
    enum { O_JOBS = 1, O_JSON_ERRORS };
    static const struct option opts[] = {
        {"jobs", required_argument, NULL, O_JOBS},
        {"json-errors", no_argument, NULL, O_JSON_ERRORS},
        {NULL, 0, NULL, 0},
    };
    unsigned threads = cli_hash_threads();
    int opt, rc = 0;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (opt) {
        case O_JOBS:
            if (ac_cli_jobs(&c, optarg, &threads, &rc))
                return rc;
            break;
        case O_JSON_ERRORS: break;
        default: return ac_cli_bad_option(&c, argv, opt);
        }
    }
    if (optind == argc)
        return ac_cli_usage(&c, "the following arguments are required: ROOT");
    if (optind < argc - 1)
        return ac_cli_usage(&c, "unrecognized arguments: %s", argv[optind + 1]);
    cJSON *report = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = ac_status(argv[optind], threads, &report, &d);
    if (report)
        rc = ac_cli_print_json(&c, report);
    if (e)
        rc = ac_cli_fail(&c, &d);
    cJSON_Delete(report);
    return rc;
}
