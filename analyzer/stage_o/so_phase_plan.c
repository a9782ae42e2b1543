/* The Stage O plan of `phase check --ledger` (so_phase.h, docs/phase.md
 * "The Stage O plan"): the exact next skdcci commands from the ledger's
 * state, in order. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "analyzer/stage_o/so_lines.h"
#include "analyzer/stage_o/so_phase.h"

typedef struct plan {
    char ***list;
    size_t *n;
    int step;
    char ledger[1100]; /* the ledger as the commands name it, quoted */
    int nomem;
} plan;

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = sk_json_get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* s as one shell word: as it is when it holds only safe characters, else
 * in single quotes ("'" as '\''). */
static const char *q(const char *s, char *out, size_t n)
{
    size_t o = 0;
    if (!s)
        s = "";
    int safe = s[0] != '\0';
    for (const char *c = s; *c && safe; c++)
        safe = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
               strchr("_./:=@%+,-", *c) != NULL;
    if (safe) {
        snprintf(out, n, "%s", s);
        return out;
    }
    out[o++] = '\'';
    for (const char *c = s; *c && o + 6 < n; c++) {
        if (*c == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *c;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
    return out;
}

/* kind "plan": the next step (numbered); "plan-alt": an alternative to the
 * step just numbered; "plan-note": what a step needs first. */
static void emit(plan *p, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void emit(plan *p, const char *kind, const char *fmt, ...)
{
    char text[1800], head[40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (strcmp(kind, "plan") == 0)
        p->step++;
    snprintf(head, sizeof head, "%s %d", kind, p->step);
    if (so_line_append(p->list, p->n, head, "%s", text) != 0)
        p->nomem = 1;
}

static void value_text(plan *p, const cJSON *v, char *out, size_t n)
{
    sk_buf b = SK_BUF_INIT;
    if (sk_json_write(v, SK_JSON_CANONICAL, &b, NULL) == SK_OK) {
        snprintf(out, n, "%s", sk_buf_cstr(&b));
    } else {
        p->nomem = 1;
        snprintf(out, n, "?");
    }
    sk_buf_free(&b);
}

/* The trial of an item (its next attempt) with the commands around it. */
static void trial(plan *p, const so_ledger *l, const so_ledger_item *it, int first)
{
    char a[600], b[600], c[600], v[400], attempt[160];
    snprintf(attempt, sizeof attempt, "%s-a%zu", it->id, it->attempts + 1);
    const char *inc_cfg = str(so_ledger_current(l)->config, "path");
    char cfg[300], root[300], out[300];
    snprintf(cfg, sizeof cfg, "configs/%s.json", it->id);
    /* every attempt records its runs in a new root: clean/<ID>, then clean/<ID>-a<N>
     * (docs/workflow.md section 0.1, ITEM_CLEAN), so that a failed attempt's runs stay bound */
    if (it->attempts == 0)
        snprintf(root, sizeof root, "clean/%s", it->id);
    else
        snprintf(root, sizeof root, "clean/%s", attempt);
    snprintf(out, sizeof out, "gates/%s-trial.json", attempt);
    value_text(p, sk_json_get(it->plan, "value"), v, sizeof v);
    if (first)
        emit(p, "plan-note", "%s is %s with %s set to %s exactly (one pointer%s%s); record at "
                             "least three clean runs in %s (docs/stage-o.md section 10)",
             cfg, it->dcci ? str(l->chain[0].config, "path") : inc_cfg,
             str(it->plan, "pointer"), v,
             it->dcci ? "; the DCCI disable-all trial is judged against " : "",
             it->dcci ? l->chain[0].id : "", root);
    else
        emit(p, "plan-note", "%s: the config of the incumbent at that time with %s set to %s; "
                             "at least three clean runs in %s",
             it->id, str(it->plan, "pointer"), v, root);
    if (first)
        emit(p, "plan", "skdcci config-diff %s %s --expect-pointer %s",
             q(it->dcci ? str(l->chain[0].config, "path") : inc_cfg, a, sizeof a), q(cfg, b, sizeof b),
             q(str(it->plan, "pointer"), c, sizeof c));
    emit(p, "plan", "skdcci ledger trial --ledger %s --item %s --config %s --runs %s --json-out %s",
         p->ledger, q(it->id, a, sizeof a), q(cfg, b, sizeof b), q(root, c, sizeof c), out);
    emit(p, "plan-alt", "a failed attempt: skdcci ledger trial --ledger %s --item %s --config %s "
                        "--scene scenes/%s.json; a legal blocker instead of a trial: skdcci ledger "
                        "settle --ledger %s --item %s --status blocked|skipped --blocker CODE "
                        "--reason-zh TEXT --evidence FILE",
         p->ledger, it->id, cfg, attempt, p->ledger, it->id);
    if (!it->dcci)
        emit(p, "plan-alt", "accepted: skdcci ledger top-up --ledger %s --item %s --runs %s "
                            "--json-out gates/%s-top-up.json (runs 4 and 5 added to %s first)",
             p->ledger, it->id, root, attempt, root);
    emit(p, "plan", "skdcci round report --ledger %s --item %s -o reports/%s", p->ledger, it->id,
         it->id);
}

/* The DCCI family's next record after its disable-all regression. */
static void dcci(plan *p, const so_ledger *l, const so_ledger_item *it, so_ledger_action a)
{
    char x[600], y[600], z[600];
    const so_ledger_record *cap = it->capture != SO_LEDGER_NONE ? &l->records[it->capture] : NULL;
    const so_ledger_record *an = it->analysis != SO_LEDGER_NONE ? &l->records[it->analysis] : NULL;
    const so_ledger_record *rep = it->repair != SO_LEDGER_NONE ? &l->records[it->repair] : NULL;
    switch (a) {
    case SO_NEXT_CAPTURE:
        emit(p, "plan-note", "the paired diagnostic capture of O0 and disable-all on fresh roots "
                             "(artifact_contract begin, run, finalize, validate-set: "
                             "docs/workflow.md)");
        emit(p, "plan", "skdcci ledger capture --ledger %s --item %s --o0-manifest "
                        "capture/o0/collection-manifest.json --disable-all-manifest "
                        "capture/disable-all/collection-manifest.json --set-summary "
                        "capture/set-summary.json", p->ledger, it->id);
        break;
    case SO_NEXT_ANALYSIS:
        emit(p, "plan", "skdcci analyze %s %s -o analysis",
             q(str(cap ? cap->body : NULL, "o0_profile_root"), x, sizeof x),
             q(str(cap ? cap->body : NULL, "disable_all_profile_root"), y, sizeof y));
        emit(p, "plan", "skdcci ledger analysis --ledger %s --item %s --analysis analysis",
             p->ledger, it->id);
        break;
    case SO_NEXT_PROBE: {
        const cJSON *ov = sk_json_get(sk_json_get(an ? an->body : NULL, "files"), "option_values");
        emit(p, "plan-note", "run the option probe on %s in the inference environment and keep "
                             "its report as probe/repair-environment.json",
             str(ov, "path") ? str(ov, "path") : "the analysis's option values");
        emit(p, "plan", "skdcci ledger probe --ledger %s --item %s --report "
                        "probe/repair-environment.json", p->ledger, it->id);
        break;
    }
    case SO_NEXT_REPAIR: {
        const cJSON *files = sk_json_get(an ? an->body : NULL, "files");
        const cJSON *d1 = it->d1_trial != SO_LEDGER_NONE && l->records ? l->records[it->d1_trial].body
                                                                      : NULL;
        const char *da = str(sk_json_get(d1, "config"), "path");
        emit(p, "plan", "skdcci repair-config --disable-all %s --options %s --analysis %s -o "
                        "configs/repair.json", q(da, x, sizeof x),
             q(str(sk_json_get(files, "repair_options"), "path"), y, sizeof y),
             q(str(an ? an->body : NULL, "dir"), z, sizeof z));
        emit(p, "plan", "skdcci ledger repair --ledger %s --item %s --config configs/repair.json",
             p->ledger, it->id);
        break;
    }
    default: { /* the repair trial */
        char attempt[160];
        snprintf(attempt, sizeof attempt, "%s-a%zu", it->id, it->attempts + 1);
        const char *cfg = str(sk_json_get(rep ? rep->body : NULL, "config"), "path");
        emit(p, "plan-note", "at least three clean runs of %s in clean/%s-D4",
             cfg ? cfg : "the repair config", it->id);
        emit(p, "plan", "skdcci ledger trial --ledger %s --item %s --config %s --runs clean/%s-D4 "
                        "--json-out gates/%s-trial.json", p->ledger, it->id,
             q(str(sk_json_get(rep ? rep->body : NULL, "config"), "path"), x, sizeof x), it->id,
             attempt);
        emit(p, "plan-alt", "accepted: skdcci ledger top-up --ledger %s --item %s --runs "
                            "clean/%s-D4 --json-out gates/%s-top-up.json", p->ledger, it->id,
             it->id, attempt);
        emit(p, "plan", "skdcci round report --ledger %s --item %s -o reports/%s", p->ledger,
             it->id, it->id);
    }
    }
}

sk_err so_phase_plan(const so_ledger *l, const char *ledger_arg, char ***lines, size_t *n,
                     sk_diag *d)
{
    plan p = {lines, n, 0, "", 0};
    q(ledger_arg, p.ledger, sizeof p.ledger);
    const so_ledger_next *nx = &l->next;
    const so_ledger_item *cur = nx->item;
    emit(&p, "plan-note", "paths are relative to %s, the ledger's directory; next action %s %s",
         l->dir, so_ledger_action_name(nx->action), cur ? cur->id : "-");
    if (!l->frozen) {
        if (nx->action == SO_NEXT_TOP_UP && cur) {
            const cJSON *t = l->records[cur->pending_top_up].body;
            const char *root = str(sk_json_get(t, "runs"), "clean_root");
            char r[600];
            emit(&p, "plan-note", "add clean runs to %s until it holds exactly five (the trial's "
                                  "runs stay unchanged)", root);
            emit(&p, "plan", "skdcci ledger top-up --ledger %s --item %s --runs %s --json-out "
                             "gates/%s-top-up.json", p.ledger, cur->id, q(root, r, sizeof r),
                 str(t, "attempt"));
            emit(&p, "plan-alt", "unstable: skdcci ledger top-up ... --scene scenes/%s-top-up.json "
                                 "(the acceptance is revoked)", str(t, "attempt"));
            emit(&p, "plan", "skdcci round report --ledger %s --item %s -o reports/%s", p.ledger,
                 cur->id, cur->id);
        } else if (nx->action == SO_NEXT_TRIAL && cur) {
            trial(&p, l, cur, 1);
        } else if (cur) {
            dcci(&p, l, cur, nx->action);
        }
        /* the items after it, in the frozen order */
        for (size_t k = 0; k < l->n_items; k++) {
            const so_ledger_item *it = &l->items[k];
            if (it == cur || so_item_status_settled(it->status))
                continue;
            trial(&p, l, it, 0);
        }
        emit(&p, "plan", "skdcci ledger freeze --ledger %s", p.ledger);
        emit(&p, "plan-alt", "Stage O cannot go on: skdcci ledger stop --ledger %s --status "
                             "blocked|failed --blocker CODE --reason-zh TEXT --evidence FILE... "
                             "[--scene SCENE] (Sbest-BASE = the incumbent %s)",
             p.ledger, so_ledger_current(l)->id);
    } else if (l->stopped) {
        const cJSON *st = l->records[l->freeze].body;
        emit(&p, "plan-note", "Stage O is stopped (%s %s, record %zu): only the hand-off (status "
                              "%s) remains",
             str(st, "status"), str(st, "blocker_code"), l->freeze + 1, str(st, "status"));
    }
    emit(&p, "plan", "skdcci ledger verify --ledger %s", p.ledger);
    emit(&p, "plan", "skdcci handoff seal --ledger %s -o handoff/%s --task TASK_JSON", p.ledger,
         SO_PHASE_STAGE_O_STEP);
    emit(&p, "plan", "skdcci handoff verify handoff/%s", SO_PHASE_STAGE_O_STEP);
    emit(&p, "plan-note", "afterwards every later (P/FINAL) config: skdcci handoff verify "
                          "handoff/%s --against-config CONFIG, and skdcci ledger check --ledger %s "
                          "--config CONFIG to record it", SO_PHASE_STAGE_O_STEP, p.ledger);
    if (p.nomem)
        return sk_diag_set(d, SK_E_NOMEM, l->path, 0, "out of memory writing the plan");
    return SK_OK;
}
