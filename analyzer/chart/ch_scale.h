/* Scales and ticks of the report charts (docs/report-html.md, "Drawing").
 *
 * A linear scale maps a numeric domain [d0, d1] onto a pixel range
 * [r0, r1] (r0 > r1 for a y axis drawn downwards).  A band scale splits a
 * range into n equal bands with an inner padding, for one mark per category.
 * "Nice" ticks extend a domain to multiples of 1, 2 or 5 times a power of
 * ten, so axis labels are short round numbers.
 */
#ifndef CH_SCALE_H
#define CH_SCALE_H

#include <stddef.h>

typedef struct ch_linear {
    double d0, d1; /* domain */
    double r0, r1; /* range in pixels */
} ch_linear;

/* A degenerate domain (d0 == d1) maps everything to the middle of the range. */
ch_linear ch_linear_make(double d0, double d1, double r0, double r1);
double ch_linear_map(const ch_linear *s, double v);
/* v clamped to the domain, then mapped. */
double ch_linear_map_clamped(const ch_linear *s, double v);

typedef struct ch_band {
    size_t n;        /* number of bands (0: every band is empty) */
    double r0, r1;   /* range, r0 < r1 */
    double padding;  /* fraction of a step left empty between bands, 0..0.9 */
} ch_band;

ch_band ch_band_make(size_t n, double r0, double r1, double padding);
/* Width of one step (band plus its padding), and of the band alone. */
double ch_band_step(const ch_band *b);
double ch_band_width(const ch_band *b);
/* Left edge and centre of band i. */
double ch_band_start(const ch_band *b, size_t i);
double ch_band_centre(const ch_band *b, size_t i);

#define CH_TICKS_MAX 32

typedef struct ch_ticks {
    double lo, hi;    /* the extended domain: lo = first tick, hi = last */
    double step;      /* 1, 2 or 5 times a power of ten */
    int decimals;     /* digits after the point that show every tick exactly */
    size_t n;         /* number of ticks, 2..CH_TICKS_MAX */
} ch_ticks;

/* Nice ticks covering [lo, hi] with about `target` intervals (1..20).
 * lo > hi is swapped; a zero-width or non-finite domain becomes [lo-1, lo+1]
 * (or [0, 1]).  Always yields at least two ticks. */
ch_ticks ch_ticks_nice(double lo, double hi, size_t target);
double ch_ticks_value(const ch_ticks *t, size_t i);

#endif
