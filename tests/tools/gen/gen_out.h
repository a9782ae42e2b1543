/* Output layer of skdcci_gen: buffered files (plain or zstd-compressed),
 * fast exact number formatting and a pretty JSON writer that prints the
 * way nlohmann::json::dump(2) does (the SK runtime's graph dumps).
 *
 * Files are created exclusively (never overwritten).  Every write goes
 * through a large buffer; the first failure is remembered in the sink and
 * reported by gen_out_close, so callers can write many small pieces
 * without checking each one.
 */
#ifndef GEN_OUT_H
#define GEN_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

typedef struct gen_out {
    int fd;                /* -1 when closed */
    char *buf;             /* pending plain bytes */
    size_t len;
    size_t cap;
    struct ZSTD_CCtx_s *zs; /* zstd stream, non-NULL when compressing */
    char *zbuf;
    size_t zcap;
    uint64_t plain_bytes;  /* bytes written before compression */
    uint64_t file_bytes;   /* bytes that reached the file */
    sk_err err;            /* first failure, SK_OK while healthy */
    int sys_errno;         /* errno of the first failed system call */
    char path[1024];
} gen_out;

/* Creates path (O_EXCL, mode 0644); with zstd the bytes are compressed as
 * one zstd frame (level 3, allocations through sk_alloc). */
sk_err gen_out_open(gen_out *o, const char *path, int zstd, sk_diag *d);
/* Flushes, ends the frame and closes; reports the first failure of
 * any earlier write.  Safe on a sink that failed to open or was closed. */
sk_err gen_out_close(gen_out *o, sk_diag *d);
/* Discards a sink after a failure elsewhere (closes the descriptor). */
void gen_out_abandon(gen_out *o);

void gen_out_write(gen_out *o, const void *p, size_t n);
void gen_out_puts(gen_out *o, const char *s);
void gen_out_putc(gen_out *o, char c);
void gen_out_printf(gen_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gen_out_u64(gen_out *o, uint64_t v);
void gen_out_i64(gen_out *o, int64_t v);
/* v / 10^decimals printed with exactly that many decimals ("1.050"). */
void gen_out_fixed(gen_out *o, uint64_t v, unsigned decimals);
/* The text C's printf("%f") gives for a finite, non-negative double:
 * correctly rounded to 6 decimals, ties to even (what glibc prints). */
void gen_out_double6(gen_out *o, double v);

/* Formats like gen_out_double6 into out (>= 48 bytes); returns the length. */
size_t gen_format_double6(double v, char *out);
/* Decimal digits of v into out (>= 21 bytes); returns the length. */
size_t gen_format_u64(uint64_t v, char *out);

/* ------------------------------------------------ nlohmann-style JSON */

#define GEN_JW_MAX_DEPTH 32

/* Pretty writer: objects/arrays on their own lines, two-space indent,
 * "key": value, no trailing newline.  Keys must be written in byte order
 * (nlohmann::json keeps keys in a std::map); the writer checks that and
 * records SK_E_INTERNAL in the sink when a caller breaks it. */
typedef struct gen_jw {
    gen_out *o;
    unsigned depth;
    int count[GEN_JW_MAX_DEPTH];      /* items written at each level */
    int is_obj[GEN_JW_MAX_DEPTH];
    char last_key[GEN_JW_MAX_DEPTH][64];
    int after_key;                    /* a key was written, its value comes next */
} gen_jw;

void gen_jw_init(gen_jw *w, gen_out *o);
void gen_jw_key(gen_jw *w, const char *key);
void gen_jw_obj_begin(gen_jw *w);
void gen_jw_obj_end(gen_jw *w);
void gen_jw_arr_begin(gen_jw *w);
void gen_jw_arr_end(gen_jw *w);
void gen_jw_str(gen_jw *w, const char *s);
void gen_jw_u64(gen_jw *w, uint64_t v);
void gen_jw_bool(gen_jw *w, int v);
void gen_jw_null(gen_jw *w);
/* "0x" followed by lowercase hex, as std::hex prints pointers and ids. */
void gen_jw_hex(gen_jw *w, uint64_t v);

#endif
