/* mt19937.c — the Mersenne Twister (Matsumoto & Nishimura 1998) with the
 * 2002 seeding, as GSL's gsl_rng_mt19937 has it (see mt19937.h). */
#include "stats/mt19937.h"

#define M 397
#define UPPER 0x80000000u
#define LOWER 0x7fffffffu
#define MAGIC(y) (((y)&1u) ? 0x9908b0dfu : 0u)

void nf_mt_seed(struct nf_mt *s, unsigned long seed)
{
    if (seed == 0)
        seed = 4357;
    s->mt[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t i = 1; i < NF_MT_N; i++)
        s->mt[i] = 1812433253u * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + i;
    s->i = NF_MT_N;
}

void nf_mt_refill(struct nf_mt *s)
{
    uint32_t *mt = s->mt, y;
    int k;
    for (k = 0; k < NF_MT_N - M; k++) {
        y = (mt[k] & UPPER) | (mt[k + 1] & LOWER);
        mt[k] = mt[k + M] ^ (y >> 1) ^ MAGIC(y);
    }
    for (; k < NF_MT_N - 1; k++) {
        y = (mt[k] & UPPER) | (mt[k + 1] & LOWER);
        mt[k] = mt[k + (M - NF_MT_N)] ^ (y >> 1) ^ MAGIC(y);
    }
    y = (mt[NF_MT_N - 1] & UPPER) | (mt[0] & LOWER);
    mt[NF_MT_N - 1] = mt[M - 1] ^ (y >> 1) ^ MAGIC(y);
    s->i = 0;
}
