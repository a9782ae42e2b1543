/* The Stage O state machine of the ledger (docs/ledger.md "State"): what
 * each record may say given the records before it, and the state it leaves.
 * The reader replays every record through so_ledger_apply; the writers apply
 * a new record to the state before appending it, so a writer can never
 * append a record the reader refuses. */
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_json.h"
#include "artifact_contract/base/sk_json_build.h"
#include "analyzer/stage_o/so_ledger_internal.h"
#include "analyzer/stage_o/so_optmap.h"
#include "analyzer/stage_o/so_reason.h"

#define STATE SO_LEDGER_SUB_STATE

static int str_is(const cJSON *o, const char *key, const char *want)
{
    const char *s = so_lb_str(o, key);
    return s && want && strcmp(s, want) == 0;
}

void so_ledger_attempt_name(const char *item, size_t n, char *out, size_t size)
{
    snprintf(out, size, "%s-a%zu", item, n);
}

static so_ledger_item *item_mut(so_ledger *l, const char *id)
{
    return id ? (so_ledger_item *)so_ledger_item_find(l, id) : NULL;
}

/* ------------------------------------------------------------ init */

static const char *const categories[] = {"dcci", "auto_op_parallel", "aggressive",
                                         "other_experimental", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; s && list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

sk_err so_ledger_state_init(so_ledger *l, sk_diag *d)
{
    const cJSON *body = l->records[0].body;
    const cJSON *matrix = sk_json_get(body, "matrix"), *plan = sk_json_get(matrix, "plan");
    const cJSON *seed = sk_json_get(body, "seed"), *o0 = sk_json_get(body, "o0");
    const cJSON *items = sk_json_get(plan, "items");
    char fp[65];
    sk_diag sub;
    sk_diag_clear(&sub);
    if (sk_json_fingerprint(plan, fp, &sub) != SK_OK) /* it always says why */
        return sk_diag_set(d, sub.code, l->path, 1, "record 1 (init): %s", sub.msg);
    if (!str_is(matrix, "plan_fingerprint", fp))
        return so_ledger_fail(l, 0, STATE, d,
                              "matrix.plan_fingerprint is not the SHA-256 of matrix.plan");
    if (!cJSON_IsArray(items) || !items->child)
        return so_ledger_fail(l, 0, STATE, d, "matrix.plan.items must be a non-empty list");
    if (!str_is(plan, "o0_id", so_lb_str(o0, "id")))
        return so_ledger_fail(l, 0, STATE, d, "o0.id must be the plan's o0_id");
    size_t n = (size_t)cJSON_GetArraySize(items), dcci = 0;
    l->items = sk_calloc(n, sizeof *l->items);
    l->chain = sk_calloc(n + 1, sizeof *l->chain);
    if (!l->items || !l->chain)
        return sk_diag_set(d, SK_E_NOMEM, l->path, 1, "out of memory reading the ledger");
    for (const cJSON *e = items->child; e; e = e->next) {
        const char *id = so_lb_str(e, "id"), *cat = so_lb_str(e, "category");
        if (!id || !id[0] || !in_list(cat, categories) || !sk_json_get(e, "pointer") ||
            !sk_json_get(e, "value"))
            return so_ledger_fail(l, 0, STATE, d,
                                  "matrix.plan.items[%zu] needs an id, a known category, a "
                                  "pointer and a value",
                                  l->n_items);
        if (item_mut(l, id) || strcmp(id, so_lb_str(o0, "id")) == 0)
            return so_ledger_fail(l, 0, STATE, d, "matrix item id %s is not unique", id);
        so_ledger_item *it = &l->items[l->n_items++];
        it->id = id;
        it->category = cat;
        it->plan = e;
        it->dcci = strcmp(cat, "dcci") == 0;
        dcci += (size_t)it->dcci;
        it->status = SO_ITEM_PENDING;
        it->phase = it->dcci ? "D1" : NULL;
        it->trial = it->pending_top_up = it->top_up = it->d1_trial = it->capture = it->analysis =
            it->probe = it->repair = it->repair_trial = it->settled_by = SO_LEDGER_NONE;
    }
    if (dcci != 1)
        return so_ledger_fail(l, 0, STATE, d, "the matrix must hold exactly one dcci item, found %zu",
                              dcci);
    const cJSON *st = sk_json_get(o0, "stability"), *runs = sk_json_get(o0, "runs");
    if (!cJSON_IsTrue(sk_json_get(st, "stable")) || so_lb_uint(st, "run_count") != 5 ||
        cJSON_GetArraySize(sk_json_get(runs, "runs")) != 5)
        return so_ledger_fail(l, 0, STATE, d, "O0-INCUMBENT needs five runs that are stable");
    const cJSON *config = sk_json_get(seed, "config");
    if (!str_is(sk_json_get(seed, "fingerprints"), "candidate_config_fingerprint",
                so_lb_str(config, "fingerprint")))
        return so_ledger_fail(l, 0, STATE, d,
                              "seed.fingerprints.candidate_config_fingerprint must be the seed "
                              "config's fingerprint");
    l->settings = sk_json_get(body, "settings");
    l->chain[0] = (so_ledger_incumbent){so_lb_str(o0, "id"), 0, config, runs};
    l->n_chain = 1;
    return SK_OK;
}

/* ------------------------------------------------------------ helpers */

/* Every item before it in the frozen order is settled. */
static const so_ledger_item *first_unsettled_before(const so_ledger *l, const so_ledger_item *it)
{
    for (const so_ledger_item *p = l->items; p < it; p++)
        if (!so_item_status_settled(p->status))
            return p;
    return NULL;
}

/* Canonical equality: 1 equal, 0 not (or a side missing), -1 out of
 * memory, which is never a verdict: every caller passes it on as
 * SK_E_NOMEM (oom_at), never as a state violation. */
static int same_json(const cJSON *a, const cJSON *b)
{
    return a && b ? sk_json_equal(a, b) : 0;
}

static sk_err oom_at(const so_ledger *l, size_t i, sk_diag *d)
{
    return sk_diag_set(d, SK_E_NOMEM, l->path, l->records[i].line,
                       "record %zu: out of memory comparing values", i + 1);
}

/* The runs of b contain every run of a with an identical binding: 1, 0, or
 * -1 out of memory. */
static int runs_include(const cJSON *a, const cJSON *b)
{
    for (const cJSON *ra = sk_json_get(a, "runs")->child; ra; ra = ra->next) {
        int found = 0;
        for (const cJSON *rb = sk_json_get(b, "runs")->child; rb && !found; rb = rb->next)
            found = same_json(ra, rb);
        if (found <= 0)
            return found;
    }
    return 1;
}

static int has_run(const cJSON *runs, const char *name)
{
    for (const cJSON *r = sk_json_get(runs, "runs")->child; r; r = r->next)
        if (str_is(r, "name", name))
            return 1;
    return 0;
}

static void settle(so_ledger *l, so_ledger_item *it, so_item_status s, size_t i)
{
    it->status = s;
    if (so_item_status_settled(s)) {
        it->settled_by = i;
        it->incumbent_after = so_ledger_current(l)->id;
        it->pending_top_up = SO_LEDGER_NONE;
    }
}

static sk_err open_item(so_ledger *l, size_t i, so_ledger_item **out, sk_diag *d)
{
    const char *id = so_lb_str(l->records[i].body, "item");
    so_ledger_item *it = item_mut(l, id);
    *out = it;
    if (!it)
        return so_ledger_fail(l, i, STATE, d, "item %s is not in the frozen matrix", id);
    if (so_item_status_settled(it->status))
        return so_ledger_fail(l, i, STATE, d,
                              "item %s is already settled (%s by record %zu); a settled item is "
                              "never tried again",
                              id, so_item_status_name(it->status), it->settled_by + 1);
    return SK_OK;
}

/* ------------------------------------------------------------ trial */

const char *so_ledger_expected_step(const so_ledger_item *it)
{
    if (!it->dcci)
        return "ordinary";
    if (!it->d1_outcome)
        return "d1";
    if (strcmp(it->d1_outcome, "regression") == 0 && it->repair != SO_LEDGER_NONE &&
        it->repair_trial == SO_LEDGER_NONE)
        return "d4";
    return NULL;
}

static sk_err check_change(so_ledger *l, size_t i, const so_ledger_item *it, const char *step,
                           sk_diag *d)
{
    const cJSON *b = l->records[i].body, *change = sk_json_get(b, "change");
    const cJSON *ptrs = sk_json_get(change, "pointers"), *vals = sk_json_get(change, "values");
    if (strcmp(step, "d4") == 0) {
        const cJSON *rep = l->records[it->repair].body;
        const cJSON *pp = sk_json_get(sk_json_get(rep, "proof"), "pointers");
        const char *want[3] = {so_lb_str(pp, "disable"), so_lb_str(pp, "before"), so_lb_str(pp, "after")};
        if (cJSON_GetArraySize(ptrs) != 3 || cJSON_GetArraySize(vals) != 3)
            return so_ledger_fail(l, i, STATE, d,
                                  "the joint repair changes exactly the three DCCI pointers "
                                  "against O0");
        for (int k = 0; k < 3; k++) {
            int found = 0;
            for (const cJSON *p = ptrs->child; p; p = p->next)
                found |= cJSON_IsString(p) && want[k] && strcmp(p->valuestring, want[k]) == 0;
            if (!found)
                return so_ledger_fail(l, i, STATE, d, "the joint repair must change %s",
                                      want[k] ? want[k] : "the DCCI pointers");
        }
        if (!str_is(sk_json_get(b, "config"), "sha256", so_lb_str(sk_json_get(rep, "config"), "sha256")))
            return so_ledger_fail(l, i, STATE, d,
                                  "the repair trial's config is not the joint repair config "
                                  "recorded by record %zu",
                                  it->repair + 1);
        return SK_OK;
    }
    const char *pointer = so_lb_str(it->plan, "pointer");
    const cJSON *v0 = cJSON_IsArray(vals) ? vals->child : NULL;
    if (cJSON_GetArraySize(ptrs) != 1 || !str_is(change, "vs", so_ledger_current(l)->id) ||
        !cJSON_IsString(ptrs->child) || !pointer || strcmp(ptrs->child->valuestring, pointer) != 0 ||
        cJSON_GetArraySize(vals) != 1 || !str_is(v0, "pointer", pointer))
        return so_ledger_fail(l, i, STATE, d,
                              "a trial of %s changes exactly its pointer %s against the "
                              "incumbent %s",
                              it->id, pointer ? pointer : "?", so_ledger_current(l)->id);
    const cJSON *after = sk_json_get(v0, "after");
    int eq = same_json(sk_json_get(after, "value"), sk_json_get(it->plan, "value"));
    if (eq < 0)
        return oom_at(l, i, d);
    if (!cJSON_IsTrue(sk_json_get(after, "present")) || !eq)
        return so_ledger_fail(l, i, STATE, d, "the trial's value at %s is not the item's exact value",
                              pointer);
    return SK_OK;
}

static so_item_status trial_status(const char *step, const char *outcome, const char *d1)
{
    if (strcmp(outcome, "failed") == 0)
        return SO_ITEM_FAILED;
    if (strcmp(outcome, "attempt_failed") == 0 || strcmp(outcome, "accepted") == 0)
        return SO_ITEM_RUNNING;
    if (strcmp(step, "d1") == 0 && d1 && strcmp(d1, "regression") == 0)
        return SO_ITEM_RUNNING;
    return SO_ITEM_REJECTED;
}

static sk_err apply_trial(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = open_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    const so_ledger_incumbent *cur = so_ledger_current(l);
    if (it->pending_top_up != SO_LEDGER_NONE)
        return so_ledger_fail(l, i, STATE, d,
                              "item %s has an accepted trial (record %zu) waiting for its top-up",
                              it->id, it->pending_top_up + 1);
    const so_ledger_item *before = first_unsettled_before(l, it);
    if (before)
        return so_ledger_fail(l, i, STATE, d,
                              "item %s cannot start before %s, earlier in the frozen matrix, is "
                              "settled",
                              it->id, before->id);
    const char *step = so_ledger_expected_step(it);
    if (!step)
        return so_ledger_fail(l, i, STATE, d,
                              "the DCCI family %s is in phase %s: its next record is not a trial",
                              it->id, it->phase);
    if (!str_is(b, "step", step))
        return so_ledger_fail(l, i, STATE, d, "step must be %s", step);
    char attempt[128];
    so_ledger_attempt_name(it->id, it->attempts + 1, attempt, sizeof attempt);
    if (!str_is(b, "attempt", attempt))
        return so_ledger_fail(l, i, STATE, d, "attempt must be %s", attempt);
    if (it->dcci && l->n_chain > 1)
        return so_ledger_fail(l, i, STATE, d,
                              "the DCCI family is judged against %s while it is still the "
                              "incumbent; %s was accepted before it",
                              l->chain[0].id, cur->id);
    const cJSON *base = sk_json_get(b, "baseline");
    if (!str_is(base, "id", cur->id) || so_lb_uint(base, "record") != cur->record + 1 ||
        !str_is(b, "incumbent_before", cur->id) || !str_is(b, "incumbent_after", cur->id) ||
        !str_is(sk_json_get(b, "change"), "vs", cur->id))
        return so_ledger_fail(l, i, STATE, d,
                              "the trial must be judged against the current incumbent %s (record "
                              "%zu) and leave it the incumbent",
                              cur->id, cur->record + 1);
    rc = check_change(l, i, it, step, d);
    if (rc != SK_OK)
        return rc;
    const char *outcome = so_lb_str(b, "outcome"), *d1 = so_lb_str(b, "d1_outcome");
    const cJSON *gate = sk_json_get(b, "gate"), *scene = sk_json_get(b, "scene");
    const cJSON *hyg = sk_json_get(b, "hygiene");
    int failed = strcmp(outcome, "failed") == 0, attempt_failed = !strcmp(outcome, "attempt_failed");
    if (failed || attempt_failed) {
        if (cJSON_IsNull(scene) || !str_is(scene, "attempt", attempt) || !cJSON_IsNull(gate) ||
            cJSON_IsTrue(sk_json_get(scene, "functional")) != failed)
            return so_ledger_fail(l, i, STATE, d,
                                  "a failed attempt carries the failure scene of %s (functional "
                                  "for failed, not functional for attempt_failed) and no gate",
                                  attempt);
    } else {
        if (cJSON_IsNull(gate) || cJSON_IsNull(sk_json_get(b, "runs")) || !cJSON_IsNull(scene) ||
            cJSON_IsNull(sk_json_get(b, "summary")) || !str_is(hyg, "state", "proven"))
            return so_ledger_fail(l, i, STATE, d,
                                  "a judged trial carries proven runs, its gate and its summary");
        int acc = cJSON_IsTrue(sk_json_get(gate, "accepted"));
        if (acc != (strcmp(outcome, "accepted") == 0))
            return so_ledger_fail(l, i, STATE, d, "outcome %s contradicts the gate (accepted %s)",
                                  outcome, acc ? "true" : "false");
    }
    int is_d1 = strcmp(step, "d1") == 0;
    const char *want_d1 = !is_d1 || attempt_failed ? NULL
                          : failed                 ? "functional_failure"
                          : !strcmp(outcome, "accepted") ? "gain"
                                                         : d1;
    if (is_d1 && !attempt_failed && strcmp(outcome, "rejected") == 0 &&
        !(d1 && (strcmp(d1, "neutral") == 0 || strcmp(d1, "regression") == 0)))
        return so_ledger_fail(l, i, STATE, d,
                              "a rejected disable-all trial is neutral or a regression");
    if ((want_d1 == NULL) != (d1 == NULL) || (want_d1 && strcmp(want_d1, d1) != 0))
        return so_ledger_fail(l, i, STATE, d, "d1_outcome must be %s", want_d1 ? want_d1 : "null");
    so_item_status s = trial_status(step, outcome, d1);
    if (!str_is(b, "item_status", so_item_status_name(s)))
        return so_ledger_fail(l, i, STATE, d, "item_status must be %s", so_item_status_name(s));
    const cJSON *rb = sk_json_get(b, "rollback");
    int rolled = strcmp(outcome, "accepted") != 0;
    if (rolled && (cJSON_IsNull(rb) || !str_is(rb, "to", cur->id)))
        return so_ledger_fail(l, i, STATE, d,
                              "a trial that is not accepted records the rollback to %s", cur->id);
    if (!rolled && !cJSON_IsNull(rb))
        return so_ledger_fail(l, i, STATE, d, "an accepted trial has no rollback");
    it->attempts++;
    it->trial = i;
    if (is_d1) {
        it->d1_trial = i;
        it->d1_outcome = want_d1;
        if (d1 && strcmp(d1, "regression") == 0)
            it->phase = "D2";
    } else if (strcmp(step, "d4") == 0) {
        it->repair_trial = i;
    }
    if (strcmp(outcome, "accepted") == 0)
        it->pending_top_up = i;
    settle(l, it, s, i);
    return SK_OK;
}

/* ------------------------------------------------------------ top-up */

static sk_err apply_top_up(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = open_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    if (it->pending_top_up == SO_LEDGER_NONE)
        return so_ledger_fail(l, i, STATE, d,
                              "item %s has no accepted trial waiting for a top-up (a top-up "
                              "follows only an accepted trial)",
                              it->id);
    const cJSON *trial = l->records[it->pending_top_up].body;
    const so_ledger_incumbent *cur = so_ledger_current(l);
    int same_config = same_json(sk_json_get(b, "config"), sk_json_get(trial, "config"));
    if (same_config < 0)
        return oom_at(l, i, d);
    if (so_lb_uint(b, "trial_record") != it->pending_top_up + 1 ||
        !str_is(b, "attempt", so_lb_str(trial, "attempt")) || !same_config ||
        !str_is(b, "incumbent_before", cur->id))
        return so_ledger_fail(l, i, STATE, d,
                              "the top-up continues the accepted trial of record %zu (its "
                              "attempt and config) against the incumbent %s",
                              it->pending_top_up + 1, cur->id);
    const cJSON *runs = sk_json_get(b, "runs"), *truns = sk_json_get(trial, "runs");
    const cJSON *scene0 = sk_json_get(b, "scene");
    if (cJSON_IsNull(runs)) {
        /* a top-up run failed: the acceptance is revoked with the failure scene */
        if (!str_is(b, "outcome", "failed") || !cJSON_IsTrue(sk_json_get(scene0, "functional")) ||
            !str_is(scene0, "attempt", so_lb_str(trial, "attempt")) ||
            !cJSON_IsNull(sk_json_get(b, "stability")) ||
            !str_is(sk_json_get(b, "hygiene"), "state", "rejected"))
            return so_ledger_fail(l, i, STATE, d,
                                  "a top-up without runs is a failed top-up with the functional "
                                  "failure scene of attempt %s",
                                  so_lb_str(trial, "attempt"));
        if (!str_is(b, "incumbent_after", cur->id) || !str_is(b, "item_status", "failed") ||
            !str_is(sk_json_get(b, "rollback"), "to", cur->id))
            return so_ledger_fail(l, i, STATE, d, "a failed top-up rolls back to %s", cur->id);
        it->top_up = i;
        settle(l, it, SO_ITEM_FAILED, i);
        return SK_OK;
    }
    if (cJSON_IsNull(sk_json_get(b, "stability")))
        return so_ledger_fail(l, i, STATE, d, "a top-up with runs carries their stability");
    int kept = runs_include(truns, runs);
    if (kept < 0)
        return oom_at(l, i, d);
    if (cJSON_GetArraySize(sk_json_get(runs, "runs")) != 5 ||
        !str_is(runs, "clean_root", so_lb_str(truns, "clean_root")) || !kept)
        return so_ledger_fail(l, i, STATE, d,
                              "the top-up holds the trial's runs unchanged plus new runs in the "
                              "same CLEAN root, exactly five");
    const cJSON *added = sk_json_get(b, "added_runs");
    size_t n_added = 0;
    for (const cJSON *a = added->child; a; a = a->next, n_added++)
        if (!has_run(runs, a->valuestring) || has_run(truns, a->valuestring))
            return so_ledger_fail(l, i, STATE, d, "added run %s is not a new run of the top-up",
                                  a->valuestring);
    if (n_added + (size_t)cJSON_GetArraySize(sk_json_get(truns, "runs")) != 5)
        return so_ledger_fail(l, i, STATE, d, "added_runs must list every new run");
    const cJSON *st = sk_json_get(b, "stability"), *scene = sk_json_get(b, "scene");
    int stable = cJSON_IsTrue(sk_json_get(st, "stable")) && so_lb_uint(st, "run_count") == 5 &&
                 str_is(sk_json_get(b, "hygiene"), "state", "proven");
    int accepted = str_is(b, "outcome", "accepted");
    if (accepted != stable)
        return so_ledger_fail(l, i, STATE, d,
                              "a top-up is accepted exactly when its five proven runs are stable");
    if (!accepted && (cJSON_IsNull(scene) || !str_is(scene, "attempt", so_lb_str(trial, "attempt"))))
        return so_ledger_fail(l, i, STATE, d,
                              "a failed top-up carries the failure scene of attempt %s",
                              so_lb_str(trial, "attempt"));
    if (accepted && (!cJSON_IsNull(scene) || !cJSON_IsNull(sk_json_get(b, "rollback"))))
        return so_ledger_fail(l, i, STATE, d, "an accepted top-up has no scene and no rollback");
    const char *after = accepted ? it->id : cur->id;
    so_item_status s = accepted ? SO_ITEM_ACCEPTED : SO_ITEM_FAILED;
    if (!str_is(b, "incumbent_after", after) || !str_is(b, "item_status", so_item_status_name(s)))
        return so_ledger_fail(l, i, STATE, d, "incumbent_after must be %s and item_status %s",
                              after, so_item_status_name(s));
    if (!accepted && !str_is(sk_json_get(b, "rollback"), "to", cur->id))
        return so_ledger_fail(l, i, STATE, d, "a failed top-up records the rollback to %s",
                              cur->id);
    it->top_up = i;
    if (accepted)
        l->chain[l->n_chain++] = (so_ledger_incumbent){it->id, i, sk_json_get(b, "config"), runs};
    settle(l, it, s, i);
    return SK_OK;
}

/* ------------------------------------------------------------ settle */

/* A blocker's reason_zh and evidence (settle and stop): Chinese, not missing
 * profiling evidence, at least one evidence file. */
static sk_err reason_ok(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    const char *reason = so_lb_str(b, "reason_zh");
    char clause[128];
    if (!so_has_cjk(reason))
        return so_ledger_fail(l, i, STATE, d, "reason_zh must be Chinese");
    if (so_cites_missing_profiling(reason, clause, sizeof clause))
        return so_ledger_fail(l, i, STATE, d,
                              "missing profiling evidence is not a legal blocker ('%s')", clause);
    if (!cJSON_GetArraySize(sk_json_get(b, "evidence")))
        return so_ledger_fail(l, i, STATE, d, "a blocker names its evidence");
    return SK_OK;
}

static sk_err apply_settle(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = open_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    const char *code = so_lb_str(b, "blocker_code");
    if (strcmp(code, "diagnostic_collection_blocked") == 0 && !it->dcci)
        return so_ledger_fail(l, i, STATE, d,
                              "diagnostic_collection_blocked is a blocker of the DCCI family only");
    rc = reason_ok(l, i, d);
    if (rc != SK_OK)
        return rc;
    if (!str_is(b, "incumbent_after", so_ledger_current(l)->id))
        return so_ledger_fail(l, i, STATE, d, "incumbent_after must be %s",
                              so_ledger_current(l)->id);
    settle(l, it, str_is(b, "status", "blocked") ? SO_ITEM_BLOCKED : SO_ITEM_SKIPPED, i);
    return SK_OK;
}

/* ------------------------------------------------------------ DCCI */

static sk_err dcci_item(so_ledger *l, size_t i, so_ledger_item **out, sk_diag *d)
{
    sk_err rc = open_item(l, i, out, d);
    if (rc == SK_OK && !(*out)->dcci)
        rc = so_ledger_fail(l, i, STATE, d, "item %s is not the DCCI family", (*out)->id);
    if (rc == SK_OK && (!(*out)->d1_outcome || strcmp((*out)->d1_outcome, "regression") != 0))
        rc = so_ledger_fail(l, i, STATE, d,
                            "the DCCI diagnostics follow only a recorded disable-all regression");
    return rc;
}

static sk_err apply_capture(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = dcci_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    if (it->analysis != SO_LEDGER_NONE)
        return so_ledger_fail(l, i, STATE, d,
                              "the analysis of record %zu is already recorded; no new capture",
                              it->analysis + 1);
    if (so_lb_uint(b, "d1_record") != it->d1_trial + 1)
        return so_ledger_fail(l, i, STATE, d, "d1_record must be %zu, the disable-all trial",
                              it->d1_trial + 1);
    const cJSON *o0m = sk_json_get(b, "o0_manifest"), *dam = sk_json_get(b, "disable_all_manifest");
    if (!str_is(o0m, "config_fingerprint", so_lb_str(l->chain[0].config, "fingerprint")) ||
        !str_is(dam, "config_fingerprint",
                so_lb_str(sk_json_get(l->records[it->d1_trial].body, "config"), "fingerprint")))
        return so_ledger_fail(l, i, STATE, d,
                              "the capture's configs are not O0's and the disable-all trial's");
    it->capture = i;
    it->phase = "D2";
    return SK_OK;
}

static sk_err apply_analysis(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = dcci_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    if (it->capture == SO_LEDGER_NONE || it->analysis != SO_LEDGER_NONE ||
        so_lb_uint(b, "capture_record") != it->capture + 1)
        return so_ledger_fail(l, i, STATE, d,
                              "one analysis follows the latest recorded capture");
    const cJSON *cap = l->records[it->capture].body;
    if (!str_is(b, "o0_manifest_sha256", so_lb_str(sk_json_get(cap, "o0_manifest"), "sha256")) ||
        !str_is(b, "disable_all_manifest_sha256",
                so_lb_str(sk_json_get(cap, "disable_all_manifest"), "sha256")))
        return so_ledger_fail(l, i, STATE, d,
                              "the analysis read other manifests than the capture of record %zu",
                              it->capture + 1);
    int candidate = str_is(b, "status", "repair_candidate");
    if (candidate && (!cJSON_GetArraySize(sk_json_get(b, "regexes")) ||
                      !cJSON_GetArraySize(sk_json_get(b, "union_tokens")) ||
                      cJSON_IsNull(sk_json_get(sk_json_get(b, "files"), "option_values"))))
        return so_ledger_fail(l, i, STATE, d,
                              "a repair candidate has its list, its token union and its option "
                              "values");
    so_item_status s = candidate ? SO_ITEM_RUNNING : SO_ITEM_REJECTED;
    if (!str_is(b, "item_status", so_item_status_name(s)) ||
        !str_is(b, "incumbent_after", so_ledger_current(l)->id))
        return so_ledger_fail(l, i, STATE, d, "item_status must be %s and incumbent_after %s",
                              so_item_status_name(s), so_ledger_current(l)->id);
    it->analysis = i;
    it->phase = "D3";
    settle(l, it, s, i);
    return SK_OK;
}

static sk_err apply_probe(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = dcci_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    if (it->analysis == SO_LEDGER_NONE || it->probe != SO_LEDGER_NONE ||
        so_lb_uint(b, "analysis_record") != it->analysis + 1)
        return so_ledger_fail(l, i, STATE, d, "one probe check follows the recorded analysis");
    const cJSON *files = sk_json_get(l->records[it->analysis].body, "files");
    if (!str_is(b, "verdict", "accepted") ||
        !str_is(sk_json_get(b, "values"), "sha256",
                so_lb_str(sk_json_get(files, "option_values"), "sha256")))
        return so_ledger_fail(l, i, STATE, d,
                              "the probe check accepts exactly the analysis's option values");
    it->probe = i;
    it->phase = "D4";
    return SK_OK;
}

static sk_err apply_repair(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    so_ledger_item *it;
    sk_err rc = dcci_item(l, i, &it, d);
    if (rc != SK_OK)
        return rc;
    if (it->probe == SO_LEDGER_NONE || it->repair != SO_LEDGER_NONE ||
        so_lb_uint(b, "probe_record") != it->probe + 1)
        return so_ledger_fail(l, i, STATE, d, "one repair config follows the probe check");
    const cJSON *an = l->records[it->analysis].body;
    const cJSON *d1cfg = sk_json_get(l->records[it->d1_trial].body, "config");
    int same_list = same_json(sk_json_get(b, "repair_list"), sk_json_get(an, "regexes"));
    if (same_list < 0)
        return oom_at(l, i, d);
    if (!cJSON_IsTrue(sk_json_get(sk_json_get(b, "proof"), "proven")) || !same_list ||
        !str_is(b, "o0_config_sha256", so_lb_str(l->chain[0].config, "sha256")) ||
        !str_is(b, "disable_all_config_sha256", so_lb_str(d1cfg, "sha256")))
        return so_ledger_fail(l, i, STATE, d,
                              "the repair config is proven on O0's and the disable-all trial's "
                              "configs with the analysis's list L");
    it->repair = i;
    return SK_OK;
}

/* ------------------------------------------------------------ freeze, check */

/* The Sbest-BASE members a freeze and a stop record share: the current
 * incumbent, its config and option maps, the seed's fingerprints (the
 * candidate config's is the incumbent's), every item with its status as the
 * state holds it (a stop lists unsettled items as pending or running) and
 * the incumbent chain. */
static sk_err base_ok(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body, *init = l->records[0].body;
    const so_ledger_incumbent *cur = so_ledger_current(l);
    int eq = same_json(sk_json_get(b, "config"), cur->config);
    if (eq < 0)
        return oom_at(l, i, d);
    if (!str_is(b, "incumbent", cur->id) || so_lb_uint(b, "incumbent_record") != cur->record + 1 ||
        !eq || !str_is(b, "base_id", SO_LEDGER_BASE_ID))
        return so_ledger_fail(l, i, STATE, d, "Sbest-BASE is the current incumbent %s (record %zu)",
                              cur->id, cur->record + 1);
    const cJSON *items = sk_json_get(b, "items"), *acc = sk_json_get(b, "accepted_items");
    const cJSON *e = items->child;
    for (size_t k = 0; k < l->n_items; k++, e = e ? e->next : NULL)
        if (!e || !str_is(e, "id", l->items[k].id) ||
            !str_is(e, "status", so_item_status_name(l->items[k].status)))
            return so_ledger_fail(l, i, STATE, d, "items must list every item with its status");
    const cJSON *a = acc->child;
    for (size_t k = 1; k < l->n_chain; k++, a = a ? a->next : NULL)
        if (!a || !cJSON_IsString(a) || strcmp(a->valuestring, l->chain[k].id) != 0)
            return so_ledger_fail(l, i, STATE, d, "accepted_items must be the incumbent chain");
    if (e || a)
        return so_ledger_fail(l, i, STATE, d, "items and accepted_items have extra entries");
    so_optmaps m;
    sk_diag sub;
    sk_diag_clear(&sub);
    if (so_optmaps_from_json(sk_json_get(b, "option_maps"), "option_maps", &m, &sub) != SK_OK) {
        if (sub.code == SK_E_NOMEM)
            return sk_diag_set(d, SK_E_NOMEM, l->path, l->records[i].line, "out of memory");
        return so_ledger_fail(l, i, SO_LEDGER_SUB_SHAPE, d, "%s", sub.msg);
    }
    int same = str_is(cur->config, "option_maps_digest", m.digest);
    so_optmaps_free(&m);
    if (!same)
        return so_ledger_fail(l, i, STATE, d,
                              "option_maps are not the option maps of the incumbent's config");
    const cJSON *fp = sk_json_get(b, "fingerprints");
    const cJSON *sfp = sk_json_get(sk_json_get(init, "seed"), "fingerprints");
    static const char *const kept[] = {"source_revision", "baseline_config_fingerprint",
                                       "control_fingerprint", "workload_fingerprint", NULL};
    for (size_t k = 0; kept[k]; k++) {
        eq = same_json(sk_json_get(fp, kept[k]), sk_json_get(sfp, kept[k]));
        if (eq < 0)
            return oom_at(l, i, d);
        if (!eq)
            return so_ledger_fail(l, i, STATE, d, "fingerprints.%s must be the seed's (Stage O "
                                                  "changes options only)",
                                  kept[k]);
    }
    eq = same_json(sk_json_get(b, "command_fingerprint"),
                   sk_json_get(sk_json_get(init, "seed"), "command_fingerprint"));
    if (eq < 0)
        return oom_at(l, i, d);
    if (!str_is(fp, "candidate_config_fingerprint", so_lb_str(cur->config, "fingerprint")) || !eq)
        return so_ledger_fail(l, i, STATE, d,
                              "the candidate config fingerprint is the incumbent's and the "
                              "command fingerprint the seed's");
    return SK_OK;
}

static sk_err apply_freeze(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    for (size_t k = 0; k < l->n_items; k++)
        if (!so_item_status_settled(l->items[k].status))
            return so_ledger_fail(l, i, STATE, d, "item %s is not settled; freeze needs every item "
                                                  "settled",
                                  l->items[k].id);
    const char *want = l->n_chain > 1 ? "accepted" : "no_gain";
    if (!str_is(b, "status", want))
        return so_ledger_fail(l, i, STATE, d, "Sbest-BASE's status is %s", want);
    sk_err rc = base_ok(l, i, d);
    if (rc != SK_OK)
        return rc;
    l->frozen = 1;
    l->freeze = i;
    return SK_OK;
}

/* ------------------------------------------------------------ stop */

void so_ledger_stop_attempt(const so_ledger *l, char *out, size_t size)
{
    snprintf(out, size, "%s-stop", so_ledger_current(l)->id);
}

static sk_err apply_stop(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body, *scene = sk_json_get(b, "scene");
    const char *code = so_lb_str(b, "blocker_code");
    int failed = str_is(b, "status", "failed"), open = 0;
    for (size_t k = 0; k < l->n_items; k++)
        open |= !so_item_status_settled(l->items[k].status);
    if (!open)
        return so_ledger_fail(l, i, STATE, d,
                              "every item is settled: a complete Stage O is frozen, not stopped");
    if (failed && !in_list(code, so_ledger_stop_failed_codes))
        return so_ledger_fail(l, i, STATE, d,
                              "a failed stop names environment_unavailable or o0_not_reproducible");
    sk_err rc = reason_ok(l, i, d);
    if (rc != SK_OK)
        return rc;
    char attempt[160];
    so_ledger_stop_attempt(l, attempt, sizeof attempt);
    if (failed && (!cJSON_IsObject(scene) || !str_is(scene, "attempt", attempt) ||
                   !cJSON_IsTrue(sk_json_get(scene, "functional"))))
        return so_ledger_fail(l, i, STATE, d,
                              "a failed stop carries the functional failure scene of attempt %s",
                              attempt);
    if (!failed && !cJSON_IsNull(scene))
        return so_ledger_fail(l, i, STATE, d, "a blocked stop has no failure scene");
    rc = base_ok(l, i, d);
    if (rc != SK_OK)
        return rc;
    l->frozen = 1;
    l->freeze = i;
    l->stopped = 1;
    return SK_OK;
}

static sk_err apply_check(so_ledger *l, size_t i, sk_diag *d)
{
    const cJSON *b = l->records[i].body;
    if (!l->frozen)
        return so_ledger_fail(l, i, STATE, d, "a later-config check follows the BASE freeze");
    const char *base = so_lb_str(sk_json_get(l->records[l->freeze].body, "config"), "option_maps_digest");
    int keeps = cJSON_IsTrue(sk_json_get(b, "keeps_base"));
    int same = str_is(sk_json_get(b, "config"), "option_maps_digest", base);
    if (!str_is(b, "base_option_maps_digest", base) || keeps != same ||
        keeps != !cJSON_GetArraySize(sk_json_get(b, "changes")))
        return so_ledger_fail(l, i, STATE, d,
                              "keeps_base holds exactly when the option-map digest is BASE's and "
                              "no option changed");
    return SK_OK;
}

sk_err so_ledger_apply(so_ledger *l, size_t i, sk_diag *d)
{
    so_ledger_kind k = l->records[i].kind;
    if (k == SO_LEDGER_INIT)
        return so_ledger_fail(l, i, STATE, d, "only the first record is init");
    if (l->frozen && k != SO_LEDGER_CHECK)
        return so_ledger_fail(l, i, STATE, d,
                              "%s (record %zu): only later-config checks follow",
                              l->stopped ? "Stage O is stopped" : "Sbest-BASE is frozen",
                              l->freeze + 1);
    switch (k) {
    case SO_LEDGER_TRIAL:
        return apply_trial(l, i, d);
    case SO_LEDGER_TOP_UP:
        return apply_top_up(l, i, d);
    case SO_LEDGER_SETTLE:
        return apply_settle(l, i, d);
    case SO_LEDGER_CAPTURE:
        return apply_capture(l, i, d);
    case SO_LEDGER_ANALYSIS:
        return apply_analysis(l, i, d);
    case SO_LEDGER_PROBE:
        return apply_probe(l, i, d);
    case SO_LEDGER_REPAIR:
        return apply_repair(l, i, d);
    case SO_LEDGER_FREEZE:
        return apply_freeze(l, i, d);
    case SO_LEDGER_CHECK:
        return apply_check(l, i, d);
    case SO_LEDGER_STOP:
        return apply_stop(l, i, d);
    default:
        return so_ledger_fail(l, i, STATE, d, "unknown record kind");
    }
}

/* ------------------------------------------------------------ next */

static const char *const action_names[] = {"trial",   "top_up",       "capture",
                                           "analysis", "probe",       "repair",
                                           "repair_trial", "freeze", "handoff"};

const char *so_ledger_action_name(so_ledger_action a)
{
    return (size_t)a < sizeof action_names / sizeof action_names[0] ? action_names[a] : "trial";
}

void so_ledger_state_next(so_ledger *l)
{
    so_ledger_next *n = &l->next;
    memset(n, 0, sizeof *n);
    if (l->stopped) {
        const cJSON *b = l->records[l->freeze].body;
        n->action = SO_NEXT_HANDOFF;
        snprintf(n->detail, sizeof n->detail,
                 "Stage O is stopped (%s: %s) with Sbest-BASE = %s: seal the Stage O hand-off "
                 "(status %s); later configs are only checked against BASE's option maps",
                 so_lb_str(b, "status"), so_lb_str(b, "blocker_code"), so_ledger_current(l)->id,
                 so_lb_str(b, "status"));
        return;
    }
    if (l->frozen) {
        n->action = SO_NEXT_HANDOFF;
        snprintf(n->detail, sizeof n->detail,
                 "Sbest-BASE is frozen: seal the Stage O hand-off; later configs are only checked "
                 "against BASE's option maps");
        return;
    }
    const so_ledger_item *it = NULL;
    for (size_t k = 0; k < l->n_items && !it; k++)
        if (!so_item_status_settled(l->items[k].status))
            it = &l->items[k];
    if (!it) {
        n->action = SO_NEXT_FREEZE;
        snprintf(n->detail, sizeof n->detail,
                 "every matrix item is settled: freeze the incumbent %s as Sbest-BASE",
                 so_ledger_current(l)->id);
        return;
    }
    n->item = it;
    const char *cur = so_ledger_current(l)->id;
    if (it->pending_top_up != SO_LEDGER_NONE) {
        n->action = SO_NEXT_TOP_UP;
        snprintf(n->detail, sizeof n->detail,
                 "top up the accepted trial of %s to exactly five clean runs in its CLEAN root",
                 it->id);
    } else if (!it->dcci || !it->d1_outcome) {
        char attempt[128];
        so_ledger_attempt_name(it->id, it->attempts + 1, attempt, sizeof attempt);
        n->action = SO_NEXT_TRIAL;
        if (it->dcci)
            snprintf(n->detail, sizeof n->detail,
                     "run the disable-all trial of the DCCI family %s (attempt %s) against %s (at "
                     "least three clean runs), or settle it blocked or skipped",
                     it->id, attempt, cur);
        else
            snprintf(n->detail, sizeof n->detail,
                     "run the trial of %s (attempt %s) against the incumbent %s (at least three "
                     "clean runs), or settle it blocked or skipped",
                     it->id, attempt, cur);
    } else if (it->capture == SO_LEDGER_NONE) {
        n->action = SO_NEXT_CAPTURE;
        snprintf(n->detail, sizeof n->detail,
                 "the disable-all trial of %s regressed: record the paired diagnostic capture",
                 it->id);
    } else if (it->analysis == SO_LEDGER_NONE) {
        n->action = SO_NEXT_ANALYSIS;
        snprintf(n->detail, sizeof n->detail,
                 "record the sealed analysis of the capture of %s (or a new capture from fresh "
                 "roots)",
                 it->id);
    } else if (it->probe == SO_LEDGER_NONE) {
        n->action = SO_NEXT_PROBE;
        snprintf(n->detail, sizeof n->detail,
                 "record the probe check of the analysis's list L for %s", it->id);
    } else if (it->repair == SO_LEDGER_NONE) {
        n->action = SO_NEXT_REPAIR;
        snprintf(n->detail, sizeof n->detail,
                 "record the joint repair config of %s and its proof", it->id);
    } else {
        char attempt[128];
        so_ledger_attempt_name(it->id, it->attempts + 1, attempt, sizeof attempt);
        n->action = SO_NEXT_REPAIR_TRIAL;
        snprintf(n->detail, sizeof n->detail,
                 "run the joint repair trial of %s (attempt %s) against %s (at least three clean "
                 "runs)",
                 it->id, attempt, l->chain[0].id);
    }
}
