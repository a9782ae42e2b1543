/* /proc parsing, ownership rules on fake proc trees, and the outputs walk. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/compile_safety/cs_liveness.h"
#include "analyzer/compile_safety/cs_outputs.h"
#include "analyzer/compile_safety/cs_proc.h"
#include "artifact_contract/base/sk_alloc.h"
#include "tests/unit/t.h"

static char tmpdir[256];

static const char *tmp(const char *rel)
{
    static char path[4][600];
    static int k;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/test_cs_proc.XXXXXX");
        if (!mkdtemp(tmpdir))
            abort();
    }
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, rel);
    return path[k];
}

/* mkdir -p of a path below the temporary directory (no shell: hundreds of
 * fixture files are created) */
static void mkdirs(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", tmp(rel));
    for (char *p = path + strlen(tmpdir) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                abort();
            *p = '/';
        }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        abort();
}

static void put(const char *rel, const char *text)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        mkdirs(dir);
    }
    FILE *f = fopen(tmp(rel), "wb");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

/* Writes <root>/<pid>/stat for a fake process. */
static void fake_proc(const char *root, long pid, const char *comm, char state, long ppid, long pgid,
                      long sid, unsigned long long start)
{
    char rel[256], text[512];
    snprintf(rel, sizeof rel, "%s/%ld/stat", root, pid);
    snprintf(text, sizeof text,
             "%ld (%s) %c %ld %ld %ld 0 -1 4194304 215 0 0 0 0 1 0 0 20 0 1 0 %llu 2990080 421 "
             "18446744073709551615 0 0 0\n",
             pid, comm, state, ppid, pgid, sid, start);
    put(rel, text);
}

/* cs_proc_read on fake stat files (the line grammar itself is tested in
 * test_sk_proc_stat.c): comm in display form, errors naming the file. */
static void stat_reading(void)
{
    cs_proc p;
    sk_diag d;
    int exists = 0;
    put("s1/4321/stat",
        "4321 (my (odd) comm) S 1 4321 4321 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0\n");
    T_EQ_INT(cs_proc_read(tmp("s1"), 4321, &p, &exists, &d), SK_OK);
    T_CHECK(exists);
    T_EQ_INT(p.pid, 4321);
    T_EQ_STR(p.comm, "my (odd) comm");
    T_EQ_INT(p.state, 'S');
    T_EQ_INT(p.ppid, 1);
    T_EQ_INT(p.pgid, 4321);
    T_EQ_INT(p.sid, 4321);
    T_EQ_U64(p.start_ticks, 987654);
    put("s1/12/stat", "12 (a\xff) R 1 12 12 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n");
    T_EQ_INT(cs_proc_read(tmp("s1"), 12, &p, &exists, &d), SK_OK);
    T_EQ_STR(p.comm, "a\\xff");
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"13 (x) S 1 13 13 0 -1 0\n", "has 9 fields, at least 22 expected"},
        {"13 (x) S 1 zz 13 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0\n", "field 5 must be a decimal"},
        {"13 x S 1\n", "lacks the parenthesised command name"},
        {"13 (x) S 1 13 13 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 -5 0\n", "field 22"},
        {"13 (x) 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", "must be one letter"},
        {"14 (x) S 1 14 14 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n", "stat pid 14 does not match directory 13"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put("s1/13/stat", bad[i].text);
        sk_diag_clear(&d);
        T_EQ_INT(cs_proc_read(tmp("s1"), 13, &p, &exists, &d), SK_E_FORMAT);
        T_CONTAINS(d.msg, bad[i].msg);
        T_CONTAINS(d.file, "s1/13/stat");
    }
}

static void real_self_is_visible(void)
{
    cs_proc p;
    int exists = 0;
    T_EQ_INT(cs_proc_read("/proc", getpid(), &p, &exists, NULL), SK_OK);
    T_CHECK(exists);
    T_EQ_INT(p.pid, getpid());
    T_EQ_INT(p.pgid, getpgrp());
    char boot[CS_BOOT_ID_MAX + 1];
    T_EQ_INT(cs_proc_boot_id("/proc", boot, NULL), SK_OK);
    T_EQ_INT(strlen(boot), 36);
    T_EQ_INT(cs_proc_read("/proc", 0x7ffffff0, &p, &exists, NULL), SK_OK);
    T_CHECK(!exists);
}

#define BOOT "11111111-2222-3333-4444-555555555555"

static void build_fake_root(const char *root)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/sys/kernel/random/boot_id", root);
    put(rel, BOOT "\n");
    fake_proc(root, 1, "init", 'S', 0, 1, 1, 1);
}

static void liveness(const char *root, int64_t leader, uint64_t start, const char *boot,
                     const cs_parent_spec *parents, size_t np, cs_liveness *l)
{
    cs_liveness_input in = {tmp(root), boot, leader, start, 0, 0, parents, np};
    sk_diag d;
    T_EQ_INT(cs_liveness_observe(&in, l, &d), SK_OK);
}

static void owned_group_and_session_members(void)
{
    build_fake_root("p1");
    fake_proc("p1", 500, "python3", 'S', 400, 500, 500, 1000);     /* leader */
    fake_proc("p1", 510, "opc", 'R', 500, 500, 500, 1200);         /* group member */
    fake_proc("p1", 520, "op_compiler", 'S', 510, 520, 500, 1300); /* own group, same session */
    fake_proc("p1", 530, "opc", 'Z', 510, 500, 500, 1250);         /* ended, not reaped */
    fake_proc("p1", 600, "bash", 'S', 1, 600, 600, 10);            /* unrelated */
    cs_liveness l;
    liveness("p1", 500, 1000, BOOT, NULL, 0, &l);
    T_CHECK(l.boot_id_matches && l.group_observed && l.pid1_visible);
    T_EQ_STR(cs_pid_status_name(l.leader), "alive");
    T_EQ_INT(l.alive.n, 3);
    T_EQ_INT(l.alive.v[0].pid, 500);
    T_EQ_INT(l.alive.v[2].pid, 520);
    T_EQ_INT(l.zombies.n, 1);
    T_EQ_INT(l.foreign.n, 0);
    cs_liveness_free(&l);
}

static void reused_leader_pid_is_not_ours(void)
{
    build_fake_root("p2");
    /* pid 500 now belongs to a process that started later: our group ended */
    fake_proc("p2", 500, "sleep", 'S', 1, 500, 500, 99999);
    fake_proc("p2", 501, "child", 'S', 500, 500, 500, 100000);
    cs_liveness l;
    liveness("p2", 500, 1000, BOOT, NULL, 0, &l);
    T_EQ_STR(cs_pid_status_name(l.leader), "pid_reused");
    T_EQ_INT(l.alive.n, 0);
    T_EQ_INT(l.foreign.n, 2);
    cs_liveness_free(&l);
}

static void orphans_after_leader_exit_are_ours(void)
{
    build_fake_root("p3");
    fake_proc("p3", 700, "opc", 'S', 1, 500, 500, 1500);    /* leader gone, member remains */
    fake_proc("p3", 701, "early", 'S', 1, 500, 500, 900);   /* started before our leader */
    cs_liveness l;
    liveness("p3", 500, 1000, BOOT, NULL, 0, &l);
    T_EQ_STR(cs_pid_status_name(l.leader), "absent");
    T_EQ_INT(l.alive.n, 1);
    T_EQ_INT(l.alive.v[0].pid, 700);
    T_EQ_INT(l.foreign.n, 1);
    T_EQ_INT(l.foreign.v[0].pid, 701);
    cs_liveness_free(&l);
}

static void other_boot_is_not_observed(void)
{
    build_fake_root("p4");
    fake_proc("p4", 500, "python3", 'S', 1, 500, 500, 1000);
    fake_proc("p4", 800, "infer", 'S', 1, 800, 800, 50);
    cs_parent_spec parents[3] = {{800, 1, 50}, {801, 0, 0}, {800, 1, 51}};
    cs_liveness l;
    liveness("p4", 500, 1000, "99999999-2222-3333-4444-555555555555", parents, 3, &l);
    T_CHECK(!l.boot_id_matches && !l.group_observed);
    T_EQ_STR(cs_pid_status_name(l.leader), "not_observed");
    T_EQ_INT(l.alive.n, 0);
    T_EQ_INT(l.nparents, 3);
    T_EQ_STR(cs_pid_status_name(l.parents[0].status), "alive");
    T_EQ_STR(cs_pid_status_name(l.parents[1].status), "absent");
    T_EQ_STR(cs_pid_status_name(l.parents[2].status), "pid_reused");
    T_EQ_INT(cs_liveness_parents_alive(&l), 1);
    cs_liveness_free(&l);
}

static void malformed_proc_entries(void)
{
    build_fake_root("p5");
    put("p5/77/stat", "77 (x) S 1 77\n");
    cs_liveness l;
    char root[600];
    snprintf(root, sizeof root, "%s", tmp("p5"));
    cs_liveness_input in = {root, BOOT, 500, 1000, 0, 0, NULL, 0};
    sk_diag d;
    T_EQ_INT(cs_liveness_observe(&in, &l, &d), SK_E_FORMAT);
    T_CONTAINS(d.file, "p5/77/stat");
    put("p5/77/stat", "78 (x) S 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0\n");
    T_EQ_INT(cs_liveness_observe(&in, &l, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "does not match directory 77");
    unlink(tmp("p5/77/stat"));
    put("p5/sys/kernel/random/boot_id", "not a uuid!\n");
    T_EQ_INT(cs_liveness_observe(&in, &l, &d), SK_E_FORMAT);
    T_CONTAINS(d.msg, "boot id holds a character");
    cs_liveness_input nop = {tmp("nonexistent"), BOOT, 500, 1000, 0, 0, NULL, 0};
    T_EQ_INT(cs_liveness_observe(&nop, &l, &d), SK_E_IO);
}

static void parent_spec_parsing(void)
{
    cs_parent_spec s;
    sk_diag d;
    T_EQ_INT(cs_parent_spec_parse("123", &s, &d), SK_OK);
    T_CHECK(s.pid == 123 && !s.has_start);
    T_EQ_INT(cs_parent_spec_parse("123:456", &s, &d), SK_OK);
    T_CHECK(s.pid == 123 && s.has_start && s.start_ticks == 456);
    T_EQ_INT(cs_parent_spec_parse("0", &s, &d), SK_E_ARG);
    T_EQ_INT(cs_parent_spec_parse("-5", &s, &d), SK_E_ARG);
    T_EQ_INT(cs_parent_spec_parse("12:", &s, &d), SK_E_ARG);
    T_CONTAINS(d.msg, "start time in '12:'");
    T_EQ_INT(cs_parent_spec_parse("12:x", &s, &d), SK_E_ARG);
    T_EQ_INT(cs_parent_spec_parse("4294967296", &s, &d), SK_E_ARG);
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void liveness_allocation_failures(void)
{
    build_fake_root("p6");
    for (long i = 0; i < 20; i++)
        fake_proc("p6", 900 + i, "opc", 'S', 900, 900, 900, 5000 + (unsigned long long)i);
    cs_parent_spec parents[1] = {{901, 1, 5001}};
    char root[600];
    snprintf(root, sizeof root, "%s", tmp("p6"));
    for (unsigned long n = 1; n < 1000; n++) {
        cs_liveness l;
        cs_liveness_input in = {root, BOOT, 900, 5000, 0, 0, parents, 1};
        sk_alloc_fail_at(n);
        sk_err e = cs_liveness_observe(&in, &l, NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e) {
            T_EQ_INT(e, SK_E_NOMEM);
            continue;
        }
        T_EQ_INT(l.alive.n, 20);
        cs_liveness_free(&l);
        if (used < n)
            break;
    }
}
#endif

/* ---- outputs walk */

static void outputs_counts_and_lists(void)
{
    put("out/static_kernel_compile_outputs/1_outputs/compile_log/b_compile_error.log", "");
    put("out/static_kernel_compile_outputs/1_outputs/compile_log/a_compile_error.log", "");
    put("out/static_kernel_compile_outputs/1_outputs/compile_log/c_compile_succ.log", "");
    put("out/static_kernel_compile_outputs/1_outputs/pkg.run", "");
    put("out/static_kernel_compile_outputs/1_outputs/notes.txt", "");
    mkdirs("out/static_kernel_compile_outputs/empty");
    put("elsewhere/x_compile_error.log", "");
    put("elsewhere/y.run", "");
    T_EQ_INT(symlink(tmp("elsewhere"), tmp("out/linkdir")), 0);
    T_EQ_INT(symlink(tmp("elsewhere/y.run"), tmp("out/z.run")), 0);
    T_EQ_INT(mkfifo(tmp("out/fifo.run"), 0600), 0);
    cs_outputs o = {0};
    sk_diag d;
    T_EQ_INT(cs_outputs_walk(&o, tmp("out/"), &d), SK_OK);
    T_EQ_INT(cs_outputs_walk(&o, tmp("does-not-exist"), &d), SK_OK);
    cs_outputs_finish(&o);
    T_EQ_INT(o.nroots, 2);
    T_CHECK(o.roots[0].exists && !o.roots[1].exists);
    T_EQ_INT(o.error_logs.n, 2);
    T_CONTAINS(o.error_logs.v[0], "out/static_kernel_compile_outputs/1_outputs/compile_log/a_compile_error.log");
    T_CHECK(strstr(o.error_logs.v[0], "//") == NULL);
    T_CONTAINS(o.error_logs.v[1], "b_compile_error.log");
    T_EQ_INT(o.succ_logs.n, 1);
    T_EQ_INT(o.run_packages.n, 1); /* symlink and fifo are not packages */
    T_EQ_U64(o.symlinks_skipped, 2);
    cs_outputs_free(&o);
    T_EQ_INT(cs_outputs_walk(&o, tmp("out/linkdir"), &d), SK_E_PATH);
    T_CONTAINS(d.msg, "outputs root is a symlink");
    cs_outputs_free(&o);
    T_EQ_INT(cs_outputs_walk(&o, tmp("elsewhere/y.run"), &d), SK_E_PATH);
    T_CONTAINS(d.msg, "must be a directory");
    cs_outputs_free(&o);
}

static void outputs_many_error_logs(void)
{
    /* the contract's example: 300+ error-named files */
    mkdirs("many/compile_log");
    for (int i = 0; i < 320; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "many/compile_log/op%03d_compile_error.log", i);
        put(rel, "");
    }
    cs_outputs o = {0};
    T_EQ_INT(cs_outputs_walk(&o, tmp("many"), NULL), SK_OK);
    cs_outputs_finish(&o);
    T_EQ_INT(o.error_logs.n, 320);
    T_CONTAINS(o.error_logs.v[0], "op000_compile_error.log");
    T_CONTAINS(o.error_logs.v[319], "op319_compile_error.log");
    cs_outputs_free(&o);
}

static void outputs_depth_limit(void)
{
    char rel[4096] = "deep";
    for (int i = 0; i < CS_OUTPUTS_MAX_DEPTH + 2; i++)
        strcat(rel, "/d");
    mkdirs(rel);
    cs_outputs o = {0};
    sk_diag d;
    T_EQ_INT(cs_outputs_walk(&o, tmp("deep"), &d), SK_E_LIMIT);
    T_CONTAINS(d.msg, "deeper than 64 levels");
    cs_outputs_free(&o);
}

#ifdef SK_TEST_HOOKS /* fault injection exists only in test builds */
static void outputs_allocation_failures(void)
{
    for (unsigned long n = 1; n < 5000; n++) {
        cs_outputs o = {0};
        sk_alloc_fail_at(n);
        sk_err e = cs_outputs_walk(&o, tmp("out"), NULL);
        unsigned long used = sk_alloc_count();
        sk_alloc_fail_at(0);
        if (e)
            T_EQ_INT(e, SK_E_NOMEM);
        else
            T_EQ_INT(o.error_logs.n, 2);
        cs_outputs_free(&o);
        if (!e && used < n)
            break;
    }
}
#endif

static void cleanup(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0)
        t_fail(__FILE__, __LINE__, "cleanup failed");
}

static const t_case cases[] = {
    T(stat_reading),
    T(real_self_is_visible),
    T(owned_group_and_session_members),
    T(reused_leader_pid_is_not_ours),
    T(orphans_after_leader_exit_are_ours),
    T(other_boot_is_not_observed),
    T(malformed_proc_entries),
    T(parent_spec_parsing),
#ifdef SK_TEST_HOOKS
    T(liveness_allocation_failures),
#endif
    T(outputs_counts_and_lists),
    T(outputs_many_error_logs),
    T(outputs_depth_limit),
#ifdef SK_TEST_HOOKS
    T(outputs_allocation_failures),
#endif
    T(cleanup),
    {NULL, NULL},
};
T_MAIN(cases)
