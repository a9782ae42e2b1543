/* The ranks of a side from its file list (docs/analyze.md §3.3): the profiler
 * directory that links a kernel_details file with a trace copy, repeated
 * profiler cycles, the pid of a *_ascend_pt name; and the control's
 * ASCEND_RT_VISIBLE_DEVICES (§3.4). */
#include <string.h>

#include "analyzer/dcci/dcci_ranks.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/unit/t.h"

#define KD "kernel_details"
#define PROF "sk_prof"
#define META "sk_fused_nodes"

typedef struct file_spec {
    const char *role, *path;
} file_spec;

/* A side holding exactly these files (sorted as the analysis sorts them). */
static void side_of(dcci_side *s, const file_spec *f)
{
    sk_diag d;
    dcci_side_init(s, "o0");
    for (; f->role; f++)
        T_EQ_INT(dcci_input_add_file(&s->in, f->role, f->path, NULL, 0, &d), SK_OK);
    dcci_input_sort(&s->in);
}

/* cycles, then the split the analysis does; returns the number of ranks */
static size_t split(dcci_side *s, int multi)
{
    dcci_ranks r;
    sk_diag d;
    T_EQ_INT(dcci_ranks_cycles(s, &d), SK_OK);
    if (multi < 0)
        multi = !dcci_ranks_one_device(s);
    T_EQ_INT(dcci_ranks_split(s, multi, &r, &d), SK_OK);
    size_t n = multi ? r.n : s->nlinks;
    dcci_ranks_free(&r);
    return n;
}

/* "code,code,..." of the side's issues */
static const char *codes(const dcci_side *s)
{
    static char buf[512];
    buf[0] = '\0';
    for (size_t i = 0; i < s->issues.n; i++) {
        strncat(buf, s->issues.v[i].code, sizeof buf - strlen(buf) - 2);
        strncat(buf, ",", sizeof buf - strlen(buf) - 1);
    }
    return buf;
}

static int has_message(const dcci_side *s, const char *text)
{
    for (size_t i = 0; i < s->issues.n; i++)
        if (strstr(s->issues.v[i].message, text))
            return 1;
    return 0;
}

#define P0 "profiler/host_a_101_20261129103832949_ascend_pt"
#define P1 "profiler/host_a_102_20261129103833525_ascend_pt"

static void torch_npu_layout_links_each_process(void)
{
    static const file_spec f[] = {
        {KD, P0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P0 "/PROF_000001_20261129103832978_00000101ABCDEFGH/sk_prof_device_0.json"},
        {KD, P1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P1 "/PROF_000001_20261129103833554_00000102ABCDEFGH/sk_prof_device_1.json"},
        {PROF, "sk_meta/101/sk_prof_device_0.json"},
        {META, "sk_meta/101/model_48_1/sk_fused_nodes.log"},
        {PROF, "sk_meta/102/sk_prof_device_1.json"},
        {META, "sk_meta/102/model_48_1/sk_fused_nodes.log"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 2);
    T_EQ_STR(codes(&s), "");
    T_EQ_INT(s.nlinks, 2);
    for (size_t i = 0; i < s.nlinks && i < 2; i++) {
        const dcci_link *l = &s.links[i];
        T_EQ_U64(l->device, i);
        T_EQ_INT(l->dir_len, strlen(P0));
        T_CHECK(strncmp(s.in.files[l->kd].relpath, i ? P1 : P0, l->dir_len) == 0);
        T_CHECK(l->raw >= 0);
        T_EQ_STR(l->pid_dir, i ? "102" : "101");
        /* the worker name "host_a" holds an underscore: the pid is read from the right */
        T_EQ_INT(l->has_dir_pid, 1);
        T_EQ_U64(l->dir_pid, 101 + i);
        T_EQ_INT(l->dir_pid_observed, -1);
    }
    dcci_side_free(&s);
}

static void one_device_in_torch_npu_layout(void)
{
    static const file_spec f[] = {
        {KD, P0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P0 "/PROF_000001_20261129103832978_00000101ABCDEFGH/sk_prof_device_0.json"},
        {PROF, "sk_meta/101/sk_prof_device_0.json"},
        {META, "sk_meta/101/model_48_1/sk_fused_nodes.log"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(dcci_ranks_one_device(&s), 1);
    T_EQ_INT(split(&s, 0), 1);
    T_EQ_STR(codes(&s), "");
    /* the raw trace is read through its copy, and the link is reported */
    T_EQ_INT(s.links[0].raw >= 0 && s.in.files[s.links[0].raw].has_copy, 1);
    T_EQ_STR(s.links[0].pid_dir, "101");
    dcci_side_free(&s);
}

static void copy_beside_kernel_details_as_before(void)
{
    static const file_spec f[] = {
        {KD, "profiler/node0_ascend_pt/OUT/kernel_details.csv"},
        {PROF, "profiler/node0_ascend_pt/OUT/sk_prof_device_0.json"},
        {KD, "profiler/node1_ascend_pt/OUT/kernel_details.csv"},
        {PROF, "profiler/node1_ascend_pt/OUT/sk_prof_device_1.json"},
        {PROF, "sk_meta/5/sk_prof_device_0.json"},
        {PROF, "sk_meta/6/sk_prof_device_1.json"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 2);
    T_EQ_STR(codes(&s), "");
    /* "node0" carries no pid: no evidence, no requirement */
    T_EQ_INT(s.links[0].has_dir_pid, 0);
    dcci_side_free(&s);
}

static void nearest_directory_with_one_of_each(void)
{
    static const file_spec f[] = {
        {KD, "prof/r0/kernel_details.csv"},
        {PROF, "prof/r0/collect/x/sk_prof_device_0.json"},
        {KD, "prof/r1/out/kernel_details.csv"},
        {PROF, "prof/r1/sk_prof_device_1.json"},
        {PROF, "sk_meta/5/sk_prof_device_0.json"},
        {PROF, "sk_meta/6/sk_prof_device_1.json"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 2);
    T_EQ_STR(codes(&s), "");
    T_EQ_INT(s.links[0].dir_len, strlen("prof/r0"));
    T_EQ_INT(s.links[1].dir_len, strlen("prof/r1"));
    dcci_side_free(&s);
}

static void nearest_directory_must_be_unambiguous(void)
{
    /* the first directory above prof/a/kernel_details.csv with a copy is prof/,
     * which holds two copies: neither can be proven its */
    static const file_spec f[] = {
        {KD, "prof/a/kernel_details.csv"},
        {KD, "prof/b/kernel_details.csv"},
        {PROF, "prof/c/sk_prof_device_0.json"},
        {PROF, "prof/d/sk_prof_device_1.json"},
        {PROF, "sk_meta/5/sk_prof_device_0.json"},
        {PROF, "sk_meta/6/sk_prof_device_1.json"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 0);
    T_EQ_STR(codes(&s), "rank_unbound,rank_unbound,rank_unbound,rank_unbound,");
    T_CHECK(has_message(&s, "has 2 sk_prof_device_<d> traces in its profiler directory prof/"));
    T_CHECK(has_message(&s, "is linked with no kernel_details file"));
    dcci_side_free(&s);
}

static void two_copies_in_one_process_directory(void)
{
    static const file_spec f[] = {
        {KD, P0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P0 "/PROF_1_2_A/sk_prof_device_0.json"},
        {PROF, P0 "/PROF_3_4_B/sk_prof_device_1.json"},
        {KD, P1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, "sk_meta/101/sk_prof_device_0.json"},
        {PROF, "sk_meta/102/sk_prof_device_1.json"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 0);
    T_CHECK(has_message(&s, "has 2 sk_prof_device_<d> traces in its profiler directory " P0 "/"));
    T_CHECK(has_message(&s, "has no sk_prof_device_<d> trace in its profiler directory " P1 "/"));
    dcci_side_free(&s);
}

static void profiler_pid_must_be_the_traces(void)
{
    static const file_spec f[] = {
        {KD, P0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P0 "/PROF_1_2_A/sk_prof_device_0.json"},
        {PROF, "sk_meta/777/sk_prof_device_0.json"},
        {META, "sk_meta/777/model_48_1/sk_fused_nodes.log"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 1); /* linked, and blocked by the mismatch */
    T_EQ_STR(codes(&s), "profiler_pid_mismatch,");
    T_CHECK(has_message(&s, "names process 101, but the SK trace it holds is that of process 777"));
    dcci_side_free(&s);
    /* multi-rank too */
    static const file_spec g[] = {
        {KD, P0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P0 "/PROF_1_2_A/sk_prof_device_0.json"},
        {KD, P1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, P1 "/PROF_1_2_A/sk_prof_device_1.json"},
        {PROF, "sk_meta/101/sk_prof_device_0.json"},
        {PROF, "sk_meta/103/sk_prof_device_1.json"},
        {NULL, NULL}};
    side_of(&s, g);
    T_EQ_INT(split(&s, -1), 2);
    T_EQ_STR(codes(&s), "profiler_pid_mismatch,");
    dcci_side_free(&s);
}

#define C0 "profiler/w_101_20261129103832949_ascend_pt"
#define C1 "profiler/w_101_20261129103833689_ascend_pt"
#define C2 "profiler/w_101_20261129103834429_ascend_pt"

static void first_cycle_read_later_ones_skipped(void)
{
    static const file_spec f[] = {
        {KD, C0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, C0 "/PROF_1_2_A/sk_prof_device_0.json"},
        {KD, C1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {KD, C2 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
        {PROF, "sk_meta/101/sk_prof_device_0.json"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    sk_diag d;
    T_EQ_INT(dcci_ranks_cycles(&s, &d), SK_OK);
    T_EQ_STR(codes(&s), "");
    /* one kernel_details file left: a one-device side */
    T_EQ_INT(dcci_ranks_one_device(&s), 1);
    size_t skipped = 0;
    for (size_t i = 0; i < s.in.nfiles; i++)
        if (s.in.files[i].skipped_cycle) {
            skipped++;
            T_EQ_INT(s.in.files[i].kind, DCCI_KIND_OTHER);
            T_CHECK(strncmp(s.in.files[s.in.files[i].cycle_kd].relpath, C0, strlen(C0)) == 0);
        }
    T_EQ_INT(skipped, 2);
    dcci_ranks r;
    T_EQ_INT(dcci_ranks_split(&s, 0, &r, &d), SK_OK);
    T_EQ_INT(s.nlinks, 1);
    T_EQ_INT(s.links[0].nskipped, 2);
    dcci_ranks_free(&r);
    dcci_side_free(&s);
}

static void cycles_the_trace_does_not_settle(void)
{
    static const struct {
        file_spec f[6];
        const char *why;
    } cases[] = {
        {{{KD, C0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {KD, C1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {PROF, C1 "/PROF_1_2_A/sk_prof_device_0.json"},
          {NULL, NULL}},
         "the trace copy lies in a later cycle's directory"},
        {{{KD, C0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {PROF, C0 "/PROF_1_2_A/sk_prof_device_0.json"},
          {KD, C1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {PROF, C1 "/PROF_1_2_A/sk_prof_device_0.json"},
          {NULL, NULL}},
         "several of them hold a trace copy"},
        {{{KD, C0 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {KD, C1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {NULL, NULL}},
         "none of them holds the trace copy"},
        {{{PROF, C0 "/PROF_1_2_A/sk_prof_device_0.json"},
          {KD, C1 "/ASCEND_PROFILER_OUTPUT/kernel_details.csv"},
          {NULL, NULL}},
         "has no kernel_details.csv"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dcci_side s;
        sk_diag d;
        side_of(&s, cases[c].f);
        T_EQ_INT(dcci_ranks_cycles(&s, &d), SK_OK);
        T_EQ_STR(codes(&s), "repeated_cycles,");
        T_CHECK(has_message(&s, cases[c].why));
        T_CHECK(has_message(&s, "process w_101 has 2 profiler directories"));
        T_CHECK(has_message(&s, "repeat=1"));
        for (size_t i = 0; i < s.in.nfiles; i++)
            T_EQ_INT(s.in.files[i].skipped_cycle, 0);
        dcci_side_free(&s);
    }
}

static void names_that_are_not_cycles(void)
{
    /* two processes of one worker, and names without a pid and time */
    static const file_spec f[] = {
        {KD, "profiler/w_101_20261129103832949_ascend_pt/O/kernel_details.csv"},
        {PROF, "profiler/w_101_20261129103832949_ascend_pt/P/sk_prof_device_0.json"},
        {KD, "profiler/w_102_20261129103832949_ascend_pt/O/kernel_details.csv"},
        {PROF, "profiler/w_102_20261129103832949_ascend_pt/P/sk_prof_device_1.json"},
        {KD, "profiler/w_1_2_ascend_pt/O/kernel_details.csv"},
        {PROF, "profiler/w_1_2_ascend_pt/P/sk_prof_device_2.json"},
        {KD, "profiler/_ascend_pt/kernel_details.csv"},
        {PROF, "profiler/_ascend_pt/sk_prof_device_3.json"},
        {PROF, "sk_meta/101/sk_prof_device_0.json"},
        {PROF, "sk_meta/102/sk_prof_device_1.json"},
        {PROF, "sk_meta/9/sk_prof_device_2.json"},
        {PROF, "sk_meta/8/sk_prof_device_3.json"},
        {NULL, NULL}};
    dcci_side s;
    side_of(&s, f);
    T_EQ_INT(split(&s, -1), 4);
    T_EQ_STR(codes(&s), "");
    T_EQ_INT(s.links[2].has_dir_pid, 0); /* a 1-digit time is no torch_npu name */
    /* "_ascend_pt" alone is no profiler directory: the nearest-directory rule */
    T_EQ_INT(s.links[3].dir_len, strlen("profiler/_ascend_pt"));
    dcci_side_free(&s);
}

static void visible_devices_from_the_control(void)
{
    static const struct {
        const char *json;
        dcci_visible_state state;
        size_t n;
        uint32_t first;
    } cases[] = {
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"4,5,6,7\"}", DCCI_VISIBLE_LIST, 4, 4},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": [2, 0]}", DCCI_VISIBLE_LIST, 2, 2},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"3\"}", DCCI_VISIBLE_LIST, 1, 3},
        {"{}", DCCI_VISIBLE_ABSENT, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"4, 5\"}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"4,4\"}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"4,\"}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"64\"}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": \"\"}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": []}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": [1.5]}", DCCI_VISIBLE_INVALID, 0, 0},
        {"{\"ASCEND_RT_VISIBLE_DEVICES\": 4}", DCCI_VISIBLE_INVALID, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dcci_side_input in;
        cJSON *control = NULL;
        sk_diag d;
        /* the strict parser, as manifests are read: it keeps number literals */
        T_EQ_INT(sk_json_parse(cases[c].json, strlen(cases[c].json), NULL, &control, &d), SK_OK);
        dcci_side_input_init(&in);
        dcci_input_take_manifest_values(&in, NULL, control);
        T_EQ_INT(in.visible.state, cases[c].state);
        if (cases[c].state == DCCI_VISIBLE_LIST) {
            T_EQ_INT(in.visible.n, cases[c].n);
            T_EQ_U64(in.visible.ids[0], cases[c].first);
        }
        cJSON_Delete(control);
        dcci_side_input_clear(&in);
    }
}

static const t_case cases[] = {
    T(torch_npu_layout_links_each_process),
    T(one_device_in_torch_npu_layout),
    T(copy_beside_kernel_details_as_before),
    T(nearest_directory_with_one_of_each),
    T(nearest_directory_must_be_unambiguous),
    T(two_copies_in_one_process_directory),
    T(profiler_pid_must_be_the_traces),
    T(first_cycle_read_later_ones_skipped),
    T(cycles_the_trace_does_not_settle),
    T(names_that_are_not_cycles),
    T(visible_devices_from_the_control),
    {NULL, NULL},
};

T_MAIN(cases)
