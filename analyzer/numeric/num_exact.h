/* Exact integer arithmetic for the statistics and the classifier.
 *
 * The analyzer keeps every duration as int64 nanoseconds and every derived
 * statistic as a scaled integer (for example the median times 2), so that no
 * decision depends on floating-point rounding.  Comparing two ratios of such
 * values needs products wider than 128 bits; the helpers here compute them
 * exactly.  Nothing here allocates; the caller owns every buffer.
 */
#ifndef NUM_EXACT_H
#define NUM_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "artifact_contract/base/sk_diag.h"

/* GCC and clang provide 128-bit integers on every 64-bit target we build for;
 * __extension__ keeps -pedantic builds quiet. */
__extension__ typedef __int128 num_i128;
__extension__ typedef unsigned __int128 num_u128;

/* Sign (-1, 0, 1) of a*b - c*d, exact for every num_i128 operand. */
int num_i128_cmp_products(num_i128 a, num_i128 b, num_i128 c, num_i128 d);

/* Sign of a/b - c/d, exact; b and d must be non-zero (0 is returned when
 * either is zero, which callers must have excluded). */
int num_i128_cmp_fractions(num_i128 a, num_i128 b, num_i128 c, num_i128 d);

/* num/den as a double (den > 0): correctly rounded (one IEEE division) when
 * |num| and den are at most 2^53, otherwise within one unit in the last place.
 * Plain double on purpose: long double is 80-bit x87 on x86-64, which memory
 * checkers such as valgrind emulate at 64-bit precision only. */
double num_i128_ratio_double(num_i128 num, num_i128 den);

/* Writes the exact decimal expansion of num / den / 10^shift10 into out,
 * without exponent and without trailing zeros ("-12.5", "0.00025", "7").
 * den must be of the form 2^a * 5^b (1, 2, 4, 10, ...) so that the expansion
 * terminates; at most 38 fractional digits.  Returns SK_E_ARG for another den,
 * SK_E_LIMIT when out (cap bytes, NUL included) is too small. */
sk_err num_exact_format(num_i128 num, uint32_t den, unsigned shift10, char *out, size_t cap,
                       sk_diag *d);

#endif
