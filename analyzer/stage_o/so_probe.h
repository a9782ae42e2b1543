/* Consuming an option-probe report (check_environment.py --json,
 * docs/stage-o.md §6).
 *
 * A report is usable evidence only when it says ready=true AND carries
 * runtime_environment.loaded=true (the proof that the probe ran after the
 * CANN setup script).  Anything else means acceptance is unknown, never
 * "rejected": a not-run report (option_probe_status "not_run", or ready
 * false with an error_code), a ready=false success form, a report with
 * loaded=false, and a report without runtime_environment at all (older or
 * hand-written reports such as the reference's eval fixture).
 *
 * A value is accepted only when it is present unchanged in accepted_values
 * of the same option and category, compared as canonical JSON (type-aware:
 * 1, 1.0 and true differ; the reference's Python equality does not).
 */
#ifndef SO_PROBE_H
#define SO_PROBE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

typedef enum so_probe_state {
    SO_PROBE_USABLE = 0,         /* ready and loaded */
    SO_PROBE_NOT_RUN,            /* option_probe_status not_run / ready false with error_code */
    SO_PROBE_NOT_READY,          /* the probe ran, ready is false */
    SO_PROBE_CANN_NOT_LOADED,    /* runtime_environment.loaded is false */
    SO_PROBE_NO_RUNTIME_ENV      /* ready true but runtime_environment absent */
} so_probe_state;

const char *so_probe_state_name(so_probe_state s); /* "usable", "not_run", ... */

typedef struct so_probe_assessment {
    so_probe_state state;
    int has_ready, ready;
    int has_loaded, loaded;
    const char *error_code; /* borrowed from the report tree, or NULL */
    const char *error;      /* borrowed, or NULL */
    char reason[512];       /* why the report is not usable ("" when usable) */
} so_probe_assessment;

/* Checks the shape of the fields the consumer relies on and classifies the
 * report.  label names it in messages.  SK_E_SCHEMA for a malformed report
 * (a wrong type where a field is present, options that are not objects,
 * accepted_values that is not a list, ...). */
sk_err so_probe_assess(const cJSON *report, const char *label, so_probe_assessment *out,
                       sk_diag *d);

typedef enum so_value_status {
    SO_VALUE_ACCEPTED = 0,
    SO_VALUE_REJECTED,   /* listed in rejected_values: the wrapper refused it */
    SO_VALUE_NOT_PROBED, /* option or value absent from the report */
    SO_VALUE_UNKNOWN     /* the report is not usable evidence */
} so_value_status;

const char *so_value_status_name(so_value_status s);

/* Status of one exact value into *status; *rejection (borrowed, may be
 * NULL) receives the wrapper's error text for a rejected value.  category is
 * "optimize_options" or "debug_options".  Fails only with SK_E_NOMEM (the
 * comparison writes canonical text): an exhausted heap must not turn an
 * accepted value into "not probed". */
sk_err so_probe_lookup(const cJSON *report, const so_probe_assessment *a, const char *category,
                       const char *option, const cJSON *value, so_value_status *status,
                       const char **rejection);

/* Checks an option-values file: an object with only "optimize_options"
 * and/or "debug_options", each mapping option name -> non-empty list of
 * distinct values (canonical JSON), at least one value overall. */
sk_err so_probe_values_check(const cJSON *values, const char *label, sk_diag *d);

typedef enum so_probe_verdict {
    SO_PROBE_VERDICT_ACCEPTED = 0, /* every value accepted */
    SO_PROBE_VERDICT_REJECTED,     /* at least one value in rejected_values */
    SO_PROBE_VERDICT_INCOMPLETE,   /* no rejection, but some value was not probed */
    SO_PROBE_VERDICT_UNKNOWN       /* the report is not usable evidence */
} so_probe_verdict;

const char *so_probe_verdict_name(so_probe_verdict v);

#define SO_PROBE_CHECK_SCHEMA "skdcci-probe-check-v1"

typedef struct so_probe_inputs {
    const cJSON *report;
    const char *report_path;
    const char *report_sha256;
    const cJSON *values;
    const char *values_path;
    const char *values_sha256;
} so_probe_inputs;

/* Checks every value of the values file against the report and builds the
 * result document (schema skdcci-probe-check-v1, docs/stage-o.md) and its
 * text lines.  Both inputs must have passed so_probe_assess and
 * so_probe_values_check. */
sk_err so_probe_check(const so_probe_inputs *in, const so_probe_assessment *a,
                      so_probe_verdict *verdict, cJSON **doc, sk_buf *text, sk_diag *d);

#endif
