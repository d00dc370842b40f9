/* Fixture of `noisefloor insns` tests, compiled at test time with
 * `cc -c -O2` (and -DVARIANT=2 for a "patched" variant).  Multiplications
 * are by non-constants, XOR-ed so that no compiler can fold them into one
 * multiply-add or factor them out: the counts are the same at any -O level
 * on every architecture (x86: imul, AArch64/ARM/ppc: mul/mulld...). */

/* 3 multiplications; 2 in VARIANT 2 (the "fewer mul" variant of
 * doc/cases.md's third case). */
long nf_mul3(long a, long b, long c, long d, long e, long f)
{
#if VARIANT == 2
    return a * b ^ c * d ^ e ^ f;
#else
    return a * b ^ c * d ^ e * f;
#endif
}

/* 1 multiplication. */
long nf_mul1(long a, long b)
{
    return a * b;
}

/* None: multiplying by a constant is a shift or lea, not a mul. */
long nf_nomul(long a, long b)
{
    return a + b;
}

/* Multiply-accumulate: madd on AArch64, mla on ARM, imul + add on x86. */
long nf_mla(long a, long b, long c)
{
    return a * b + c;
}

/* The largest function of the file. */
unsigned long nf_big(const unsigned char *p, unsigned long n)
{
    unsigned long h = 2166136261u;
    for (unsigned long i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
        h ^= h >> 29;
        h += (h << 7) ^ (h >> 3) ^ p[(i * 7) % n];
        h ^= h >> 31;
        h *= (h | 1) ^ n;
        h ^= h >> 17;
    }
    return h;
}

#ifdef NF_MAIN
/* For the executable and shared-object tests: the functions are global, so
 * the linker keeps them. */
int main(void)
{
    return 0;
}
#endif
