/* What on this machine adds noise to a benchmark, read from /sys and /proc
 * under a root prefix (so tests can build a fake tree): each finding says
 * what was seen, whether it is a problem, and how to fix it. */
#ifndef NF_MEASURE_NOISE_H
#define NF_MEASURE_NOISE_H

#include <stddef.h>

enum nf_noise_level { NF_NOISE_OK, NF_NOISE_INFO, NF_NOISE_WARN };

struct nf_noise {
    char name[32]; /* "governor", "turbo", ... */
    enum nf_noise_level level;
    char seen[160]; /* what was read */
    char fix[200];  /* how to remove it ("" when fine) */
    /* A setting `doctor --tune` may change: the file (under root) and the
     * value it writes; empty when not tunable. */
    char tune_path[200];
    char tune_value[32];
};

/* Inspect the machine under root ("" or NULL for the real one).  Returns
 * the number of findings written to out (at most max). */
size_t nf_noise_inspect(const char *root, struct nf_noise *out, size_t max);

const char *nf_noise_level_name(enum nf_noise_level l);

#endif
