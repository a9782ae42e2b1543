#include "tests/unit/t_dcci.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyzer/dcci/dcci_identity.h"
#include "analyzer/dcci/dcci_meta.h"
#include "analyzer/dcci/dcci_samples.h"
#include "tests/unit/t_fs.h"

/* Rotating static buffers: helpers return text that stays valid for a few calls. */
#define SLOTS 16
#define SLOT_SIZE 4096

static char *slot(void)
{
    static char buf[SLOTS][SLOT_SIZE];
    static int next;
    char *b = buf[next];
    next = (next + 1) % SLOTS;
    return b;
}

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static const char *fmt(const char *f, ...)
{
    char *b = slot();
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(b, SLOT_SIZE, f, ap);
    va_end(ap);
    if (n < 0 || n >= SLOT_SIZE) {
        fprintf(stderr, "t_dcci: text too long\n");
        abort();
    }
    return b;
}

static void mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            perror(tmp);
            abort();
        }
        *p = '/';
    }
}

void tdc_write_bytes(const char *root, const char *rel, const void *data, size_t len)
{
    const char *path = tfs_path("%s/%s", root, rel);
    mkdirs(path);
    if (tfs_write(path, data, len) != 0) {
        fprintf(stderr, "t_dcci: cannot write %s\n", path);
        abort();
    }
}

void tdc_write(const char *root, const char *rel, const char *text)
{
    tdc_write_bytes(root, rel, text, strlen(text));
}

const char *tdc_kernel(unsigned index, unsigned node_id, const char *func, const char *kernel_type,
                       unsigned num_blocks, int with_pos)
{
    unsigned cube = 0, vec = 0;
    if (!strcmp(kernel_type, "AIC_ONLY") || !strcmp(kernel_type, "MIX_AIC_1_0"))
        cube = num_blocks;
    else if (!strcmp(kernel_type, "AIV_ONLY") || !strcmp(kernel_type, "MIX_AIV_1_0"))
        vec = num_blocks;
    else if (!strcmp(kernel_type, "MIX_1_1"))
        cube = vec = num_blocks;
    else if (!strcmp(kernel_type, "MIX_1_2")) {
        cube = num_blocks;
        vec = 2 * num_blocks;
    }
    const char *pos = with_pos ? fmt(", streamIdxInGraph:0, nodeIdxInStream:%u", node_id) : "";
    return fmt("[%u] [nodeId:%u, streamId:3%s] - KernelInfos{funcName:%s, kernelType:%s, "
               "taskRatio:[1,0], numBlocks:%u, cubeNum:%u, vecNum:%u, isScheModeOn:0, "
               "needMixKernelSplit:0, resolvedNum:1}",
               index, node_id, pos, func, kernel_type, num_blocks, cube, vec);
}

const char *tdc_wait(unsigned index, unsigned node_id)
{
    return fmt("[%u] [nodeId:%u, streamId:3, streamIdxInGraph:0, nodeIdxInStream:%u, "
               "EventWait(eventId:0x1, eventFlag:0x0)]",
               index, node_id, node_id);
}

const char *tdc_graph(const char *options, const char *streams)
{
    return fmt("{\"version\": \"1.0\", \"modelId\": \"48_1\", \"options\": %s, \"streams\": %s}\n",
               options, streams);
}

void tdc_meta(const char *root, const char *fused_log, const char *rtlog, const char *options)
{
    tdc_write(root, TDC_MODEL "/sk_fused_nodes.log", fused_log);
    tdc_write(root, TDC_MODEL "/super_kernel.log", rtlog);
    tdc_write(root, TDC_MODEL "/sk_graph_origin.json", tdc_graph(options, "[]"));
    tdc_write(root, TDC_MODEL "/sk_graph_updated.json", tdc_graph(options, "[]"));
}

static const char *us(long long ns)
{
    return fmt("%lld.%03lld000", ns / 1000, ns % 1000);
}

const char *tdc_ev(const char *lane, int core, long long ts_ns, long long dur_ns, int sk, int node,
                   unsigned block, unsigned nblocks, const char *name)
{
    const char *args = node < 0 ? fmt("{\"modelId\":\"48_1\",\"skId\":%d}", sk)
                                : fmt("{\"modelId\":\"48_1\",\"skId\":%d,\"nodeId\":%d}", sk, node);
    return fmt("{\"ph\":\"X\",\"name\":\"[%u/%u]%s%s\",\"pid\":\"%s\",\"tid\":%d,\"ts\":%s,"
               "\"dur\":%s,\"args\":%s}",
               block, nblocks, node < 0 ? " " : "", name, lane, core, us(ts_ns), us(dur_ns), args);
}

sk_err tdc_load_side(dcci_side *s, const char *name, const char *root, sk_diag *d)
{
    dcci_side_init(s, name);
    sk_err e = dcci_input_discover(root, &s->in, d);
    if (!e)
        e = dcci_meta_load(s, d);
    if (!e)
        e = dcci_samples_load(s, d);
    if (!e)
        e = dcci_identity_build(s, d);
    if (!e)
        e = dcci_samples_finish(s, 0, d);
    return e;
}
