/* randval — one number per invocation from a known distribution, for the
 * end-to-end simulation of `ab` (tests/e2e/t_ab_sim.sh).
 *
 *   randval STATE SEED MEAN CV
 *
 * prints MEAN * (1 + CV * Z), Z standard normal, as "v VALUE".  The k-th
 * invocation with the same STATE file draws the k-th value of the stream
 * SEED (k is kept in STATE), so a variant's values depend on its seed and
 * their order only, not on how `ab` interleaves the variants: a session is
 * reproducible.  No library: splitmix64 and Box–Muller. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double unit(uint64_t *x)
{
    return ((double)(splitmix64(x) >> 11) + 0.5) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: randval STATE SEED MEAN CV\n");
        return 2;
    }
    unsigned long long k = 0;
    FILE *f = fopen(argv[1], "r");
    if (f) {
        if (fscanf(f, "%llu", &k) != 1)
            k = 0;
        fclose(f);
    }
    f = fopen(argv[1], "w");
    if (!f || fprintf(f, "%llu\n", k + 1) < 0 || fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    /* Draw k takes the 2k+1-th and 2k+2-th outputs of the stream: two
     * uniforms of its own, none shared with the draw before or after. */
    uint64_t x = strtoull(argv[2], NULL, 10) * 0x100000001b3ULL + 2 * k * 0x9e3779b97f4a7c15ULL;
    double u1 = unit(&x), u2 = unit(&x);
    double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
    printf("v %.9g\n", strtod(argv[3], NULL) * (1 + strtod(argv[4], NULL) * z));
    return 0;
}
