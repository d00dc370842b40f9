#include "testrng.h"

static unsigned long state = 1;

void trng_seed(unsigned long seed)
{
    state = seed;
}

double trng_unif(void)
{
    state = state * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(state >> 11) / 9007199254740992.0;
}

double trng_noise(void)
{
    double s = 0;
    for (int i = 0; i < 12; i++)
        s += trng_unif();
    return s - 6.0;
}
