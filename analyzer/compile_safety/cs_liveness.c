#include "analyzer/compile_safety/cs_liveness.h"

#include <stdlib.h>
#include <string.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_fixed.h"

const char *cs_pid_status_name(cs_pid_status s)
{
    switch (s) {
    case CS_PID_ALIVE:
        return "alive";
    case CS_PID_ABSENT:
        return "absent";
    case CS_PID_REUSED:
        return "pid_reused";
    case CS_PID_ZOMBIE:
        return "zombie";
    case CS_PID_NOT_OBSERVED:
        return "not_observed";
    }
    return "not_observed";
}

sk_err cs_parent_spec_parse(const char *text, cs_parent_spec *out, sk_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *colon = strchr(text, ':');
    size_t plen = colon ? (size_t)(colon - text) : strlen(text);
    uint64_t pid;
    /* Linux pids are below 2^22; INT32_MAX is the type's own bound */
    if (sk_parse_u64_strict(text, plen, INT32_MAX, &pid, NULL) || pid == 0)
        return sk_diag_set(d, SK_E_ARG, "", 0,
                           "parent pid '%s' must be PID or PID:START_TICKS with a positive decimal PID",
                           text);
    out->pid = (int64_t)pid;
    if (colon) {
        if (sk_parse_u64_strict(colon + 1, strlen(colon + 1), UINT64_MAX, &out->start_ticks, NULL))
            return sk_diag_set(d, SK_E_ARG, "", 0,
                               "parent start time in '%s' must be a decimal number of clock ticks",
                               text);
        out->has_start = 1;
    }
    return SK_OK;
}

typedef struct keep_ctx {
    const cs_liveness_input *in;
    int group; /* the recorded group can be matched (same boot) */
} keep_ctx;

static int keep_proc(const cs_proc *p, void *vctx)
{
    const keep_ctx *k = vctx;
    const cs_liveness_input *in = k->in;
    if (k->group && (p->pgid == in->leader_pid || p->sid == in->leader_pid ||
                     p->pid == in->leader_pid || (in->runner_pid && p->pid == in->runner_pid)))
        return 1;
    for (size_t i = 0; i < in->nparents; i++)
        if (p->pid == in->parents[i].pid)
            return 1;
    return 0;
}

static sk_err table_add(cs_proc_table *t, const cs_proc *p)
{
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 16;
        cs_proc *nv = sk_realloc(t->v, ncap * sizeof *nv);
        if (!nv)
            return SK_E_NOMEM;
        t->v = nv;
        t->cap = ncap;
    }
    t->v[t->n++] = *p;
    return SK_OK;
}

static cs_pid_status identify(const cs_proc *p, int has_start, uint64_t start)
{
    if (!p)
        return CS_PID_ABSENT;
    if (has_start && p->start_ticks != start)
        return CS_PID_REUSED;
    if (cs_proc_is_dead(p))
        return CS_PID_ZOMBIE;
    return CS_PID_ALIVE;
}

int cs_liveness_owns(const cs_liveness_input *in, const cs_liveness *l, const cs_proc *p)
{
    if (!l->group_observed || (p->pgid != in->leader_pid && p->sid != in->leader_pid))
        return 0;
    if (p->pid == in->leader_pid)
        return p->start_ticks == in->leader_start_ticks;
    return l->leader != CS_PID_REUSED && p->start_ticks >= in->leader_start_ticks;
}

sk_err cs_liveness_observe(const cs_liveness_input *in, cs_liveness *out, sk_diag *d)
{
    sk_err e = SK_OK;
    cs_proc_table snap = {0};
    memset(out, 0, sizeof *out);
    out->leader = out->runner = CS_PID_NOT_OBSERVED;
    e = cs_proc_boot_id(in->proc_root, out->boot_id, d);
    if (e)
        goto out;
    out->boot_id_matches = in->record_boot_id && strcmp(in->record_boot_id, out->boot_id) == 0;
    out->group_observed = out->boot_id_matches;
    cs_proc init;
    int init_exists = 0;
    e = cs_proc_read(in->proc_root, 1, &init, &init_exists, d);
    if (e)
        goto out;
    out->pid1_visible = init_exists;
    keep_ctx k = {in, out->group_observed};
    e = cs_proc_scan(in->proc_root, keep_proc, &k, &snap, &out->listed, d);
    if (e)
        goto out;
    if (in->nparents) {
        out->parents = sk_calloc(in->nparents, sizeof *out->parents);
        if (!out->parents) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
        out->nparents = in->nparents;
        for (size_t i = 0; i < in->nparents; i++) {
            cs_parent_obs *po = &out->parents[i];
            const cs_proc *p = cs_proc_find(&snap, in->parents[i].pid);
            po->spec = in->parents[i];
            po->status = identify(p, po->spec.has_start, po->spec.start_ticks);
            if (p) {
                po->observed_start_ticks = p->start_ticks;
                memcpy(po->comm, p->comm, sizeof po->comm);
            }
        }
    }
    if (!out->group_observed)
        goto out;
    const cs_proc *leader = cs_proc_find(&snap, in->leader_pid);
    out->leader = identify(leader, 1, in->leader_start_ticks);
    if (leader)
        out->leader_observed_start_ticks = leader->start_ticks;
    if (in->runner_pid) {
        const cs_proc *r = cs_proc_find(&snap, in->runner_pid);
        out->runner = identify(r, 1, in->runner_start_ticks);
    }
    for (size_t i = 0; i < snap.n; i++) {
        const cs_proc *p = &snap.v[i];
        if (p->pgid != in->leader_pid && p->sid != in->leader_pid)
            continue;
        int ours = cs_liveness_owns(in, out, p);
        cs_proc_table *dst = !ours ? &out->foreign : cs_proc_is_dead(p) ? &out->zombies : &out->alive;
        if (table_add(dst, p)) {
            e = sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory");
            goto out;
        }
    }
out:
    cs_proc_table_free(&snap);
    if (e)
        cs_liveness_free(out);
    return e;
}

void cs_liveness_free(cs_liveness *l)
{
    if (!l)
        return;
    cs_proc_table_free(&l->alive);
    cs_proc_table_free(&l->zombies);
    cs_proc_table_free(&l->foreign);
    sk_free(l->parents);
    l->parents = NULL;
    l->nparents = 0;
}

size_t cs_liveness_owned_alive(const cs_liveness *l)
{
    return l->alive.n;
}

size_t cs_liveness_parents_alive(const cs_liveness *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->nparents; i++)
        n += l->parents[i].status == CS_PID_ALIVE;
    return n;
}
