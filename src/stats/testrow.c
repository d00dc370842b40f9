/* testrow.c — the statistical tests, one row each (stats/testrow.h). */
#include "stats/testrow.h"

#include <string.h>

#include "stats/cmp_int.h"
#include "stats/robust.h"
#include "stats/shift.h"
#include "stats/tests_int.h"

static double mean_of(const double *x, size_t n, const struct nf_cmp_opts *o)
{
    (void)o;
    double m, v;
    nf_st_mean_var(x, n, &m, &v);
    return m;
}

static double trimmed_mean_of(const double *x, size_t n, const struct nf_cmp_opts *o)
{
    (void)o;
    return nf_trimmed_mean(x, n, NF_TRIM);
}

static unsigned decile_of(const struct nf_cmp_opts *o)
{
    return o->decile ? (unsigned)o->decile : 1;
}

static double decile_location(const double *x, size_t n, const struct nf_cmp_opts *o)
{
    return nf_hd_quantile(x, n, decile_of(o) / 10.0);
}

static int shift(const double *base, size_t nb, const double *var, size_t nv, int rate,
                 const struct nf_cmp_opts *o, struct nf_cmp_result *r)
{
    return nf_shift_compare(base, nb, var, nv, rate, decile_of(o), o, r);
}

#define NAME_(e, name) [e] = name,
static const char *const names[NF_TEST_COUNT] = {NF_TESTS(NAME_)};
#undef NAME_

static const struct nf_test_row rows[NF_TEST_COUNT] = {
    [NF_TEST_WELCH] = {.test = NF_TEST_WELCH,
                       .compare = nf_cmp_welch,
                       .location_of = mean_of,
                       .location = NF_LOC_MEAN,
                       .location_words = "mean",
                       .paired_form = NF_PAIRED_T,
                       .own_paired = 1,
                       .paired_words = "paired t",
                       .min_n = 2},
    [NF_TEST_UTEST] = {.test = NF_TEST_UTEST,
                       .compare = nf_cmp_utest,
                       .location_of = mean_of,
                       .location = NF_LOC_MEAN,
                       .location_words = "mean",
                       .paired_form = NF_PAIRED_SIGNED_RANK,
                       .own_paired = 1,
                       .paired_words = "Wilcoxon signed-rank test and Hodges–Lehmann",
                       .min_n = 2},
    [NF_TEST_BOOTSTRAP] = {.test = NF_TEST_BOOTSTRAP,
                           .compare = nf_cmp_bootstrap,
                           .location_of = mean_of,
                           .location = NF_LOC_MEAN,
                           .location_words = "mean",
                           .paired_form = NF_PAIRED_T,
                           .own_paired = 0,
                           .paired_words = "paired t",
                           .min_n = NF_BOOT_MIN_N},
    [NF_TEST_YUEN] = {.test = NF_TEST_YUEN,
                      .compare = nf_cmp_yuen,
                      .location_of = trimmed_mean_of,
                      .location = NF_LOC_TRIMMED_MEAN,
                      .location_words = "20% trimmed mean",
                      .location_column = "TrMean",
                      .paired_form = NF_PAIRED_T,
                      .own_paired = 0,
                      .paired_words = "paired t",
                      .min_n = 2},
    [NF_TEST_SHIFT] = {.test = NF_TEST_SHIFT,
                       .compare = shift,
                       .location_of = decile_location,
                       .location = NF_LOC_DECILE,
                       .location_words = "decile",
                       .location_column = "Decile",
                       .paired_form = NF_PAIRED_NONE,
                       .own_paired = 0,
                       .min_n = 2},
};

const struct nf_test_row *nf_test_row(enum nf_test t)
{
    if ((unsigned)t >= NF_TEST_COUNT || !rows[t].compare)
        return NULL;
    return &rows[t];
}

int nf_test_pairs_by_rank(enum nf_test t)
{
    const struct nf_test_row *row = nf_test_row(t);
    return row && row->paired_form == NF_PAIRED_SIGNED_RANK;
}

const char *nf_test_name(enum nf_test t)
{
    if ((unsigned)t < NF_TEST_COUNT)
        return names[t];
    return "?";
}

int nf_test_parse(const char *s, enum nf_test *t)
{
    if (!s || !t)
        return -1;
    for (unsigned i = 0; i < NF_TEST_COUNT; i++)
        if (strcmp(s, names[i]) == 0) {
            *t = (enum nf_test)i;
            return 0;
        }
    return -1;
}
