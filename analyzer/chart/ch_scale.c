/* Linear and band scales, nice ticks (ch_scale.h). */
#include <math.h>

#include "analyzer/chart/ch_scale.h"

ch_linear ch_linear_make(double d0, double d1, double r0, double r1)
{
    ch_linear s = {d0, d1, r0, r1};
    return s;
}

double ch_linear_map(const ch_linear *s, double v)
{
    double span = s->d1 - s->d0;
    if (span == 0.0 || !isfinite(span) || !isfinite(v))
        return (s->r0 + s->r1) / 2.0;
    return s->r0 + (v - s->d0) / span * (s->r1 - s->r0);
}

double ch_linear_map_clamped(const ch_linear *s, double v)
{
    double lo = s->d0 < s->d1 ? s->d0 : s->d1, hi = s->d0 < s->d1 ? s->d1 : s->d0;
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return ch_linear_map(s, v);
}

ch_band ch_band_make(size_t n, double r0, double r1, double padding)
{
    if (padding < 0.0)
        padding = 0.0;
    if (padding > 0.9)
        padding = 0.9;
    ch_band b = {n, r0 < r1 ? r0 : r1, r0 < r1 ? r1 : r0, padding};
    return b;
}

double ch_band_step(const ch_band *b)
{
    return b->n ? (b->r1 - b->r0) / (double)b->n : 0.0;
}

double ch_band_width(const ch_band *b)
{
    return ch_band_step(b) * (1.0 - b->padding);
}

double ch_band_start(const ch_band *b, size_t i)
{
    return b->r0 + ch_band_step(b) * ((double)i + b->padding / 2.0);
}

double ch_band_centre(const ch_band *b, size_t i)
{
    return b->r0 + ch_band_step(b) * ((double)i + 0.5);
}

ch_ticks ch_ticks_nice(double lo, double hi, size_t target)
{
    ch_ticks t = {0.0, 1.0, 0.5, 1, 3};
    if (!isfinite(lo) || !isfinite(hi))
        return t;
    if (lo > hi) {
        double x = lo;
        lo = hi;
        hi = x;
    }
    if (lo == hi) {
        lo -= 1.0;
        hi += 1.0;
    }
    if (target < 1)
        target = 1;
    if (target > 20)
        target = 20;
    double raw = (hi - lo) / (double)target;
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    double nice = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0;
    double step = nice * mag;
    /* floor/ceil on the step grid with a tolerance for binary fractions */
    double first = floor(lo / step + 1e-9), last = ceil(hi / step - 1e-9);
    while (last - first + 1.0 > CH_TICKS_MAX) { /* cannot happen for target <= 20; bound anyway */
        step *= 2.0;
        first = floor(lo / step + 1e-9);
        last = ceil(hi / step - 1e-9);
    }
    if (last <= first)
        last = first + 1.0;
    t.step = step;
    t.lo = first * step;
    t.hi = last * step;
    t.n = (size_t)(last - first) + 1;
    int dec = (int)-floor(log10(step) + 1e-9);
    t.decimals = dec < 0 ? 0 : dec > 6 ? 6 : dec;
    return t;
}

double ch_ticks_value(const ch_ticks *t, size_t i)
{
    return t->lo + t->step * (double)i;
}
