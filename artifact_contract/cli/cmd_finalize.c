/* artifact_contract finalize: seal a capture root in a manifest. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_contract/ac_contract.h"
#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/cli/cli_util.h"
#include "artifact_contract/cli/ac_cli.h"
#include "artifact_contract/cli/commands.h"

int cmd_finalize(int argc, char **argv)
{
    ac_cli c;
    ac_cli_init(&c, "finalize", argc, argv);
    enum {
        O_SESSION = 1, O_SOURCE_REVISION, O_NATIVE_PID, O_STARTED_NS, O_ENDED_NS,
        O_COMMAND_FINGERPRINT, O_PRODUCER_RECORD, O_WORKLOAD, O_CONFIG, O_CONTROL, O_FILE,
        O_OUT, O_ROUND_ID, O_STRICT_ROOT, O_NO_STRICT_ROOT, O_JOBS, O_JSON_ERRORS
    };
    static const struct option opts[] = {
        {"session", required_argument, NULL, O_SESSION},
        {"source-revision", required_argument, NULL, O_SOURCE_REVISION},
        {"native-pid", required_argument, NULL, O_NATIVE_PID},
        {"started-ns", required_argument, NULL, O_STARTED_NS},
        {"ended-ns", required_argument, NULL, O_ENDED_NS},
        {"command-fingerprint", required_argument, NULL, O_COMMAND_FINGERPRINT},
        {"producer-record", required_argument, NULL, O_PRODUCER_RECORD},
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"config", required_argument, NULL, O_CONFIG},
        {"control", required_argument, NULL, O_CONTROL},
        {"file", required_argument, NULL, O_FILE},
        {"out", required_argument, NULL, O_OUT},
        {"round-id", required_argument, NULL, O_ROUND_ID},
        {"strict-root", no_argument, NULL, O_STRICT_ROOT},
        {"no-strict-root", no_argument, NULL, O_NO_STRICT_ROOT},
        {"jobs", required_argument, NULL, O_JOBS},
        {"json-errors", no_argument, NULL, O_JSON_ERRORS},
        {NULL, 0, NULL, 0},
    };
    ac_finalize_args a;
    memset(&a, 0, sizeof a);
    a.strict_root = AC_STRICT_DEFAULT;
    a.threads = cli_hash_threads();
    const char **files = sk_calloc((size_t)argc + 1, sizeof *files);
    const char *pid = NULL, *started = NULL, *ended = NULL;
    int rc = 0, opt;
    if (!files) {
        /* not a usage error: one error line, no "Try --help" hint */
        sk_diag d;
        sk_diag_clear(&d);
        sk_diag_set(&d, SK_E_NOMEM, "finalize", 0, "out of memory");
        return ac_cli_fail(&c, &d);
    }
    optind = 1;
    opterr = 0;
    while (rc == 0 && (opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (opt) {
        case O_SESSION: a.session = optarg; break;
        case O_SOURCE_REVISION: a.source_revision = optarg; break;
        case O_NATIVE_PID: pid = optarg; break;
        case O_STARTED_NS: started = optarg; break;
        case O_ENDED_NS: ended = optarg; break;
        case O_COMMAND_FINGERPRINT: a.command_fingerprint = optarg; break;
        case O_PRODUCER_RECORD: a.producer_record = optarg; break;
        case O_WORKLOAD: a.workload = optarg; break;
        case O_CONFIG: a.config = optarg; break;
        case O_CONTROL: a.control = optarg; break;
        case O_FILE: files[a.nfiles++] = optarg; break;
        case O_OUT: a.out = optarg; break;
        case O_ROUND_ID: a.round_id = optarg; break;
        case O_STRICT_ROOT: a.strict_root = AC_STRICT_ON; break;
        case O_NO_STRICT_ROOT: a.strict_root = AC_STRICT_OFF; break;
        case O_JOBS: ac_cli_jobs(&c, optarg, &a.threads, &rc); break;
        case O_JSON_ERRORS: break;
        default: rc = ac_cli_bad_option(&c, argv, opt); break;
        }
    }
    if (rc)
        goto out;
    if (optind < argc) {
        rc = ac_cli_usage(&c, "unrecognized arguments: %s", argv[optind]);
        goto out;
    }
    int any_producer_value = pid || started || ended || a.command_fingerprint;
    int all_producer_values = pid && started && ended && a.command_fingerprint;
    if (a.producer_record && any_producer_value) {
        rc = ac_cli_usage(&c, "--producer-record replaces --native-pid, --started-ns, "
                              "--ended-ns and --command-fingerprint; give one or the other");
        goto out;
    }
    if (!a.session || !a.source_revision || !a.workload || !a.config || !a.control || !a.out ||
        a.nfiles == 0 || (!a.producer_record && !all_producer_values)) {
        rc = ac_cli_usage(
            &c, "the following arguments are required:%s%s%s%s%s%s%s%s%s%s%s",
            a.session ? "" : " --session", a.source_revision ? "" : " --source-revision",
            a.producer_record || pid ? "" : " --native-pid",
            a.producer_record || started ? "" : " --started-ns",
            a.producer_record || ended ? "" : " --ended-ns",
            a.producer_record || a.command_fingerprint ? "" : " --command-fingerprint",
            a.workload ? "" : " --workload", a.config ? "" : " --config",
            a.control ? "" : " --control", a.nfiles ? "" : " --file", a.out ? "" : " --out");
        goto out;
    }
    if (!a.producer_record) {
        if (ac_cli_int(&c, "--native-pid", pid, &a.native_pid, &rc) ||
            ac_cli_int(&c, "--started-ns", started, &a.started_ns, &rc) ||
            ac_cli_int(&c, "--ended-ns", ended, &a.ended_ns, &rc))
            goto out;
        a.has_producer_values = 1;
    }
    a.files = files;
    cJSON *manifest = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    /* the published bytes are echoed as they are: after publication nothing
     * may fail for want of memory (the manifest already exists) */
    sk_buf published = SK_BUF_INIT;
    if (ac_finalize_text(&a, &manifest, &published, &d)) {
        rc = ac_cli_fail(&c, &d);
    } else {
        fwrite(published.data, 1, published.len, stdout);
        rc = 0;
    }
    sk_buf_free(&published);
    cJSON_Delete(manifest);
out:
    sk_free(files);
    return rc;
}
