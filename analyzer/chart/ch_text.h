/* Text that reaches an HTML or SVG page (docs/report-html.md, "Escaping").
 *
 * One escaper for every text of the pages: '&', '<', '>', '"' and '\'' become
 * character references, so the result is safe in element content and in
 * quoted attribute values alike; bytes that are not well-formed UTF-8
 * (sk_utf8_validate's definition) and the control characters XML 1.0 does
 * not allow (everything below U+0020 except tab, line feed and carriage
 * return, and U+007F) become U+FFFD.  The output is therefore always
 * well-formed UTF-8 and well-formed XML character data, whatever the input.
 */
#ifndef CH_TEXT_H
#define CH_TEXT_H

#include <stddef.h>

#include "artifact_contract/base/sk_buf.h"

/* Appends the escaped form of s[0..len) to out (SK_E_NOMEM only). */
sk_err ch_text_escape_n(sk_buf *out, const char *s, size_t len);
/* The same for a NUL-terminated string; NULL appends nothing. */
sk_err ch_text_escape(sk_buf *out, const char *s);

/* v with `decimals` digits after the point (0-6), rounded half away from
 * zero, '.' whatever the locale, no "-0": ch_num_text(-0.04, 1) is
 * "0.0"; a value that is not finite or beyond 9e12 is "0". */
void ch_num_text(double v, int decimals, char *out, size_t cap);

#endif
