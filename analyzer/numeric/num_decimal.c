#include "analyzer/numeric/num_decimal.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMB_BASE 1000000000u
#define LIMB_DIGITS 9

static const uint32_t pow10_small[LIMB_DIGITS + 1] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
};

const char *num_dec_status_text(num_dec_status s)
{
    switch (s) {
    case NUM_DEC_OK:
        return "ok";
    case NUM_DEC_SYNTAX:
        return "not a decimal number";
    case NUM_DEC_TOO_LONG:
        return "decimal literal too long";
    case NUM_DEC_RANGE:
        return "decimal value out of range";
    case NUM_DEC_NEGATIVE:
        return "negative decimal result";
    case NUM_DEC_DIV_ZERO:
        return "decimal division by zero";
    }
    return "decimal error";
}

/* ------------------------------------------------------------ coefficients */

typedef uint32_t coef[NUM_DEC_LIMBS];

static int top_limb(const uint32_t *c)
{
    for (int i = NUM_DEC_LIMBS - 1; i >= 0; i--)
        if (c[i])
            return i;
    return -1;
}

static int c_is_zero(const uint32_t *c)
{
    return top_limb(c) < 0;
}

/* Number of decimal digits; zero has one digit, as len(str(0)) in Python. */
static int c_digits(const uint32_t *c)
{
    int t = top_limb(c);
    if (t < 0)
        return 1;
    int d = 1;
    while (d < LIMB_DIGITS && c[t] >= pow10_small[d])
        d++;
    return t * LIMB_DIGITS + d;
}

static int c_cmp(const uint32_t *a, const uint32_t *b)
{
    for (int i = NUM_DEC_LIMBS - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static void c_set_u64(uint32_t *c, uint64_t v)
{
    memset(c, 0, sizeof(coef));
    for (int i = 0; v && i < NUM_DEC_LIMBS; i++) {
        c[i] = (uint32_t)(v % LIMB_BASE);
        v /= LIMB_BASE;
    }
}

/* r = a + b; -1 on overflow.  r may alias a or b. */
static int c_add(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t carry = 0;
    for (int i = 0; i < NUM_DEC_LIMBS; i++) {
        uint32_t s = a[i] + b[i] + carry; /* < 2 * 10^9 + 1, fits */
        carry = s >= LIMB_BASE;
        r[i] = carry ? s - LIMB_BASE : s;
    }
    return carry ? -1 : 0;
}

/* r = a - b for a >= b.  r may alias a or b. */
static void c_sub(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint32_t borrow = 0;
    for (int i = 0; i < NUM_DEC_LIMBS; i++) {
        uint32_t sub = b[i] + borrow;
        if (a[i] >= sub) {
            r[i] = a[i] - sub;
            borrow = 0;
        } else {
            r[i] = a[i] + LIMB_BASE - sub;
            borrow = 1;
        }
    }
}

/* c = c * m + add with m, add < 10^9; -1 on overflow.  Limbs above the
 * highest non-zero one stay zero unless a carry reaches them. */
static int c_mul_small(uint32_t *c, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    int top = top_limb(c);
    for (int i = 0; i < NUM_DEC_LIMBS; i++) {
        if (i > top && !carry)
            return 0;
        uint64_t p = (uint64_t)c[i] * m + carry;
        c[i] = (uint32_t)(p % LIMB_BASE);
        carry = p / LIMB_BASE;
    }
    return carry ? -1 : 0;
}

/* c = c * 10^k, k >= 0; -1 on overflow. */
static int c_shift10(uint32_t *c, int k)
{
    if (c_is_zero(c))
        return 0;
    if (c_digits(c) + k > NUM_DEC_LIMBS * LIMB_DIGITS)
        return -1;
    int whole = k / LIMB_DIGITS, part = k % LIMB_DIGITS;
    if (whole) {
        memmove(c + whole, c, (size_t)(NUM_DEC_LIMBS - whole) * sizeof c[0]);
        memset(c, 0, (size_t)whole * sizeof c[0]);
    }
    return part ? c_mul_small(c, pow10_small[part], 0) : 0;
}

/* c = c / d (d < 10^9), returns the remainder. */
static uint32_t c_div_small(uint32_t *c, uint32_t d)
{
    uint64_t rem = 0;
    for (int i = NUM_DEC_LIMBS - 1; i >= 0; i--) {
        uint64_t cur = rem * LIMB_BASE + c[i];
        c[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    return (uint32_t)rem;
}

/* r = a * b; -1 on overflow.  r must not alias a or b. */
static int c_mul(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    uint64_t acc[2 * NUM_DEC_LIMBS] = {0};
    for (int i = 0; i < NUM_DEC_LIMBS; i++) {
        if (!a[i])
            continue;
        uint64_t carry = 0;
        for (int j = 0; j < NUM_DEC_LIMBS; j++) {
            uint64_t cur = acc[i + j] + (uint64_t)a[i] * b[j] + carry;
            acc[i + j] = cur % LIMB_BASE;
            carry = cur / LIMB_BASE;
        }
        for (int k = i + NUM_DEC_LIMBS; carry && k < 2 * NUM_DEC_LIMBS; k++) {
            uint64_t cur = acc[k] + carry;
            acc[k] = cur % LIMB_BASE;
            carry = cur / LIMB_BASE;
        }
    }
    for (int i = NUM_DEC_LIMBS; i < 2 * NUM_DEC_LIMBS; i++)
        if (acc[i])
            return -1;
    for (int i = 0; i < NUM_DEC_LIMBS; i++)
        r[i] = (uint32_t)acc[i];
    return 0;
}

static int c_digit_at(const uint32_t *c, int i)
{
    return (int)(c[i / LIMB_DIGITS] / pow10_small[i % LIMB_DIGITS] % 10u);
}

/* q = a / b, r = a % b for b != 0 (schoolbook, one decimal digit at a time:
 * the operands have at most a few dozen digits). */
static void c_divmod(const uint32_t *a, const uint32_t *b, uint32_t *q, uint32_t *r)
{
    coef quo, rem;
    memset(quo, 0, sizeof quo);
    memset(rem, 0, sizeof rem);
    for (int i = c_digits(a) - 1; i >= 0; i--) {
        /* rem < b, so rem * 10 + digit < 10 * b fits whenever b does */
        (void)c_mul_small(rem, 10u, (uint32_t)c_digit_at(a, i));
        uint32_t digit = 0;
        while (c_cmp(rem, b) >= 0) {
            c_sub(rem, rem, b);
            digit++;
        }
        (void)c_mul_small(quo, 10u, digit);
    }
    memcpy(q, quo, sizeof quo);
    memcpy(r, rem, sizeof rem);
}

/* ------------------------------------------------------------ rounding */

/* Rounds coefficient c (times 10^exp) to NUM_DEC_PREC digits, half even.
 * inexact says that the true value lies strictly above c * 10^exp by less
 * than one unit of its last digit (a non-zero division remainder). */
static num_dec_status finish(uint32_t *c, int32_t exp, int inexact, num_dec *out)
{
    int digits = c_digits(c);
    if (digits > NUM_DEC_PREC) {
        int drop = digits - NUM_DEC_PREC;
        coef kept, back, rest, half;
        memcpy(kept, c, sizeof kept);
        int whole = drop / LIMB_DIGITS, part = drop % LIMB_DIGITS;
        if (whole) {
            memmove(kept, kept + whole, (size_t)(NUM_DEC_LIMBS - whole) * sizeof kept[0]);
            memset(kept + NUM_DEC_LIMBS - whole, 0, (size_t)whole * sizeof kept[0]);
        }
        if (part)
            (void)c_div_small(kept, pow10_small[part]);
        memcpy(back, kept, sizeof back);
        (void)c_shift10(back, drop); /* fits: back <= c */
        c_sub(rest, c, back);
        c_set_u64(half, 5);
        (void)c_shift10(half, drop - 1);
        int vs_half = c_cmp(rest, half);
        int up = vs_half > 0 || (vs_half == 0 && (inexact || (kept[0] & 1u)));
        if (up) {
            (void)c_mul_small(kept, 1u, 1u);
            if (c_digits(kept) > NUM_DEC_PREC) { /* 999..9 rounded up to 10^prec */
                (void)c_div_small(kept, 10u);
                drop++;
            }
        }
        memcpy(c, kept, sizeof kept);
        exp += drop;
    }
    memcpy(out->limb, c, sizeof out->limb);
    out->exp = exp;
    return NUM_DEC_OK;
}

/* ------------------------------------------------------------ public */

void num_dec_zero(num_dec *out)
{
    memset(out, 0, sizeof *out);
}

void num_dec_from_u64(uint64_t v, num_dec *out)
{
    c_set_u64(out->limb, v);
    out->exp = 0;
}

int num_dec_is_zero(const num_dec *a)
{
    return c_is_zero(a->limb);
}

num_dec_status num_dec_parse(const char *s, size_t n, num_dec *out)
{
    if (n > NUM_DEC_INPUT_MAX_CHARS)
        return NUM_DEC_TOO_LONG;
    size_t digits = 0, frac = 0;
    int seen_dot = 0;
    coef c;
    memset(c, 0, sizeof c);
    /* digits are gathered nine at a time, then folded in with one
     * multiply-add: at most 64 digits, so the coefficient never overflows */
    uint32_t chunk = 0;
    int chunk_len = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '.') {
            if (seen_dot)
                return NUM_DEC_SYNTAX;
            seen_dot = 1;
        } else if (ch >= '0' && ch <= '9') {
            digits++;
            if (seen_dot)
                frac++;
            chunk = chunk * 10u + (uint32_t)(ch - '0');
            if (++chunk_len == LIMB_DIGITS) {
                (void)c_shift10(c, LIMB_DIGITS); /* one whole limb: the low limb is now 0 */
                c[0] = chunk;
                chunk = 0;
                chunk_len = 0;
            }
        } else {
            return NUM_DEC_SYNTAX;
        }
    }
    if (!digits)
        return NUM_DEC_SYNTAX;
    if (chunk_len)
        (void)c_mul_small(c, pow10_small[chunk_len], chunk);
    memcpy(out->limb, c, sizeof c);
    out->exp = -(int32_t)frac;
    return NUM_DEC_OK;
}

/* Position of the most significant digit (Python's "adjusted" exponent). */
static int32_t adjusted(const num_dec *a)
{
    return a->exp + c_digits(a->limb) - 1;
}

int num_dec_cmp(const num_dec *a, const num_dec *b)
{
    int za = num_dec_is_zero(a), zb = num_dec_is_zero(b);
    if (za || zb)
        return za && zb ? 0 : (za ? -1 : 1);
    int32_t aa = adjusted(a), ab = adjusted(b);
    if (aa != ab)
        return aa < ab ? -1 : 1;
    /* same leading position: align to the smaller exponent and compare */
    coef x, y;
    memcpy(x, a->limb, sizeof x);
    memcpy(y, b->limb, sizeof y);
    if (a->exp > b->exp)
        (void)c_shift10(x, (int)(a->exp - b->exp));
    else if (b->exp > a->exp)
        (void)c_shift10(y, (int)(b->exp - a->exp));
    return c_cmp(x, y);
}

/* x rescaled to exponent exp <= x->exp (appending zeros) and rounded. */
static num_dec_status rescale_down(const num_dec *x, int32_t exp, num_dec *out)
{
    coef c;
    memcpy(c, x->limb, sizeof c);
    if (c_shift10(c, (int)(x->exp - exp)) != 0)
        return NUM_DEC_RANGE;
    return finish(c, exp, 0, out);
}

/* Brings two non-zero operands to one exponent the way the specification's
 * addition does: an operand lying entirely below the rounding position of the
 * other (more than precision + 1 digits down) only matters as a sticky digit,
 * so it is replaced by 1 at that position.  Leaves aligned coefficients in
 * big/small, which belong to hi (larger exponent) and lo. */
static num_dec_status align(const num_dec *hi, const num_dec *lo, uint32_t *big, uint32_t *small,
                           int32_t *exp)
{
    int hi_digits = c_digits(hi->limb);
    int32_t floor_pos = hi->exp + (hi_digits - NUM_DEC_PREC - 2 < -1 ? hi_digits - NUM_DEC_PREC - 2 : -1);
    int32_t lo_exp = lo->exp;
    memcpy(small, lo->limb, sizeof(coef));
    if ((int32_t)c_digits(lo->limb) + lo->exp - 1 < floor_pos) {
        c_set_u64(small, 1);
        lo_exp = floor_pos;
    }
    memcpy(big, hi->limb, sizeof(coef));
    if (c_shift10(big, (int)(hi->exp - lo_exp)) != 0)
        return NUM_DEC_RANGE;
    *exp = lo_exp;
    return NUM_DEC_OK;
}

static int32_t min32(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

static int32_t max32(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

num_dec_status num_dec_add(const num_dec *a, const num_dec *b, num_dec *out)
{
    int za = num_dec_is_zero(a), zb = num_dec_is_zero(b);
    int32_t exp = min32(a->exp, b->exp);
    if (za && zb) {
        num_dec_zero(out);
        out->exp = exp;
        return NUM_DEC_OK;
    }
    if (za || zb) {
        const num_dec *x = za ? b : a;
        return rescale_down(x, max32(exp, x->exp - NUM_DEC_PREC - 1), out);
    }
    const num_dec *hi = a->exp >= b->exp ? a : b;
    const num_dec *lo = hi == a ? b : a;
    coef big, small;
    num_dec_status st = align(hi, lo, big, small, &exp);
    if (st != NUM_DEC_OK)
        return st;
    if (c_add(big, big, small) != 0)
        return NUM_DEC_RANGE;
    return finish(big, exp, 0, out);
}

num_dec_status num_dec_sub(const num_dec *a, const num_dec *b, num_dec *out)
{
    if (num_dec_cmp(a, b) < 0)
        return NUM_DEC_NEGATIVE;
    int za = num_dec_is_zero(a), zb = num_dec_is_zero(b);
    int32_t exp = min32(a->exp, b->exp);
    if (zb) {
        if (za) {
            num_dec_zero(out);
            out->exp = exp;
            return NUM_DEC_OK;
        }
        return rescale_down(a, max32(exp, a->exp - NUM_DEC_PREC - 1), out);
    }
    const num_dec *hi = a->exp >= b->exp ? a : b;
    const num_dec *lo = hi == a ? b : a;
    coef big, small;
    int32_t aligned_exp;
    num_dec_status st = align(hi, lo, big, small, &aligned_exp);
    if (st != NUM_DEC_OK)
        return st;
    uint32_t *minuend = hi == a ? big : small, *subtrahend = hi == a ? small : big;
    int order = c_cmp(minuend, subtrahend);
    if (order == 0) { /* equal values: zero with the smaller original exponent */
        num_dec_zero(out);
        out->exp = exp;
        return NUM_DEC_OK;
    }
    c_sub(minuend, minuend, subtrahend);
    return finish(minuend, aligned_exp, 0, out);
}

num_dec_status num_dec_mul(const num_dec *a, const num_dec *b, num_dec *out)
{
    int32_t exp = a->exp + b->exp;
    coef prod;
    if (c_mul(prod, a->limb, b->limb) != 0)
        return NUM_DEC_RANGE;
    return finish(prod, exp, 0, out);
}

num_dec_status num_dec_div(const num_dec *a, const num_dec *b, num_dec *out)
{
    if (num_dec_is_zero(b))
        return NUM_DEC_DIV_ZERO;
    int32_t ideal = a->exp - b->exp;
    if (num_dec_is_zero(a)) {
        num_dec_zero(out);
        out->exp = ideal;
        return NUM_DEC_OK;
    }
    /* Scale so that the integer quotient has precision + 1 or + 2 digits:
     * enough to round correctly with the remainder as a sticky digit. */
    int shift = c_digits(b->limb) - c_digits(a->limb) + NUM_DEC_PREC + 1;
    coef num, den, quo, rem;
    memcpy(num, a->limb, sizeof num);
    memcpy(den, b->limb, sizeof den);
    if (shift >= 0) {
        if (c_shift10(num, shift) != 0)
            return NUM_DEC_RANGE;
    } else if (c_shift10(den, -shift) != 0) {
        return NUM_DEC_RANGE;
    }
    if (c_digits(den) > NUM_DEC_LIMBS * LIMB_DIGITS - 2)
        return NUM_DEC_RANGE; /* the digit-wise division needs room for 10 * divisor */
    int32_t exp = ideal - shift;
    c_divmod(num, den, quo, rem);
    int inexact = !c_is_zero(rem);
    if (!inexact) {
        /* exact: give back trailing zeros down to the ideal exponent */
        while (exp < ideal) {
            coef t;
            memcpy(t, quo, sizeof t);
            if (c_div_small(t, 10u) != 0)
                break;
            memcpy(quo, t, sizeof t);
            exp++;
        }
    }
    return finish(quo, exp, inexact, out);
}

size_t num_dec_to_str(const num_dec *a, char *out, size_t n)
{
    char digits[NUM_DEC_LIMBS * LIMB_DIGITS + 1];
    int nd = c_digits(a->limb);
    for (int i = 0; i < nd; i++)
        digits[i] = (char)('0' + c_digit_at(a->limb, nd - 1 - i));
    digits[nd] = '\0';
    /* Python's to-scientific-string: plain notation when exp <= 0 and the
     * leading digit is not more than 6 places right of the point. */
    int32_t left = a->exp + nd;
    int32_t dot = (a->exp <= 0 && left > -6) ? left : 1;
    char buf[NUM_DEC_STR_MAX + 64];
    size_t w = 0;
    if (dot <= 0) {
        buf[w++] = '0';
        buf[w++] = '.';
        for (int32_t i = 0; i < -dot; i++)
            buf[w++] = '0';
        memcpy(buf + w, digits, (size_t)nd);
        w += (size_t)nd;
    } else if (dot >= nd) {
        memcpy(buf + w, digits, (size_t)nd);
        w += (size_t)nd;
        for (int32_t i = nd; i < dot; i++)
            buf[w++] = '0';
    } else {
        memcpy(buf + w, digits, (size_t)dot);
        w += (size_t)dot;
        buf[w++] = '.';
        memcpy(buf + w, digits + dot, (size_t)(nd - dot));
        w += (size_t)(nd - dot);
    }
    if (left != dot) {
        int32_t e = left - dot;
        int k = snprintf(buf + w, sizeof buf - w, "E%+d", (int)e);
        w += (size_t)k;
    }
    buf[w] = '\0';
    if (n) {
        size_t c = w < n - 1 ? w : n - 1;
        memcpy(out, buf, c);
        out[c] = '\0';
    }
    return w;
}

num_dec_status num_dec_to_double(const num_dec *a, double *out)
{
    static locale_t c_loc; /* created once for the process lifetime */
    if (!c_loc)
        c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!c_loc)
        return NUM_DEC_RANGE;
    char s[NUM_DEC_STR_MAX];
    num_dec_to_str(a, s, sizeof s);
    /* glibc strtod is correctly rounded, like Python's float(str) */
    *out = strtod_l(s, NULL, c_loc);
    return NUM_DEC_OK;
}
