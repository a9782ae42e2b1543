/* Counter-based pseudo-random numbers for skdcci_gen.
 *
 * Every random quantity is a pure function of (seed, purpose, indices):
 * splitmix64's finaliser applied to a mix of the key.  Nothing depends on
 * call order, so the timing of one lane can be computed without replaying
 * the others, and two runs with the same seed are byte-identical.
 */
#ifndef GEN_RNG_H
#define GEN_RNG_H

#include <stdint.h>

/* splitmix64 finaliser (Steele, Lea, Flood 2014). */
static inline uint64_t gen_mix64(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Purposes keep unrelated draws independent even when indices coincide. */
enum {
    GEN_R_JITTER = 1,   /* lane duration jitter */
    GEN_R_RATIO = 2,    /* lane imbalance of one op */
    GEN_R_SKEW = 3,     /* per-core start skew */
    GEN_R_GAP = 4,      /* barrier gap jitter */
    GEN_R_TAIL = 5,     /* parent tail per core */
    GEN_R_ENTRY = 6,    /* parent entry skew per core */
    GEN_R_LAUNCH = 7,   /* gap between launches */
    GEN_R_HASH = 8,     /* 32-hex kernel hashes */
    GEN_R_IDS = 9,      /* process ids, pointers, bases */
    GEN_R_HOST = 10,    /* host-side durations (kernel_details) */
    GEN_R_COUNTERS = 11, /* profiler counters columns */
    GEN_R_RANK = 12      /* the noise seed of ranks 1.. of a multi-rank run */
};

static inline uint64_t gen_hash(uint64_t seed, uint64_t purpose, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = gen_mix64(seed ^ (purpose << 56));
    h = gen_mix64(h ^ a);
    h = gen_mix64(h ^ (b + UINT64_C(0x632be59bd9b4e019)));
    return gen_mix64(h ^ (c + UINT64_C(0x85157af5a5b1d5c3)));
}

/* Uniform integer in [lo, hi] (the tiny modulo bias is irrelevant here). */
static inline int64_t gen_uniform(uint64_t h, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(h % (uint64_t)(hi - lo + 1));
}

#endif
