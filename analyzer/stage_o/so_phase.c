/* The phase entry: manifest, dispatch task and session (so_phase.h,
 * docs/phase.md). */
#include "analyzer/stage_o/so_phase.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_fs.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_file.h"
#include "analyzer/stage_o/so_lines.h"
#include "analyzer/stage_o/so_shape.h"

/* ------------------------------------------------------------ vocabulary */

/* The controller's phase table: phase, agent, skill. */
static const char *const k_phases[][3] = {
    {"intake_preparation", "sk-intake-preparation", "superkernel-intake-preparation"},
    {"s0_baseline", "sk-s0-baseline", "superkernel-s0-baseline"},
    {"stage_a_scope_selection", "sk-stage-a-scope-selection", "superkernel-stage-a-scope-selection"},
    {SO_PHASE_STAGE_O, SO_PHASE_STAGE_O_AGENT, "superkernel-stage-o-option-tuning"},
    {"base_profile_source_mapping", "sk-base-profile-source-mapping",
     "superkernel-base-profile-source-mapping"},
    {"optional_experiments", "sk-optional-experiments", "superkernel-optional-experiments"},
    {"final_e2e_report", "sk-final-e2e-report", "superkernel-final-e2e-report"},
};
#define N_PHASES (sizeof k_phases / sizeof k_phases[0])

static const char *const k_phase_names[] = {
    "intake_preparation",   "s0_baseline",          "stage_a_scope_selection",
    SO_PHASE_STAGE_O,       "base_profile_source_mapping", "optional_experiments",
    "final_e2e_report",     NULL};
static const char *const k_statuses[] = {"succeeded", "accepted",      "no_gain", "blocked",
                                         "failed",    "invalid",       "not_requested",
                                         "not_run",   NULL};
static const char *const k_optional_modes[] = {"none", "multistream", "source-range", "both",
                                               NULL};
static const char *const k_entrypoints[] = {"full", "optional-from-base",
                                            "source-range-from-smap", NULL};
static const char *const k_session_states[] = {"active", "completed", NULL};
static const char *const k_step_states[] = {"pending", "sealed", NULL};

static int phase_index(const char *phase)
{
    for (size_t i = 0; phase && i < N_PHASES; i++)
        if (strcmp(phase, k_phases[i][0]) == 0)
            return (int)i;
    return -1;
}

const char *so_phase_agent(const char *phase)
{
    int i = phase_index(phase);
    return i < 0 ? NULL : k_phases[i][1];
}

const char *so_phase_skill(const char *phase)
{
    int i = phase_index(phase);
    return i < 0 ? NULL : k_phases[i][2];
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ^[a-z][a-z0-9-]{1,63}$ */
static int is_step_id(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || n > 64 || s[0] < 'a' || s[0] > 'z')
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return 0;
    return 1;
}

/* ^[A-Za-z0-9_]+\.py$ */
static int is_tool_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 4 || strcmp(s + n - 3, ".py") != 0)
        return 0;
    for (size_t i = 0; i + 3 < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

/* A relative artifact path: no leading '/', no ".." component. */
static int is_relative_artifact(const char *p)
{
    if (!p[0] || p[0] == '/')
        return 0;
    for (const char *c = p; *c;) {
        size_t len = strcspn(c, "/");
        if (len == 2 && c[0] == '.' && c[1] == '.')
            return 0;
        c += len;
        if (*c == '/')
            c++;
    }
    return 1;
}

/* ------------------------------------------------------------ shapes */

sk_err so_phase_manifest_shape(const cJSON *m, const char *file, sk_diag *d)
{
    static const char *const req[] = {"schema_version", "phase", "agent_id", "skill",
                                      "runtime_tools", NULL};
    so_shape s = {file, d};
    SO_TRY(so_shape_keys(&s, m, "phase manifest", req, NULL));
    const char *schema = str(m, "schema_version");
    if (!schema || strcmp(schema, SO_PHASE_MANIFEST_SCHEMA) != 0)
        return so_shape_fail(&s, "schema_version", "must be \"%s\"", SO_PHASE_MANIFEST_SCHEMA);
    SO_TRY(so_shape_text(&s, m, "", "phase", 1));
    SO_TRY(so_shape_text(&s, m, "", "agent_id", 1));
    SO_TRY(so_shape_text(&s, m, "", "skill", 1));
    const cJSON *tools = sk_json_get(m, "runtime_tools");
    if (!cJSON_IsArray(tools) || !tools->child)
        return so_shape_fail(&s, "runtime_tools", "must be a non-empty list of tool names");
    int i = 0;
    for (const cJSON *t = tools->child; t; t = t->next, i++) {
        char f[40];
        snprintf(f, sizeof f, "runtime_tools[%d]", i);
        if (!cJSON_IsString(t) || !is_tool_name(t->valuestring))
            return so_shape_fail(&s, f, "must be a file name of letters, digits and '_' ending "
                                        "in .py");
        int j = 0;
        for (const cJSON *u = tools->child; u != t; u = u->next, j++)
            if (strcmp(u->valuestring, t->valuestring) == 0)
                return so_shape_fail(&s, f, "repeats %s (runtime_tools[%d]); names are unique",
                                     t->valuestring, j);
    }
    return SK_OK;
}

/* One step of a session or the step of a task (pending_only: a task's step). */
static sk_err step_shape(so_shape *s, const cJSON *st, const char *f, int pending_only)
{
    static const char *const req[] = {"step_id", "phase", "agent_id", "skill", "optional_branch",
                                      "derived_family_rebase", "state", NULL};
    static const char *const req_sealed[] = {"step_id", "phase", "agent_id", "skill",
                                             "optional_branch", "derived_family_rebase",
                                             "state", "result_path", "result_sha256",
                                             "outcome_status", "sealed_at", NULL};
    static const char *const opt_sealed[] = {"dispatch_receipt_path", "dispatch_receipt_sha256",
                                             NULL};
    char g[SK_DIAG_FIELD_MAX];
    if (!cJSON_IsObject(st))
        return so_shape_fail(s, f, "must be an object");
    SO_TRY(so_shape_one_of(s, st, f, "state", k_step_states));
    int sealed = strcmp(str(st, "state"), "sealed") == 0;
    if (pending_only && sealed) {
        so_shape_join(g, sizeof g, f, "state");
        return so_shape_fail(s, g, "a dispatched step is pending");
    }
    SO_TRY(so_shape_keys(s, st, f, sealed ? req_sealed : req, sealed ? opt_sealed : NULL));
    SO_TRY(so_shape_text(s, st, f, "step_id", 1));
    so_shape_join(g, sizeof g, f, "step_id");
    if (!is_step_id(str(st, "step_id")))
        return so_shape_fail(s, g, "must match ^[a-z][a-z0-9-]{1,63}$");
    SO_TRY(so_shape_one_of(s, st, f, "phase", k_phase_names));
    SO_TRY(so_shape_text(s, st, f, "agent_id", 1));
    SO_TRY(so_shape_text(s, st, f, "skill", 1));
    const cJSON *branch = sk_json_get(st, "optional_branch");
    if (!cJSON_IsNull(branch))
        SO_TRY(so_shape_text(s, st, f, "optional_branch", 1));
    SO_TRY(so_shape_bool(s, st, f, "derived_family_rebase", 1));
    if (!sealed)
        return SK_OK;
    SO_TRY(so_shape_text(s, st, f, "result_path", 1));
    so_shape_join(g, sizeof g, f, "result_path");
    if (!is_relative_artifact(str(st, "result_path")))
        return so_shape_fail(s, g, "must be a path relative to the artifact root, without '..'");
    SO_TRY(so_shape_sha(s, st, f, "result_sha256"));
    SO_TRY(so_shape_one_of(s, st, f, "outcome_status", k_statuses));
    SO_TRY(so_shape_text(s, st, f, "sealed_at", 1));
    int receipt = sk_json_get(st, "dispatch_receipt_path") != NULL;
    so_shape_join(g, sizeof g, f, "dispatch_receipt_sha256");
    if (receipt != (sk_json_get(st, "dispatch_receipt_sha256") != NULL))
        return so_shape_fail(s, g, "dispatch_receipt_path and dispatch_receipt_sha256 come "
                                   "together");
    if (receipt) {
        SO_TRY(so_shape_text(s, st, f, "dispatch_receipt_path", 1));
        so_shape_join(g, sizeof g, f, "dispatch_receipt_path");
        if (!is_relative_artifact(str(st, "dispatch_receipt_path")))
            return so_shape_fail(s, g, "must be a path relative to the artifact root, without "
                                       "'..'");
        SO_TRY(so_shape_sha(s, st, f, "dispatch_receipt_sha256"));
    }
    return SK_OK;
}

static sk_err evidence_import_shape(so_shape *s, const cJSON *o, const char *f)
{
    static const char *const req[] = {"path", "sha256", NULL};
    char g[SK_DIAG_FIELD_MAX];
    SO_TRY(so_shape_keys(s, o, f, req, NULL));
    SO_TRY(so_shape_text(s, o, f, "path", 1));
    so_shape_join(g, sizeof g, f, "path");
    if (!is_relative_artifact(str(o, "path")))
        return so_shape_fail(s, g, "must be a path relative to the artifact root, without '..'");
    return so_shape_sha(s, o, f, "sha256");
}

sk_err so_phase_session_shape(const cJSON *ses, const char *file, sk_diag *d)
{
    static const char *const req[] = {"schema_version", "session_id", "artifact_root",
                                      "optional_mode", "status", "steps", NULL};
    so_shape s = {file, d};
    if (!cJSON_IsObject(ses))
        return so_shape_fail(&s, "", "session must be an object");
    /* the session schema allows members of its own (additionalProperties),
     * so only the required ones are checked for presence */
    for (int i = 0; req[i]; i++)
        if (!sk_json_get(ses, req[i]))
            return so_shape_fail(&s, req[i], "is required");
    const char *schema = str(ses, "schema_version");
    if (!schema || strcmp(schema, SO_PHASE_SESSION_SCHEMA) != 0)
        return so_shape_fail(&s, "schema_version", "must be \"%s\"", SO_PHASE_SESSION_SCHEMA);
    SO_TRY(so_shape_text(&s, ses, "", "session_id", 1));
    SO_TRY(so_shape_text(&s, ses, "", "artifact_root", 1));
    if (str(ses, "artifact_root")[0] != '/')
        return so_shape_fail(&s, "artifact_root", "must be an absolute path");
    SO_TRY(so_shape_one_of(&s, ses, "", "optional_mode", k_optional_modes));
    if (sk_json_get(ses, "entrypoint"))
        SO_TRY(so_shape_one_of(&s, ses, "", "entrypoint", k_entrypoints));
    SO_TRY(so_shape_one_of(&s, ses, "", "status", k_session_states));
    if (sk_json_get(ses, "evidence_import"))
        SO_TRY(evidence_import_shape(&s, sk_json_get(ses, "evidence_import"), "evidence_import"));
    const cJSON *steps = sk_json_get(ses, "steps");
    if (!cJSON_IsArray(steps) || !steps->child)
        return so_shape_fail(&s, "steps", "must be a non-empty list");
    int i = 0;
    for (const cJSON *st = steps->child; st; st = st->next, i++) {
        char f[32];
        snprintf(f, sizeof f, "steps[%d]", i);
        SO_TRY(step_shape(&s, st, f, 0));
    }
    return SK_OK;
}

sk_err so_phase_task_shape(const cJSON *t, const char *file, sk_diag *d)
{
    static const char *const req[] = {"schema_version",      "session_id", "session_path",
                                      "artifact_root",       "session_fingerprint", "step",
                                      "consumed_handoffs",   "handoff",    NULL};
    static const char *const opt[] = {"evidence_import", NULL};
    static const char *const req_consumed[] = {"step_id", "result_path", "result_sha256",
                                               "outcome_status", NULL};
    static const char *const req_handoff[] = {"result_schema", "seal_command", NULL};
    so_shape s = {file, d};
    SO_TRY(so_shape_keys(&s, t, "dispatch task", req, opt));
    const char *schema = str(t, "schema_version");
    if (!schema || strcmp(schema, SO_PHASE_TASK_SCHEMA) != 0)
        return so_shape_fail(&s, "schema_version", "must be \"%s\"", SO_PHASE_TASK_SCHEMA);
    SO_TRY(so_shape_text(&s, t, "", "session_id", 1));
    SO_TRY(so_shape_text(&s, t, "", "session_path", 1));
    SO_TRY(so_shape_text(&s, t, "", "artifact_root", 1));
    SO_TRY(so_shape_sha(&s, t, "", "session_fingerprint"));
    SO_TRY(step_shape(&s, sk_json_get(t, "step"), "step", 1));
    const cJSON *consumed = sk_json_get(t, "consumed_handoffs");
    if (!cJSON_IsArray(consumed))
        return so_shape_fail(&s, "consumed_handoffs", "must be a list");
    int i = 0;
    for (const cJSON *c = consumed->child; c; c = c->next, i++) {
        char f[40], g[SK_DIAG_FIELD_MAX];
        snprintf(f, sizeof f, "consumed_handoffs[%d]", i);
        SO_TRY(so_shape_keys(&s, c, f, req_consumed, NULL));
        SO_TRY(so_shape_text(&s, c, f, "step_id", 1));
        SO_TRY(so_shape_text(&s, c, f, "result_path", 1));
        so_shape_join(g, sizeof g, f, "result_path");
        if (!is_relative_artifact(str(c, "result_path")))
            return so_shape_fail(&s, g, "must be a path relative to the artifact root, without "
                                        "'..'");
        SO_TRY(so_shape_sha(&s, c, f, "result_sha256"));
        SO_TRY(so_shape_one_of(&s, c, f, "outcome_status", k_statuses));
    }
    const cJSON *h = sk_json_get(t, "handoff");
    SO_TRY(so_shape_keys(&s, h, "handoff", req_handoff, NULL));
    SO_TRY(so_shape_text(&s, h, "handoff", "result_schema", 1));
    const cJSON *argv = sk_json_get(h, "seal_command");
    if (!cJSON_IsArray(argv) || !argv->child)
        return so_shape_fail(&s, "handoff.seal_command", "must be a non-empty list of strings");
    for (const cJSON *a = argv->child; a; a = a->next)
        if (!cJSON_IsString(a))
            return so_shape_fail(&s, "handoff.seal_command", "must hold only strings");
    if (sk_json_get(t, "evidence_import"))
        SO_TRY(evidence_import_shape(&s, sk_json_get(t, "evidence_import"), "evidence_import"));
    return SK_OK;
}

/* ------------------------------------------------------------ rule pass */

typedef struct ph {
    const so_phase_input *in;
    so_phase_report *r;
    int nomem;
} ph;

static void violation(ph *x, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void violation(ph *x, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (so_line_vappend(&x->r->violations, &x->r->n_violations, code, fmt, ap) != 0)
        x->nomem = 1;
    va_end(ap);
}

static int same(ph *x, const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return !a && !b;
    int eq = sk_json_equal(a, b);
    if (eq < 0)
        x->nomem = 1;
    return eq == 1;
}

/* a + "/" + b (caller frees); NULL when out of memory. */
static char *join_path(ph *x, const char *a, const char *b)
{
    sk_buf buf = SK_BUF_INIT;
    size_t n = strlen(a);
    if (sk_buf_puts(&buf, a) != SK_OK || ((!n || a[n - 1] != '/') && sk_buf_putc(&buf, '/')) ||
        sk_buf_puts(&buf, b) != SK_OK) {
        sk_buf_free(&buf);
        x->nomem = 1;
        return NULL;
    }
    return sk_buf_take(&buf);
}

/* The skill directory holding the manifest and the directory above it. */
static void manifest_dirs(ph *x, char **skill_dir, char **skills)
{
    *skill_dir = *skills = NULL;
    char *abs = sk_path_abspath(x->in->manifest_path);
    if (!abs) {
        x->nomem = 1;
        return;
    }
    char *slash = strrchr(abs, '/');
    *slash = '\0'; /* abspath always starts with '/' */
    *skill_dir = sk_strdup(slash == abs ? "/" : abs);
    slash = strrchr(abs, '/');
    if (slash)
        *slash = '\0';
    *skills = sk_strdup(abs[0] ? abs : "/");
    if (!*skill_dir || !*skills)
        x->nomem = 1;
    sk_free(abs);
}

static void check_manifest(ph *x)
{
    const cJSON *m = x->in->manifest;
    const char *phase = str(m, "phase"), *agent = str(m, "agent_id"), *skill = str(m, "skill");
    char *skill_dir = NULL, *skills = NULL;
    int i = phase_index(phase);
    if (i < 0)
        violation(x, "manifest_phase_unknown", "manifest: phase %s is not a phase of the "
                     "controller's phase table", phase);
    else if (strcmp(agent, k_phases[i][1]) != 0 || strcmp(skill, k_phases[i][2]) != 0)
        violation(x, "manifest_agent_mismatch", "manifest: phase %s is run by agent %s with "
                     "skill %s, not agent %s with skill %s", phase, k_phases[i][1],
                  k_phases[i][2], agent, skill);
    manifest_dirs(x, &skill_dir, &skills);
    if (!skill_dir)
        goto out;
    const char *base = strrchr(skill_dir, '/');
    base = base ? base + 1 : skill_dir;
    if (strcmp(base, skill) != 0)
        violation(x, "manifest_skill_dir", "manifest: %s lies in directory %s, but its skill is "
                     "%s (a skill's manifest is <skill>/phase.json)", x->in->manifest_path, base,
                  skill);
    x->r->tools_dir = x->in->tools_dir ? sk_strdup(x->in->tools_dir)
                                       : join_path(x, skills, SO_PHASE_TOOLS_SUBDIR);
    if (!x->r->tools_dir) {
        x->nomem = 1;
        goto out;
    }
    for (const cJSON *t = sk_json_get(m, "runtime_tools")->child; t && !x->nomem; t = t->next) {
        x->r->n_tools++;
        char *p = join_path(x, x->r->tools_dir, t->valuestring);
        struct stat st;
        if (p && (stat(p, &st) != 0 || !S_ISREG(st.st_mode)))
            violation(x, "manifest_tool_missing", "manifest: runtime tool %s is not a file in %s",
                      t->valuestring, x->r->tools_dir);
        sk_free(p);
    }
out:
    sk_free(skill_dir);
    sk_free(skills);
}

/* ------------------------------------------------------------ the schedule */

/* One expected step: id, phase, optional branch (NULL for null), derived. */
typedef struct want_step {
    const char *id, *phase, *branch;
    int derived;
} want_step;

/* The controller's canonical schedule for a session (auto_tune_session.py,
 * _canonical_steps): *n steps into w (at most 10).  Returns 0, or -1 when
 * the mode and entrypoint do not combine. */
static int canonical_steps(const char *mode, const char *entry, int multistream_accepted,
                           want_step *w, size_t *n)
{
    *n = 0;
    int both = strcmp(mode, "both") == 0;
    if (strcmp(entry, "source-range-from-smap") == 0) {
        if (strcmp(mode, "source-range") != 0)
            return -1;
        w[(*n)++] = (want_step){"optional-source-range", "optional_experiments", "source-range", 0};
        w[(*n)++] = (want_step){"final-e2e-report", "final_e2e_report", NULL, 0};
        return 0;
    }
    if (strcmp(entry, "full") == 0) {
        w[(*n)++] = (want_step){"intake-preparation", "intake_preparation", NULL, 0};
        w[(*n)++] = (want_step){"s0-baseline", "s0_baseline", NULL, 0};
        w[(*n)++] = (want_step){"stage-a-scope-selection", "stage_a_scope_selection", NULL, 0};
        w[(*n)++] = (want_step){SO_PHASE_STAGE_O_STEP, SO_PHASE_STAGE_O, NULL, 0};
        w[(*n)++] = (want_step){"base-profile-source-mapping", "base_profile_source_mapping",
                                NULL, 0};
    } else if (strcmp(mode, "multistream") != 0 && !both) {
        return -1; /* optional-from-base needs multistream or both */
    }
    if (both) {
        w[(*n)++] = (want_step){"optional-multistream", "optional_experiments", "multistream", 0};
        if (multistream_accepted)
            w[(*n)++] = (want_step){"base-profile-derived", "base_profile_source_mapping", NULL,
                                    1};
        w[(*n)++] = (want_step){"optional-source-range", "optional_experiments", "source-range",
                                0};
    } else if (strcmp(entry, "full") == 0) {
        w[(*n)++] = (want_step){"optional-experiments", "optional_experiments", mode, 0};
    } else {
        w[(*n)++] = (want_step){"optional-multistream", "optional_experiments", "multistream", 0};
    }
    w[(*n)++] = (want_step){"final-e2e-report", "final_e2e_report", NULL, 0};
    return 0;
}

static int step_matches(const cJSON *st, const want_step *w)
{
    const cJSON *branch = sk_json_get(st, "optional_branch");
    int branch_ok = w->branch ? cJSON_IsString(branch) && strcmp(branch->valuestring, w->branch) == 0
                              : cJSON_IsNull(branch);
    return strcmp(str(st, "step_id"), w->id) == 0 && strcmp(str(st, "phase"), w->phase) == 0 &&
           branch_ok && cJSON_IsTrue(sk_json_get(st, "derived_family_rebase")) == w->derived;
}

/* Returns the first pending step (or NULL). */
static const cJSON *check_session(ph *x)
{
    const cJSON *ses = x->in->session, *pending = NULL;
    const char *entry = str(ses, "entrypoint") ? str(ses, "entrypoint") : "full";
    int i = 0, multistream_accepted = 0;
    for (const cJSON *st = sk_json_get(ses, "steps")->child; st; st = st->next, i++) {
        const char *id = str(st, "step_id"), *phase = str(st, "phase");
        int j = 0;
        for (const cJSON *p = sk_json_get(ses, "steps")->child; p != st; p = p->next, j++)
            if (strcmp(str(p, "step_id"), id) == 0)
                violation(x, "session_step_duplicate", "session steps[%d]: step_id %s repeats "
                             "steps[%d]", i, id, j);
        if (strcmp(str(st, "agent_id"), so_phase_agent(phase)) != 0 ||
            strcmp(str(st, "skill"), so_phase_skill(phase)) != 0)
            violation(x, "session_step_agent", "session steps[%d] (%s): phase %s is run by %s "
                         "with skill %s", i, id, phase, so_phase_agent(phase),
                      so_phase_skill(phase));
        int sealed = strcmp(str(st, "state"), "sealed") == 0;
        if (sealed && pending)
            violation(x, "session_sealed_after_pending", "session steps[%d] (%s) is sealed "
                         "after the pending step %s", i, id, str(pending, "step_id"));
        if (!sealed && !pending)
            pending = st;
        if (sealed && strcmp(id, "optional-multistream") == 0 &&
            strcmp(str(st, "outcome_status"), "accepted") == 0)
            multistream_accepted = 1;
    }
    int full = strcmp(entry, "full") == 0;
    if (full == (sk_json_get(ses, "evidence_import") != NULL))
        violation(x, "session_evidence_import", "session: a %s session %s evidence_import",
                  entry, full ? "must not declare" : "needs");
    if (strcmp(str(ses, "status"), "completed") == 0 && pending)
        violation(x, "session_completed_pending", "session: completed, but step %s is still "
                     "pending", str(pending, "step_id"));
    want_step w[12];
    size_t n = 0;
    if (canonical_steps(str(ses, "optional_mode"), entry, multistream_accepted, w, &n) != 0) {
        violation(x, "session_schedule", "session: optional_mode %s cannot start at entrypoint %s",
                  str(ses, "optional_mode"), entry);
        return pending;
    }
    size_t have = (size_t)cJSON_GetArraySize(sk_json_get(ses, "steps"));
    const cJSON *st = sk_json_get(ses, "steps")->child;
    for (size_t k = 0; k < n && st; k++, st = st->next)
        if (!step_matches(st, &w[k])) {
            violation(x, "session_schedule", "session steps[%zu] is %s, but the controller's "
                         "schedule for optional_mode %s from %s has %s there", k,
                      str(st, "step_id"), str(ses, "optional_mode"), entry, w[k].id);
            return pending;
        }
    if (have != n)
        violation(x, "session_schedule", "session: %zu steps, but the controller's schedule for "
                     "optional_mode %s from %s has %zu", have, str(ses, "optional_mode"), entry, n);
    return pending;
}

/* ------------------------------------------------------------ task against session */

static void check_session_path(ph *x, const char *named)
{
    struct stat a, b;
    if (named[0] != '/') {
        violation(x, "task_session_path", "task: session_path %s is not absolute", named);
        return;
    }
    if (stat(named, &a) != 0 || stat(x->in->session_path, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino)
        violation(x, "task_session_path", "task: session_path %s is not the session given "
                     "(%s); the task is checked against the given session only", named,
                  x->in->session_path);
}

/* One consumed hand-off of the task: the phase result it names, re-read and
 * digested again. */
static void check_handoff(ph *x, int i, const cJSON *c)
{
    const char *root = str(x->in->session, "artifact_root");
    const char *id = str(c, "step_id"), *rel = str(c, "result_path");
    char *path = join_path(x, root, rel);
    cJSON *doc = NULL;
    sk_diag d;
    sk_diag_clear(&d);
    char digest[65];
    if (!path)
        return;
    sk_err e = sk_json_load_file(path, SK_PATH_NOFOLLOW_LEAF, "phase result", 0, &doc, NULL,
                                 NULL, &d);
    if (e == SK_E_NOMEM) {
        x->nomem = 1;
    } else if (e != SK_OK) {
        violation(x, "handoff_result_unreadable", "task consumed_handoffs[%d] (%s): %s: %s", i,
                  id, rel, d.msg);
    } else if (sk_json_fingerprint_style(doc, SK_JSON_CANONICAL_UTF8, digest, &d) != SK_OK) {
        if (d.code == SK_E_NOMEM)
            x->nomem = 1;
        else
            violation(x, "handoff_digest_mismatch", "task consumed_handoffs[%d] (%s): %s cannot "
                         "be digested: %s", i, id, rel, d.msg);
    } else {
        if (strcmp(digest, str(c, "result_sha256")) != 0)
            violation(x, "handoff_digest_mismatch", "task consumed_handoffs[%d] (%s): %s digests "
                         "to %s, the hand-off records %s", i, id, rel, digest,
                      str(c, "result_sha256"));
        else
            x->r->n_handoffs_verified++;
        const char *rs = str(doc, "session_id"), *rid = str(doc, "step_id"),
                   *rst = str(doc, "status");
        if (!rs || !rid || !rst || strcmp(rs, str(x->in->session, "session_id")) != 0 ||
            strcmp(rid, id) != 0 || strcmp(rst, str(c, "outcome_status")) != 0)
            violation(x, "handoff_result_identity", "task consumed_handoffs[%d] (%s): %s is the "
                         "result of session %s step %s with status %s, not session %s step %s "
                         "with status %s", i, id, rel, rs ? rs : "?", rid ? rid : "?",
                      rst ? rst : "?", str(x->in->session, "session_id"), id,
                      str(c, "outcome_status"));
    }
    cJSON_Delete(doc);
    sk_free(path);
}

/* The hand-offs the controller puts into a task for the pending step: every
 * sealed step before it. */
static cJSON *expected_handoffs(ph *x, const cJSON *pending)
{
    static const char *const keys[] = {"step_id", "result_path", "result_sha256",
                                       "outcome_status"};
    cJSON *list = cJSON_CreateArray();
    for (const cJSON *st = sk_json_get(x->in->session, "steps")->child; list && st != pending;
         st = st->next) {
        if (strcmp(str(st, "state"), "sealed") != 0)
            continue;
        cJSON *e = cJSON_CreateObject();
        for (size_t k = 0; e && k < 4; k++)
            if (sk_json_add_str(e, keys[k], str(st, keys[k])) != SK_OK) {
                cJSON_Delete(e);
                e = NULL;
            }
        if (!e || sk_json_append(list, e) != SK_OK) {
            cJSON_Delete(list);
            list = NULL;
        }
    }
    if (!list)
        x->nomem = 1;
    return list;
}

/* The hand-off block the controller writes: the result schema and the
 * seal command naming the session. */
static void check_handoff_block(ph *x)
{
    const cJSON *t = x->in->task, *h = sk_json_get(t, "handoff");
    const char *want[] = {"python3", "scripts/auto_tune_session.py", "seal", "--session",
                          str(t, "session_path"), "--result", "<phase-result.json>"};
    if (strcmp(str(h, "result_schema"), SO_PHASE_RESULT_SCHEMA) != 0)
        violation(x, "task_handoff_block", "task: handoff.result_schema is %s, not %s",
                  str(h, "result_schema"), SO_PHASE_RESULT_SCHEMA);
    const cJSON *a = sk_json_get(h, "seal_command")->child;
    size_t k = 0;
    for (; a && k < 7; a = a->next, k++)
        if (strcmp(a->valuestring, want[k]) != 0)
            break;
    if (a || k != 7)
        violation(x, "task_handoff_block", "task: handoff.seal_command is not the controller's "
                     "seal command for session %s (python3 scripts/auto_tune_session.py seal "
                     "--session <session_path> --result <phase-result.json>)",
                  str(t, "session_path"));
}

static void check_task(ph *x, const cJSON *pending)
{
    const cJSON *t = x->in->task, *ses = x->in->session, *m = x->in->manifest;
    const cJSON *step = sk_json_get(t, "step");
    if (strcmp(str(t, "session_id"), str(ses, "session_id")) != 0)
        violation(x, "task_session_id", "task: session_id %s, the session is %s",
                  str(t, "session_id"), str(ses, "session_id"));
    check_session_path(x, str(t, "session_path"));
    if (strcmp(str(t, "artifact_root"), str(ses, "artifact_root")) != 0)
        violation(x, "task_artifact_root", "task: artifact_root %s, the session's is %s",
                  str(t, "artifact_root"), str(ses, "artifact_root"));
    if (strcmp(str(t, "session_fingerprint"), x->r->session_fingerprint) != 0)
        violation(x, "task_session_fingerprint", "task: session_fingerprint %s, but the session "
                     "digests to %s: the session changed after the task was cut (a stale task) "
                     "or the task was not cut from it", str(t, "session_fingerprint"),
                  x->r->session_fingerprint);
    if (!same(x, sk_json_get(t, "evidence_import"), sk_json_get(ses, "evidence_import")))
        violation(x, "task_evidence_import", "task: evidence_import differs from the session's");
    if (!pending) {
        violation(x, "task_no_pending_step", "session: no step is pending, so no task can be "
                     "dispatched from it");
    } else if (!same(x, step, pending)) {
        violation(x, "task_step", "task: step %s is not the session's pending step %s (or "
                     "differs from it)", str(step, "step_id"), str(pending, "step_id"));
    }
    if (strcmp(str(step, "phase"), str(m, "phase")) != 0 ||
        strcmp(str(step, "agent_id"), str(m, "agent_id")) != 0 ||
        strcmp(str(step, "skill"), str(m, "skill")) != 0)
        violation(x, "task_phase_agent", "task: step %s is assigned to phase %s agent %s skill "
                     "%s, the manifest is phase %s agent %s skill %s", str(step, "step_id"),
                  str(step, "phase"), str(step, "agent_id"), str(step, "skill"),
                  str(m, "phase"), str(m, "agent_id"), str(m, "skill"));
    cJSON *want = expected_handoffs(x, pending);
    const cJSON *have = sk_json_get(t, "consumed_handoffs");
    if (want && !same(x, have, want))
        violation(x, "task_handoffs", "task: consumed_handoffs (%d) are not the session's %d "
                     "sealed steps before the pending one", cJSON_GetArraySize(have),
                  cJSON_GetArraySize(want));
    cJSON_Delete(want);
    int i = 0;
    for (const cJSON *c = have->child; c && !x->nomem; c = c->next, i++) {
        x->r->n_handoffs++;
        check_handoff(x, i, c);
    }
    check_handoff_block(x);
}

sk_err so_phase_check(const so_phase_input *in, so_phase_report *out, sk_diag *d)
{
    memset(out, 0, sizeof *out);
    SO_TRY(so_phase_manifest_shape(in->manifest, in->manifest_path, d));
    SO_TRY(so_phase_session_shape(in->session, in->session_path, d));
    SO_TRY(so_phase_task_shape(in->task, in->task_path, d));
    ph x = {in, out, 0};
    sk_err e = sk_json_fingerprint_style(in->session, SK_JSON_CANONICAL_UTF8,
                                         out->session_fingerprint, d);
    if (e != SK_OK) {
        sk_diag_set_file(d, in->session_path);
        return e;
    }
    check_manifest(&x);
    const cJSON *pending = check_session(&x);
    out->step_id = pending ? str(pending, "step_id") : NULL;
    check_task(&x, pending);
    if (x.nomem)
        return sk_diag_set(d, SK_E_NOMEM, in->task_path, 0, "out of memory checking the task");
    return SK_OK;
}

void so_phase_report_free(so_phase_report *r)
{
    so_lines_free(&r->violations, &r->n_violations);
    sk_free(r->tools_dir);
    memset(r, 0, sizeof *r);
}
