/* skdcci scene check: validate a failure scene (docs/stage-o.md §11). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/cli/cli_util.h"
#include "analyzer/stage_o/so_scene.h"
#include "analyzer/cli/commands.h"
#include "analyzer/cli/skx_exit.h"
#include "analyzer/cli/so_cli.h"

#define CMD "scene check"

const char cmd_scene_usage[] =
    "Usage: skdcci scene check FILE\n"
    "\n"
    "Validates a failure scene (skdcci-failure-scene-v1, schema:\n"
    "docs/schemas/failure-scene-v1.schema.json): the sealed record of one failed\n"
    "attempt with the eight items identity, invocation, failure, artifacts, gates,\n"
    "judgement, control and next.  Every member must be present (null where it\n"
    "does not apply).  Classifies the scene: environment_blocker when the command\n"
    "never launched (invocation.launched false: environment probe and parent\n"
    "report only, never an experiment attempt), else post_launch_failure.\n"
    "\n"
    "Stdout: 'classification C', 'scene TRIAL ATTEMPT phase P failed_gate G', then\n"
    "one 'violation CODE: MESSAGE' line per rule violation and 'valid' or\n"
    "'invalid: N violations'.\n"
    "\n"
    "Exit: 0 valid, 10 rule violations, 1 unreadable file or shape error (one line\n"
    "naming the field), 2 usage error.\n"
    "Details: docs/stage-o.md\n";

int cmd_scene(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("scene", "a subcommand is required: check");
    if (strcmp(argv[1], "check") != 0)
        return cli_usage("scene", "unknown subcommand '%s' (expected: check)", argv[1]);
    argc--;
    argv++;
    static const struct option opts[] = {{NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":", opts, NULL)) != -1;)
        return cli_bad_option(CMD, argv, c);
    if (optind + 1 != argc)
        return cli_usage(CMD, optind >= argc ? "a scene file is required"
                                              : "exactly one scene file is expected");
    sk_diag d;
    sk_diag_clear(&d);
    cJSON *doc = NULL;
    so_scene_result r;
    if (so_scene_load(argv[optind], &doc, NULL, &r, &d) != SK_OK)
        return so_cli_fail(&d);
    printf("classification %s\nscene %s %s phase %s failed_gate %s\n", so_scene_class_name(r.cls),
           r.trial, r.attempt, r.phase, r.failed_gate);
    for (size_t i = 0; i < r.n_violations; i++)
        printf("violation %s\n", r.violations[i]);
    if (r.n_violations)
        printf("invalid: %zu violation%s\n", r.n_violations, r.n_violations == 1 ? "" : "s");
    else
        printf("valid\n");
    int rc = r.n_violations ? SKX_REJECTED : SKX_OK;
    so_scene_result_free(&r);
    cJSON_Delete(doc);
    return rc;
}
