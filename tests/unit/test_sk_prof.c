#include <stdio.h>
#include <stdlib.h>

#include "analyzer/readers/rd_prof.h"
#include "artifact_contract/base/sk_buf.h"
#include "tests/unit/t.h"

typedef struct collect {
    sk_buf out;
    int stop_after;
} collect;

static sk_err on_event(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    collect *c = ctx;
    (void)sk_buf_printf(&c->out,
                        "%llu|%s|blk=%d:%u/%u|par=%d|lane=%d|pid=%s|core=%lld|ts=%lld|dur=%lld|"
                        "r=%d|m=%s|sk=%lld|node=%lld|kt=%s|line=%llu\n",
                        (unsigned long long)ev->index, ev->name, ev->has_block, ev->block_idx,
                        ev->block_num, ev->is_parent, ev->lane, ev->pid,
                        ev->has_core ? (long long)ev->core : -1LL, (long long)ev->ts_ns,
                        (long long)ev->dur_ns, ev->rounded, ev->model_id,
                        ev->has_sk_id ? (long long)ev->sk_id : -1LL,
                        ev->has_node_id ? (long long)ev->node_id : -1LL, ev->kernel_type,
                        (unsigned long long)ev->line);
    if (c->stop_after && (int)ev->index + 1 >= c->stop_after)
        return sk_diag_set(d, SK_E_FORMAT, "cb", 0, "stopped by callback");
    return SK_OK;
}

static sk_err run_with(const char *doc, size_t chunk, unsigned flags, sk_buf *out,
                       rd_prof_summary *sum, sk_diag *d)
{
    collect c = {SK_BUF_INIT, 0};
    sk_mem_reader r = {doc, strlen(doc), 0, chunk};
    sk_err e = rd_prof_read_with(sk_mem_read, &r, "trace.json", flags, on_event, &c, sum, d);
    *out = c.out;
    return e;
}

static sk_err run(const char *doc, size_t chunk, sk_buf *out, rd_prof_summary *sum, sk_diag *d)
{
    return run_with(doc, chunk, 0, out, sum, d);
}

static const char *RUNTIME_DOC =
    "[{\"ph\":\"X\",\"name\":\"[0/2]static_kernel_RmsNorm_abcdef0123456789abcdef0123456789_9_d0\","
    "\"pid\":\"AIV\",\"tid\":25,\"ts\":1000.020000,\"dur\":5.000000,\"args\":{\"modelId\":\"48_1\","
    "\"skId\":7,\"nodeId\":3}},\n"
    "{\"ph\":\"X\",\"name\":\"[1/2] sk_7_decode.block.0_start_a_end_b\",\"pid\":\"AIC\",\"tid\":0,"
    "\"ts\":990.000000,\"dur\":30.000000,\"args\":{\"modelId\":\"48_1\",\"skId\":7}},\n"
    "{\"ph\":\"X\",\"name\":\"[1/2]x\",\"pid\":\"AIV\",\"tid\":26,\"ts\":1000.0200004,\"dur\":0.0006,"
    "\"args\":{\"modelId\":\"48_1\",\"skId\":7,\"nodeId\":5,\"extra\":[1,{\"a\":2}]},\"cat\":\"c\"},\n"
    "{\"ph\":\"X\",\"name\":\"[0/1]z\",\"pid\":\"AIC\",\"tid\":1,\"ts\":5,\"dur\":0},\n"
    "{\"ph\":\"B\",\"name\":\"[0/1]z\",\"ts\":5,\"dur\":1},\n"
    "{}]";

static void runtime_shape(void)
{
    sk_buf out;
    rd_prof_summary sum;
    sk_diag d;
    T_EQ_INT(run(RUNTIME_DOC, 0, &out, &sum, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&out),
             "0|static_kernel_RmsNorm_abcdef0123456789abcdef0123456789_9_d0|blk=1:0/2|par=0|lane=2|"
             "pid=AIV|core=25|ts=1000020|dur=5000|r=0|m=48_1|sk=7|node=3|kt=|line=1\n"
             "1|sk_7_decode.block.0_start_a_end_b|blk=1:1/2|par=1|lane=1|pid=AIC|core=0|ts=990000|"
             "dur=30000|r=0|m=48_1|sk=7|node=-1|kt=|line=2\n"
             "2|x|blk=1:1/2|par=0|lane=2|pid=AIV|core=26|ts=1000020|dur=1|r=1|m=48_1|sk=7|node=5|"
             "kt=|line=3\n");
    T_EQ_INT(sum.shape, RD_PROF_SHAPE_ARRAY);
    T_EQ_U64(sum.elements, 6);
    T_EQ_U64(sum.events, 3);
    T_EQ_U64(sum.parents, 1);
    T_EQ_U64(sum.skipped_no_ts, 1);
    T_EQ_U64(sum.skipped_phase, 1);
    T_EQ_U64(sum.zero_duration, 1);
    T_EQ_U64(sum.rounded, 1);
    T_EQ_U64(sum.bytes, strlen(RUNTIME_DOC));
    /* every chunking gives the same events */
    size_t chunks[] = {1, 2, 3, 7, 100};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        sk_buf o2;
        T_EQ_INT(run(RUNTIME_DOC, chunks[i], &o2, &sum, &d), SK_OK);
        T_EQ_STR(sk_buf_cstr(&o2), sk_buf_cstr(&out));
        sk_buf_free(&o2);
    }
    sk_buf_free(&out);
}

static void empty_runtime_trace(void)
{
    sk_buf out;
    rd_prof_summary sum;
    T_EQ_INT(run("[{}]", 0, &out, &sum, NULL), SK_OK);
    T_EQ_U64(sum.events, 0);
    T_EQ_U64(sum.skipped_no_ts, 1);
    sk_buf_free(&out);
    T_EQ_INT(run("[]", 0, &out, &sum, NULL), SK_OK);
    T_EQ_U64(sum.elements, 0);
    sk_buf_free(&out);
}

static void fixture_shape(void)
{
    const char *repo = getenv("SK_REPO");
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/reference/pipeline/sk_prof_device_0.json",
             repo ? repo : ".");
    FILE *f = fopen(path, "rb");
    T_CHECK(f != NULL);
    if (!f)
        return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    sk_buf out;
    rd_prof_summary sum;
    sk_diag d;
    T_EQ_INT(run(buf, 0, &out, &sum, &d), SK_OK);
    T_EQ_INT(sum.shape, RD_PROF_SHAPE_TRACE_EVENTS);
    T_EQ_STR(sk_buf_cstr(&out),
             "0|static_kernel_GroupedMatmul_hash|blk=0:0/0|par=0|lane=1|pid=|core=1|ts=0|dur=6000|"
             "r=0|m=|sk=-1|node=10|kt=AIC_ONLY|line=3\n"
             "1|static_kernel_VectorPost_hash|blk=0:0/0|par=0|lane=2|pid=|core=2|ts=6000|dur=6000|"
             "r=0|m=|sk=-1|node=11|kt=AIV_ONLY|line=11\n");
    sk_buf_free(&out);
}

static void check_bad(const char *file, int line, const char *doc, const char *want, sk_err code)
{
    sk_buf out;
    rd_prof_summary sum;
    sk_diag d;
    sk_diag_clear(&d);
    sk_err e = run(doc, 3, &out, &sum, &d);
    char msg[1024];
    sk_diag_format(&d, msg, sizeof msg);
    if (e != code || !strstr(msg, want))
        t_fail(file, line, "%s: got %s \"%s\", want %s \"%s\"", doc, sk_err_name(e), msg,
               sk_err_name(code), want);
    sk_buf_free(&out);
}
#define BAD(doc, want) check_bad(__FILE__, __LINE__, doc, want, SK_E_FORMAT)
#define BADJ(doc, want) check_bad(__FILE__, __LINE__, doc, want, SK_E_JSON)

static void malformed_traces(void)
{
    BAD("1", "must be a JSON array of events");
    BAD("{\"x\":1}", "no traceEvents array");
    BAD("{\"traceEvents\":{}}", "traceEvents must be an array");
    BAD("[1]", "trace.json:1: sk_prof element 0 is not an object");
    BAD("[{\"ts\":1,\"dur\":1}]", "sk_prof event 0: name is missing");
    BAD("[{\"name\":\"a\",\"ts\":1}]", "dur is missing");
    BAD("[{\"name\":\"a\",\"ts\":\"x\",\"dur\":1}]", "ts is not a decimal number");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":-1}]", "dur is negative");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1e3}]", "dur is not a decimal number");
    BAD("[{\"name\":\"a\",\"ts\":\"N/A\",\"dur\":1}]", "ts is missing");
    BAD("[{\"name\":5,\"ts\":1,\"dur\":1}]", "name must be a string");
    BAD("[{\"name\":\"a\",\"ts\":true,\"dur\":1}]", "ts must be a number or a string");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"tid\":1.5}]", "tid must be an integer");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"tid\":-1}]", "tid must not be negative");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":[]}]", "args must be an object");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"skId\":\"7\"}}]", "args.skId must be an integer");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"nodeId\":99999999999999999999}}]",
        "args.nodeId is out of range");
    BAD("[{\"name\":\"[2/2]a\",\"ts\":1,\"dur\":1}]", "malformed [blockIdx/blockNum] prefix");
    BAD("[{\"name\":\"[0/0]a\",\"ts\":1,\"dur\":1}]", "malformed");
    BAD("[{\"name\":\"[0/256]a\",\"ts\":1,\"dur\":1}]", "malformed");
    BAD("[{\"name\":\"[x]a\",\"ts\":1,\"dur\":1}]", "malformed");
    BAD("[{\"name\":\"[0/1]\",\"ts\":1,\"dur\":1}]", "name is empty");
    BAD("[{\"name\":\"a\",\"ts\":9223372036854775,\"dur\":9223372036854775}]", "overflows");
    BADJ("[{\"name\":\"a\",\"ts\":1,\"dur\":1}", "unexpected end of data");
    BADJ("[{\"name\":\"a\",\"ts\":1,\"dur\":1}] x", "Extra data");
    BADJ("[{\"name\":\"a\",\"name\":\"b\",\"ts\":1,\"dur\":1}]", "duplicate JSON key: name");
    BADJ("[{\"name\":\"a\",\"ts\":NaN,\"dur\":1}]", "non-standard JSON constant");
    /* args.modelRI is an integer; a record names its model once */
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"modelRI\":\"9\"}}]",
        "sk_prof event 0: args.modelRI must be a non-negative integer");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"modelRI\":-9}}]",
        "args.modelRI must be a non-negative integer");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"modelRI\":9.5}}]",
        "args.modelRI must be a non-negative integer");
    BAD("[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"modelId\":\"4\",\"modelRI\":9}}]",
        "args names the model twice (modelId and modelRI)");
    BAD("{\"traceEvents\":[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"modelRI\":9,"
        "\"modelId\":\"4\"}}]}",
        "args names the model twice (modelId and modelRI)");
    /* the callback's error stops the read */
    collect c = {SK_BUF_INIT, 1};
    sk_mem_reader r = {RUNTIME_DOC, strlen(RUNTIME_DOC), 0, 0};
    sk_diag d;
    T_EQ_INT(rd_prof_read(sk_mem_read, &r, "t", on_event, &c, NULL, &d), SK_E_FORMAT);
    T_EQ_STR(d.msg, "stopped by callback");
    sk_buf_free(&c.out);
}

/* Which key named the model and its text, per event. */
static sk_err on_model(void *ctx, const rd_prof_event *ev, sk_diag *d)
{
    (void)d;
    return sk_buf_printf(ctx, "%d:%s;", (int)ev->model_key, ev->model_id);
}

/* Every form a runtime revision writes: args.modelId as a string or an
 * integer, args.modelRI as an integer, in both top-level shapes, through
 * the fast and the general path at every read size. */
static void model_forms(void)
{
#define EV(args) "{\"ph\":\"X\",\"name\":\"[0/1]k\",\"pid\":\"AIV\",\"tid\":2,\"ts\":1.0,\"dur\":1.0," \
                 "\"args\":{" args ",\"skId\":7,\"nodeId\":1}}"
    static const struct {
        const char *doc;
        const char *want;
    } v[] = {
        {"[" EV("\"modelId\":\"48_1\"") ",\n" EV("\"modelId\":48") ",\n{}]", "1:48_1;1:48;"},
        {"[" EV("\"modelRI\":187649984473776") ",\n{}]", "2:187649984473776;"},
        {"[" EV("\"modelRI\":18446744073709551615") "]", "2:18446744073709551615;"},
        {"{\"traceEvents\":[" EV("\"modelId\":\"48_1\"") "," EV("\"modelRI\":0") "]}",
         "1:48_1;2:0;"},
        {"{\"traceEvents\":[{\"name\":\"k\",\"ts\":1,\"dur\":1,\"args\":{\"nodeId\":3}}]}", "0:;"},
        {"[" EV("\"kernelType\":\"AIV_ONLY\"") "]", "0:;"},
    };
#undef EV
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        const size_t chunks[] = {0, 1, 3, 64};
        for (unsigned flags = 0; flags < 2; flags++)
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                sk_buf got = SK_BUF_INIT;
                sk_mem_reader r = {v[i].doc, strlen(v[i].doc), 0, chunks[c]};
                sk_diag d;
                sk_diag_clear(&d);
                sk_err e = rd_prof_read_with(sk_mem_read, &r, "t.json",
                                             flags ? RD_PROF_GENERAL_ONLY : 0, on_model, &got,
                                             NULL, &d);
                if (e != SK_OK || strcmp(sk_buf_cstr(&got), v[i].want) != 0)
                    t_fail(__FILE__, __LINE__, "doc %zu flags %u chunk %zu: %s \"%s\" got \"%s\"",
                           i, flags, chunks[c], sk_err_name(e), d.msg, sk_buf_cstr(&got));
                sk_buf_free(&got);
            }
    }
}

/* One record of the runtime's shape, with field text substituted. */
#define REC(name, tid, ts, args)                                                               \
    "{\"ph\":\"X\",\"name\":\"" name "\",\"pid\":\"AIV\",\"tid\":" tid ",\"ts\":" ts           \
    ",\"dur\":2.500000,\"args\":{" args "}}"
#define ARGS "\"modelId\":\"48_1\",\"skId\":7,\"nodeId\":3"

/* The record fast path gives exactly the general path's events, summary
 * and errors, for every shape it takes and every shape it hands over; it
 * takes the same records however the input is split into reads. */
static void fast_path_matches_general_path(void)
{
    static const struct {
        const char *doc;
        long fast; /* elements the fast path must take with whole reads; -1: any */
    } docs[] = {
        {"[" REC("[0/2]static_kernel_A_1_d0", "25", "1000.020000", ARGS) ",\n"
         REC("[1/2] sk_7_x_start_a_end_b", "0", "990.000000", "\"modelId\":\"48_1\",\"skId\":7")
         ",\n{}]", 3},
        /* fixture shape, kernelType, modelRI, numbers as strings and pid numbers */
        {"{\"traceEvents\":[{\"name\":\"k\",\"ph\":\"X\",\"ts\":\"5\",\"dur\":\"1.5\",\"pid\":3,"
         "\"tid\":2,\"args\":{\"kernelType\":\"AIC_ONLY\",\"nodeId\":10,\"modelRI\":9}}]}", 1},
        /* each of these makes the general path read the record */
        {"[" REC("[0/2]a", "1", "1", ARGS) ", " REC("[0/2]b", "1", "2", ARGS) "]", 2},
        {"[" REC("[0/2]a", "1", "1", ARGS) ",{\"ph\": \"X\"}]", 1},
        {"[" REC("[0/2]a\\u0041", "1", "1", ARGS) "]", 0},
        {"[" REC("[0/2]\xc3\xa9", "1", "1", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1", "1", ARGS ",\"extra\":[1]") "]", 0},
        {"[{\"cat\":\"c\",\"name\":\"a\",\"ts\":1,\"dur\":1}]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"skId\":7,\"skId\":8") "]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"modelRI\":9,\"skId\":7") "]", 1},
        {"[" REC("[0/2]a", "1", "1", "\"modelRI\":\"9\",\"skId\":7") "]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"modelRI\":-9") "]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"modelId\":\"4\",\"modelRI\":9") "]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"modelRI\":9,\"modelId\":4") "]", 0},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"ts\":2}]", 0},
        {"[" REC("[0/2]a", "-1", "1", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1.0", "1", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"skId\":1234567890123456789") "]", 0},
        {"[" REC("[0/2]a", "1", "1", "\"skId\":-12") "]", 1},
        {"[" REC("[0/2]a", "1", "true", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1", "-Infinity", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1", "01", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1", "1.", ARGS) "]", 0},
        {"[" REC("[0/2]a", "1", "-1", ARGS) "]", 1},
        {"[" REC("[0/2]a", "1", "1e3", ARGS) "]", 1},
        {"[{\"name\":5,\"ts\":1,\"dur\":1}]", 0},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":[]}]", 0},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1,\"args\":{\"kernelType\":1}}]", 0},
        /* errors the fast path leaves to deliver(), after reading the record */
        {"[{\"name\":\"a\",\"ts\":1}]", 1},
        {"[{\"name\":\"[2/2]a\",\"ts\":1,\"dur\":1}]", 1},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":-1}]", 1},
        {"[{\"name\":\"a\",\"ts\":\"x\",\"dur\":1}]", 1},
        /* broken JSON around and inside records */
        {"[" REC("[0/2]a", "1", "1", ARGS) ",]", 1},
        {"[" REC("[0/2]a", "1", "1", ARGS) "", 1},
        {"[" REC("[0/2]a", "1", "1", ARGS) "] x", 1},
        {"[" REC("[0/2]a", "1", "1", ARGS) "{}]", 1},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1", 0},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1,}]", 0},
        {"[{\"name\":\"a\" ,\"ts\":1,\"dur\":1}]", 0},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1}}]", 1},
        {"[{\"name\":\"a\",\"ts\":1,\"dur\":1},{}", 2},
        {"[1,{}]", -1},
        {"\xef\xbb\xbf[{}]", 0},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        sk_buf want, got;
        rd_prof_summary wsum, gsum;
        sk_diag wd, gd;
        sk_diag_clear(&wd);
        sk_err we = run_with(docs[i].doc, 0, RD_PROF_GENERAL_ONLY, &want, &wsum, &wd);
        T_EQ_U64(wsum.fast_events, 0);
        const size_t chunks[] = {0, 1, 2, 5, 64};
        uint64_t fast0 = 0;
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
            sk_diag_clear(&gd);
            sk_err ge = run_with(docs[i].doc, chunks[c], 0, &got, &gsum, &gd);
            if (ge != we || strcmp(sk_buf_cstr(&got), sk_buf_cstr(&want)) != 0 ||
                strcmp(gd.msg, wd.msg) != 0 || gd.line != wd.line ||
                gd.has_offset != wd.has_offset || gd.offset != wd.offset ||
                gsum.elements != wsum.elements || gsum.events != wsum.events ||
                gsum.skipped_no_ts != wsum.skipped_no_ts || gsum.bytes != wsum.bytes)
                t_fail(__FILE__, __LINE__,
                       "doc %zu chunk %zu: fast path %s \"%s\" %llu elements\n%s\ngeneral "
                       "path %s \"%s\" %llu elements\n%s",
                       i, chunks[c], sk_err_name(ge), gd.msg, (unsigned long long)gsum.elements,
                       sk_buf_cstr(&got), sk_err_name(we), wd.msg,
                       (unsigned long long)wsum.elements, sk_buf_cstr(&want));
            if (c == 0)
                fast0 = gsum.fast_events;
            else
                T_EQ_U64(gsum.fast_events, fast0);
            sk_buf_free(&got);
        }
        if (docs[i].fast >= 0 && fast0 != (uint64_t)docs[i].fast)
            t_fail(__FILE__, __LINE__, "doc %zu: the fast path took %llu elements, want %ld", i,
                   (unsigned long long)fast0, docs[i].fast);
        sk_buf_free(&want);
    }
}

/* Runs doc through flags at every read size; the events, summary and
 * outcome must be the general path's, and the same elements must take the
 * runtime-layout step at every read size: *layout gets their count. */
static int same_as_general(const char *doc, unsigned flags, uint64_t *layout, size_t at)
{
    sk_buf want, got;
    rd_prof_summary wsum, gsum;
    sk_diag wd, gd;
    sk_diag_clear(&wd);
    sk_err we = run_with(doc, 0, RD_PROF_GENERAL_ONLY, &want, &wsum, &wd);
    const size_t chunks[] = {0, 1, 3, 64, 1000};
    int ok = 1;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0] && ok; c++) {
        sk_diag_clear(&gd);
        sk_err ge = run_with(doc, chunks[c], flags, &got, &gsum, &gd);
        if (ge != we || strcmp(sk_buf_cstr(&got), sk_buf_cstr(&want)) != 0 ||
            strcmp(gd.msg, wd.msg) != 0 || gd.line != wd.line || gd.offset != wd.offset ||
            gsum.elements != wsum.elements || gsum.events != wsum.events ||
            gsum.zero_duration != wsum.zero_duration || gsum.rounded != wsum.rounded ||
            gsum.bytes != wsum.bytes || (c > 0 && gsum.layout_events != *layout)) {
            t_fail(__FILE__, __LINE__,
                   "doc %zu flags %u chunk %zu: %s \"%s\" layout %llu\n%s\ngeneral path %s "
                   "\"%s\"\n%s",
                   at, flags, chunks[c], sk_err_name(ge), gd.msg,
                   (unsigned long long)gsum.layout_events, sk_buf_cstr(&got), sk_err_name(we),
                   wd.msg, sk_buf_cstr(&want));
            ok = 0;
        }
        *layout = gsum.layout_events;
        sk_buf_free(&got);
    }
    sk_buf_free(&want);
    return ok;
}

/* The runtime-layout step of the fast path: the records it takes (every one
 * the runtime writes) and the near misses it leaves to the flat-object step
 * or the general path, with the same events, lines, errors and summaries as
 * the general path at every read size; the flat-object step alone
 * (RD_PROF_NO_LAYOUT) too. */
static void layout_path_matches_general_path(void)
{
#define LREC(name, pid, tid, ts, dur, args)                                                    \
    "{\"ph\":\"X\",\"name\":\"" name "\",\"pid\":\"" pid "\",\"tid\":" tid ",\"ts\":" ts      \
    ",\"dur\":" dur ",\"args\":{\"modelId\":\"48_1\"," args "}}"
#define CHILD(ts, dur) LREC("[1/4]static_kernel_A_1_d0", "AIC", "3", ts, dur, "\"skId\":7,\"nodeId\":3")
    static const struct {
        const char *doc;
        long layout; /* elements the runtime-layout step must take */
    } docs[] = {
        {"[" CHILD("24014026593.299999", "14.420002") ",\n"
         LREC("[0/4] sk_7_x_start_a_end_b", "AIV", "47", "24014026585.160000", "70.220001",
              "\"skId\":7") ",\n{}]", 2},
        /* times: rounding at and beyond the half, integers, zero durations */
        {"[" CHILD("0.0005", "0.0015") "," CHILD("1", "2") "," CHILD("7.2999995", "0.0004999") ","
         CHILD("123456789012345.9995", "0.000000") "," CHILD("0.0000004", "1.5") "]", 5},
        /* left to the other steps (each alone: an error ends the read): exponents, a
         * sign, a string, a leading zero, a value beyond int64; 16 integer digits are
         * the layout step's */
        {"[" CHILD("1e3", "1") "]", 0},
        {"[" CHILD("1", "1E2") "]", 0},
        {"[" CHILD("-1.5", "1") "]", 0},
        {"[" CHILD("\"5\"", "1") "]", 0},
        {"[" CHILD("01.5", "1") "]", 0},
        {"[" CHILD("1000000000000000.5", "1") "]", 1},
        {"[" CHILD("10000000000000000.5", "1") "]", 0},
        {"[" CHILD("9223372036854775.8075", "1") "]", 0},
        {"[" CHILD("9223372036854775.8065", "0.001") "]", 1},
        /* identifiers: 18 digits and more, a sign, a fraction, leading zeros */
        {"[" LREC("[0/1]k", "AIC", "123456789012345678", "1", "1", "\"skId\":1,\"nodeId\":2") ","
         LREC("[0/1]k", "AIC", "1234567890123456789", "1", "1", "\"skId\":1") ","
         LREC("[0/1]k", "AIC", "1", "1", "1", "\"skId\":-1") "]", 1},
        {"[" LREC("[0/1]k", "AIC", "1", "1", "1", "\"skId\":1.0") "]", 0},
        {"[" LREC("[0/1]k", "AIC", "01", "1", "1", "\"skId\":1") "]", 0},
        {"[" LREC("[0/1]k", "AIC", "1", "1", "1", "\"skId\":99999999999999999999") "]", 0},
        /* lanes, prefixes of every width, a malformed one (an error at its record) */
        {"[" LREC("[9/12]k", "AIX", "1", "1", "1", "\"skId\":1") ","
         LREC("[10/12]k", "AIV", "1", "1", "1", "\"skId\":1") ","
         LREC("[0/255] s", "AIC", "1", "1", "1", "\"skId\":1") ","
         LREC("k", "AIC", "1", "1", "1", "\"skId\":1") ","
         LREC("[0/300]k", "AIC", "1", "1", "1", "\"skId\":1") "]", 5},
        /* another key order, another key, a missing one: the flat-object step */
        {"[{\"name\":\"[0/1]k\",\"ph\":\"X\",\"pid\":\"AIC\",\"tid\":1,\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1}},"
         LREC("[0/1]k", "AIC", "1", "1", "1", "\"skId\":1,\"kernelType\":\"AIC_ONLY\"") ","
         "{\"ph\":\"X\",\"name\":\"[0/1]k\",\"pid\":\"AIC\",\"ts\":1,\"dur\":1,"
         "\"args\":{\"modelId\":\"48_1\",\"skId\":1}}]", 0},
        /* separators: spaces, blank lines and CRLF between records; an empty name */
        {"[" CHILD("1", "1") " ,\n\n  " CHILD("2", "1") ",\r\n" CHILD("3", "1") ",\t"
         LREC("[0/1]", "AIC", "1", "1", "1", "\"skId\":1") "]", 4},
        {"[\n" CHILD("1", "1") ",\n" CHILD("2", "1") "\n]\n", 2},
        /* broken JSON right after records read by the layout step */
        {"[" CHILD("1", "1") "," CHILD("2", "1") ",]", 2},
        {"[" CHILD("1", "1") "," CHILD("2", "1") "", 2},
        {"[" CHILD("1", "1") CHILD("2", "1") "]", 1},
    };
#undef CHILD
#undef LREC
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        uint64_t layout = 0, none = 0;
        if (same_as_general(docs[i].doc, 0, &layout, i) && layout != (uint64_t)docs[i].layout)
            t_fail(__FILE__, __LINE__, "doc %zu: the layout step took %llu elements, want %ld", i,
                   (unsigned long long)layout, docs[i].layout);
        if (same_as_general(docs[i].doc, RD_PROF_NO_LAYOUT, &none, i))
            T_EQ_U64(none, 0);
    }
    /* a long trace: windows end inside records, records follow one another
     * within a window */
    sk_buf doc = SK_BUF_INIT;
    (void)sk_buf_puts(&doc, "[");
    for (int k = 0; k < 300; k++)
        (void)sk_buf_printf(&doc, "%s{\"ph\":\"X\",\"name\":\"[%d/4]static_kernel_%0*d_d0\",\"pid\":"
                            "\"AIV\",\"tid\":%d,\"ts\":%d.%06d,\"dur\":%d.5,\"args\":{\"modelId\":"
                            "\"48_1\",\"skId\":7,\"nodeId\":%d}}",
                            k ? ",\n" : "", k % 4, 1 + k % 90, k, k % 48, 1000 + k, k * 7919 % 1000000,
                            1 + k % 5, k % 9);
    (void)sk_buf_puts(&doc, ",\n{}]");
    uint64_t layout = 0;
    if (same_as_general(doc.data, 0, &layout, 99))
        T_EQ_U64(layout, 300);
    sk_buf_free(&doc);
}

/* A record longer than the fast path's window is read by the general path,
 * the next one by the fast path again. */
static void fast_path_window(void)
{
    sk_buf doc = SK_BUF_INIT, name = SK_BUF_INIT;
    for (int i = 0; i < 3000; i++)
        (void)sk_buf_putc(&name, (char)('a' + i % 26));
    (void)sk_buf_printf(&doc,
                        "[{\"name\":\"[0/1]%s\",\"ts\":1,\"dur\":1},\n"
                        "{\"name\":\"[0/1]b\",\"ts\":2,\"dur\":1}]",
                        sk_buf_cstr(&name));
    sk_buf a, b;
    rd_prof_summary sa, sb;
    sk_diag d;
    T_EQ_INT(run_with(doc.data, 0, 0, &a, &sa, &d), SK_OK);
    T_EQ_INT(run_with(doc.data, 0, RD_PROF_GENERAL_ONLY, &b, &sb, &d), SK_OK);
    T_EQ_STR(sk_buf_cstr(&a), sk_buf_cstr(&b));
    T_EQ_U64(sa.events, 2);
    T_EQ_U64(sa.fast_events, 1);
    sk_buf_free(&a);
    sk_buf_free(&b);
    sk_buf_free(&doc);
    sk_buf_free(&name);
}

static void block_prefix_parser(void)
{
    unsigned i = 9, n = 9;
    T_EQ_INT(rd_prof_parse_block_prefix("[0/1]a", 6, &i, &n), 5);
    T_EQ_INT(i, 0);
    T_EQ_INT(n, 1);
    T_EQ_INT(rd_prof_parse_block_prefix("[254/255] s", 11, &i, &n), 9);
    T_EQ_INT(rd_prof_parse_block_prefix("abc", 3, &i, &n), 0);
    T_EQ_INT(rd_prof_parse_block_prefix("[1/1]a", 6, &i, &n), -1);
    T_EQ_INT(rd_prof_parse_block_prefix("[1/2", 4, &i, &n), -1);
    T_EQ_INT(rd_prof_parse_block_prefix("[12345/2]", 9, &i, &n), -1);
}

static const t_case cases[] = {
    T(runtime_shape),
    T(empty_runtime_trace),
    T(fixture_shape),
    T(malformed_traces),
    T(block_prefix_parser),
    T(fast_path_matches_general_path),
    T(fast_path_window),
    T(layout_path_matches_general_path),
    T(model_forms),
    {NULL, NULL},
};
T_MAIN(cases)
