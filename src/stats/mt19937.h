/* mt19937.h — GSL's gsl_rng_mt19937, drawn inline: the same stream for the
 * same seed, and nf_mt_uniform() the same values as gsl_rng_uniform_int().
 * For the bootstraps, whose cost is the draws: GSL's draw is a call
 * through a function pointer and a 64-bit division each; here the
 * tempering is inline and the division 32-bit (tests/unit/test_mt19937.c
 * compares both with GSL's). */
#ifndef NF_STATS_MT19937_H
#define NF_STATS_MT19937_H

#include <stdint.h>

#define NF_MT_N 624

struct nf_mt {
    uint32_t mt[NF_MT_N];
    unsigned i; /* next word of mt; NF_MT_N: regenerate first */
};

/* As gsl_rng_set(r, seed): 0 means 4357, only the low 32 bits count. */
void nf_mt_seed(struct nf_mt *s, unsigned long seed);
/* The next NF_MT_N words (called by nf_mt_get). */
void nf_mt_refill(struct nf_mt *s);

/* As gsl_rng_get(r). */
static inline uint32_t nf_mt_get(struct nf_mt *s)
{
    if (s->i >= NF_MT_N)
        nf_mt_refill(s);
    uint32_t k = s->mt[s->i++];
    k ^= k >> 11;
    k ^= (k << 7) & 0x9d2c5680u;
    k ^= (k << 15) & 0xefc60000u;
    k ^= k >> 18;
    return k;
}

/* The draws of 0..n-1 (1 <= n <= 2^32 - 1): GSL's scale, computed once. */
struct nf_mt_range {
    uint32_t n, scale;
};

static inline struct nf_mt_range nf_mt_range(uint32_t n)
{
    struct nf_mt_range r = {n, n ? UINT32_MAX / n : 0};
    return r;
}

/* As gsl_rng_uniform_int(r, n): a word divided by the scale, again while
 * the quotient is n or more. */
static inline uint32_t nf_mt_uniform(struct nf_mt *s, const struct nf_mt_range *r)
{
    uint32_t k;
    do
        k = nf_mt_get(s) / r->scale;
    while (k >= r->n);
    return k;
}

#endif
