/* Helpers for the DCCI analysis tests: small capture trees written into
 * scratch directories, and loading one side through the library passes. */
#ifndef T_DCCI_H
#define T_DCCI_H

#include <stddef.h>

#include "analyzer/dcci/dcci_analysis.h"

/* Writes root/rel (creating directories); aborts the test binary on failure. */
void tdc_write(const char *root, const char *rel, const char *text);
void tdc_write_bytes(const char *root, const char *rel, const void *data, size_t len);

/* The standard metadata directory of the tests: sk_meta/7/model_48_1. */
#define TDC_MODEL "sk_meta/7/model_48_1"

/* A kernel node line "[i] [nodeId:..] - KernelInfos{...}" with the geometry
 * of kernel_type derived from num_blocks; with_pos adds streamIdxInGraph 0
 * and nodeIdxInStream = node_id. */
const char *tdc_kernel(unsigned index, unsigned node_id, const char *func, const char *kernel_type,
                       unsigned num_blocks, int with_pos);
/* An EventWait control node line. */
const char *tdc_wait(unsigned index, unsigned node_id);

/* Graph JSON with the given options object text (e.g. "{}") and streams
 * text (e.g. "[]"). */
const char *tdc_graph(const char *options, const char *streams);
#define TDC_OPTS_O0 "{\"auto_op_parallel\":{\"name\":\"auto_op_parallel\",\"type\":\"int\",\"value\":0}}"
#define TDC_OPTS_DISABLE_ALL                                                                  \
    "{\"auto_op_parallel\":{\"name\":\"auto_op_parallel\",\"type\":\"int\",\"value\":0},"      \
    "\"dcci_disable_on_kernel\":{\"name\":\"dcci_disable_on_kernel\",\"type\":\"list\",\"value\":[\".*\"]}}"
#define TDC_PROF_ON "[sk time profiling] ASCEND_PROF_SK_ON=64, coreSize=64 KB (aligned), totalSize=5 MB for each device profiling\n"

/* Writes the four metadata files of TDC_MODEL below root. */
void tdc_meta(const char *root, const char *fused_log, const char *rtlog, const char *options);

/* An sk_prof event object (no trailing comma).  node < 0: parent record
 * ("[b/n] name"), else child ("[b/n]name").  Times in ns (printed as µs with
 * 6 decimals, like the runtime). */
const char *tdc_ev(const char *lane, int core, long long ts_ns, long long dur_ns, int sk, int node,
                   unsigned block, unsigned nblocks, const char *name);

/* Runs discovery and pass 1 on root into s (dcci_side_init first). */
sk_err tdc_load_side(dcci_side *s, const char *name, const char *root, sk_diag *d);

#endif
