/* tests.c — Welch, Fieller, Mann–Whitney, Hodges–Lehmann, bootstrap,
 * ANOVA, Spearman, Holm.  Formulas and choices: doc/statistics.md. */
#include "stats/tests.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "stats/summary.h"

/* ---------------------------------------------------------------- helpers */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof *s);
	if (!s)
		return NULL;
	memcpy(s, x, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	return s;
}

/* Mean and sample variance (n-1), two-pass with compensation. */
static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	double m = s / (double)n, ss = 0, c = 0;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - m;
		ss += d * d;
		c += d;
	}
	double v = n > 1 ? (ss - c * c / (double)n) / (double)(n - 1) : 0.0;
	*mean = m;
	*var = v > 0 ? v : 0.0;
}

/* Two-sided p of a t statistic; handles infinities without calling GSL. */
static double t_two_sided(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0.0;
	double p = 2.0 * gsl_cdf_tdist_Q(fabs(t), df);
	return p > 1.0 ? 1.0 : p;
}

static double welch_df(double va_n, double vb_n, size_t na, size_t nb)
{
	double s = va_n + vb_n;
	return s * s / (va_n * va_n / (double)(na - 1) + vb_n * vb_n / (double)(nb - 1));
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->v != b->v)
		return (a->v > b->v) - (a->v < b->v);
	return (a->i > b->i) - (a->i < b->i);
}

/* Average ranks (1-based, ties get the mean of their ranks, like
 * scipy.stats.rankdata); *tie_term = sum over tie groups of t^3 - t. */
static int rank_avg(const double *x, size_t n, double *rank, double *tie_term)
{
	struct ranked *r = malloc((n ? n : 1) * sizeof *r);
	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++) {
		r[i].v = x[i];
		r[i].i = i;
	}
	qsort(r, n, sizeof *r, cmp_ranked);
	double tt = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && r[j].v == r[i].v)
			j++;
		double avg = 0.5 * (double)(i + 1 + j); /* mean of ranks i+1..j */
		for (size_t k = i; k < j; k++)
			rank[r[k].i] = avg;
		double t = (double)(j - i);
		tt += t * t * t - t;
		i = j;
	}
	free(r);
	if (tie_term)
		*tie_term = tt;
	return 0;
}

/* ------------------------------------------------------------------ Welch */

int nf_welch_stats(double ma, double sa, size_t na, double mb, double sb,
		   size_t nb, struct nf_welch *out)
{
	if (!out || na < 2 || nb < 2 || !isfinite(ma) || !isfinite(mb) ||
	    !isfinite(sa) || !isfinite(sb) || sa < 0 || sb < 0)
		return -1;
	double va_n = sa * sa / (double)na, vb_n = sb * sb / (double)nb;
	if (va_n + vb_n == 0) {
		out->df = (double)(na + nb - 2);
		if (ma == mb) {
			out->t = 0;
			out->p = 1;
		} else {
			out->t = ma > mb ? INFINITY : -INFINITY;
			out->p = 0;
		}
		return 0;
	}
	out->t = (ma - mb) / sqrt(va_n + vb_n);
	out->df = welch_df(va_n, vb_n, na, nb);
	out->p = t_two_sided(out->t, out->df);
	return 0;
}

int nf_welch(const double *a, size_t na, const double *b, size_t nb,
	     struct nf_welch *out)
{
	if (!a || !b || na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb))
		return -1;
	double ma, va, mb, vb;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	return nf_welch_stats(ma, sqrt(va), na, mb, sqrt(vb), nb, out);
}

/* ---------------------------------------------------------------- Fieller */

int nf_fieller(double ma, double sa, size_t na, double mb, double sb,
	       size_t nb, double alpha, double *lo, double *hi)
{
	if (!lo || !hi)
		return -1;
	*lo = *hi = NAN;
	if (na < 2 || nb < 2 || !isfinite(ma) || !isfinite(mb) || !isfinite(sa) ||
	    !isfinite(sb) || sa < 0 || sb < 0 || !(alpha > 0 && alpha < 1))
		return -1;
	double Va = sa * sa / (double)na, Vb = sb * sb / (double)nb;
	if (Va + Vb == 0) {
		if (ma == 0)
			return 1;
		*lo = *hi = mb / ma;
		return 0;
	}
	double df = welch_df(Va, Vb, na, nb);
	double t = gsl_cdf_tdist_Qinv(alpha / 2, df);
	double t2 = t * t;
	double den = ma * ma - t2 * Va; /* > 0  <=>  g = t^2 Va / ma^2 < 1 */
	if (!(den > 0))
		return 1;
	double disc = ma * ma * Vb + mb * mb * Va - t2 * Va * Vb;
	if (disc < 0) /* impossible when den > 0; rounding guard */
		disc = 0;
	double r1 = (ma * mb - t * sqrt(disc)) / den;
	double r2 = (ma * mb + t * sqrt(disc)) / den;
	*lo = r1 < r2 ? r1 : r2;
	*hi = r1 < r2 ? r2 : r1;
	return 0;
}

/* ----------------------------------------------------------- Mann–Whitney */

/* Null distribution of U for sizes m, n without ties: counts[k] = number of
 * arrangements with U = k, k = 0..m*n, i.e. the coefficients of the Gaussian
 * binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 * Call with m the smaller size: O(m * m*n) operations, exact integers while
 * the counts stay below 2^53 (C(m+n, m) < 2^53, e.g. m = 8, n <= 350) and
 * accurate to rounding beyond.  Returns a malloc'd array or NULL. */
static double *mwu_counts(size_t m, size_t n)
{
	size_t len = m * n + m + 1;
	double *c = calloc(len, sizeof *c);
	if (!c)
		return NULL;
	c[0] = 1;
	size_t deg = 0;
	for (size_t i = 1; i <= m; i++) {
		size_t s = n + i;
		for (size_t k = deg + s; k >= s; k--) /* times (1 - q^s) */
			c[k] -= c[k - s];
		for (size_t k = i; k <= deg + s; k++) /* divided by (1 - q^i) */
			c[k] += c[k - i];
		deg += n;
	}
	return c;
}

static int has_ties(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double *s = malloc(n * sizeof *s);
	if (!s)
		return -1;
	memcpy(s, a, na * sizeof *s);
	memcpy(s + na, b, nb * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	int ties = 0;
	for (size_t i = 1; i < n && !ties; i++)
		ties = s[i] == s[i - 1];
	free(s);
	return ties;
}

/* SciPy's method='auto': exact unless both sizes > 8 or there are ties. */
static int mwu_use_exact(const double *a, size_t na, const double *b, size_t nb)
{
	if (na > 8 && nb > 8)
		return 0;
	int t = has_ties(a, na, b, nb);
	return t < 0 ? -1 : !t;
}

/* U of a, and the tie term of the pooled ranks. */
static int mwu_u(const double *a, size_t na, const double *b, size_t nb,
		 double *u1, double *tie_term)
{
	size_t n = na + nb;
	double *x = malloc(n * sizeof *x), *r = malloc(n * sizeof *r);
	if (!x || !r || (memcpy(x, a, na * sizeof *x),
			 memcpy(x + na, b, nb * sizeof *x),
			 rank_avg(x, n, r, tie_term)) < 0) {
		free(x);
		free(r);
		return -1;
	}
	double r1 = 0;
	for (size_t i = 0; i < na; i++)
		r1 += r[i];
	*u1 = r1 - (double)na * (double)(na + 1) / 2.0;
	free(x);
	free(r);
	return 0;
}

/* sd of U under H0 with tie correction (scipy _get_mwu_z) */
static double mwu_sigma(size_t na, size_t nb, double tie_term)
{
	double n = (double)(na + nb);
	double v = (double)na * (double)nb / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
	return v > 0 ? sqrt(v) : 0.0;
}

int nf_mannwhitney_method(const double *a, size_t na, const double *b,
			  size_t nb, int exact, struct nf_mwu *out)
{
	if (!a || !b || !out || na < 1 || nb < 1 || !all_finite(a, na) ||
	    !all_finite(b, nb))
		return -1;
	double u1, tie;
	if (mwu_u(a, na, b, nb, &u1, &tie) < 0)
		return -1;
	double mn = (double)na * (double)nb;
	double umax = u1 > mn - u1 ? u1 : mn - u1;
	double p;
	if (exact) {
		if (tie != 0)
			return -1;
		size_t m = na < nb ? na : nb, n = na < nb ? nb : na;
		double *c = mwu_counts(m, n);
		if (!c)
			return -1;
		/* P(U >= umax) = P(U <= mn - umax) by symmetry */
		size_t kmax = (size_t)llround(mn - umax);
		double tot = 0, low = 0;
		for (size_t k = 0; k <= m * n; k++) {
			tot += c[k];
			if (k <= kmax)
				low += c[k];
		}
		free(c);
		p = 2.0 * low / tot;
	} else {
		double s = mwu_sigma(na, nb, tie);
		if (s == 0) {
			p = 1.0;
		} else {
			double z = (umax - mn / 2.0 - 0.5) / s;
			p = 2.0 * gsl_cdf_ugaussian_Q(z);
		}
	}
	out->u = u1;
	out->p = p > 1.0 ? 1.0 : p;
	out->exact = exact ? 1 : 0;
	return 0;
}

int nf_mannwhitney(const double *a, size_t na, const double *b, size_t nb,
		   struct nf_mwu *out)
{
	if (!a || !b || !out || na < 1 || nb < 1 || !all_finite(a, na) ||
	    !all_finite(b, nb))
		return -1;
	int exact = mwu_use_exact(a, na, b, nb);
	if (exact < 0)
		return -1;
	return nf_mannwhitney_method(a, na, b, nb, exact, out);
}

/* -------------------------------------------------------- Hodges–Lehmann */

/* Order-preserving map from doubles to unsigned integers (finite values). */
static uint64_t dkey(double d)
{
	uint64_t u;
	d += 0.0; /* -0 -> +0 */
	memcpy(&u, &d, sizeof u);
	return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63));
}

static double dval(uint64_t k)
{
	uint64_t u = (k >> 63) ? (k & ~(UINT64_C(1) << 63)) : ~k;
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* #{(i, j) : b_j - a_i <= v}, a and b sorted ascending.  The computed
 * difference fl(b_j - a_i) is monotone in both arguments (rounding is
 * monotone), so one forward sweep of j serves all i. */
static size_t count_le(const double *a, size_t na, const double *b, size_t nb,
		       double v)
{
	size_t cnt = 0, j = 0;
	for (size_t i = 0; i < na; i++) { /* a_i up: more b_j qualify */
		while (j < nb && b[j] - a[i] <= v)
			j++;
		cnt += j;
	}
	return cnt;
}

/* k-th smallest difference (1-based) on sorted inputs: binary search over
 * the ordered bit patterns of doubles (<= 64 sweeps), exact. */
static double kth_sorted(const double *a, size_t na, const double *b,
			 size_t nb, size_t k)
{
	uint64_t lo = dkey(b[0] - a[na - 1]), hi = dkey(b[nb - 1] - a[0]);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (count_le(a, na, b, nb, dval(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return dval(lo) + 0.0;
}

/* Smallest difference > v (sorted inputs; INFINITY if none). */
static double next_above(const double *a, size_t na, const double *b,
			 size_t nb, double v)
{
	double best = INFINITY;
	size_t j = 0;
	for (size_t i = 0; i < na; i++) {
		while (j < nb && b[j] - a[i] <= v)
			j++;
		if (j < nb && b[j] - a[i] < best)
			best = b[j] - a[i];
	}
	return best;
}

/* (k+1)-th smallest difference given the k-th: one sweep, not 64. */
static double kth_next(const double *a, size_t na, const double *b, size_t nb,
		       size_t k, double dk)
{
	if (count_le(a, na, b, nb, dk) >= k + 1)
		return dk;
	return next_above(a, na, b, nb, dk) + 0.0;
}

double nf_pairwise_diff_kth(const double *a, size_t na, const double *b,
			    size_t nb, size_t k)
{
	if (!a || !b || na == 0 || nb == 0 || k < 1 || k > na * nb ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return NAN;
	double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
	double v = NAN;
	if (sa && sb)
		v = kth_sorted(sa, na, sb, nb, k);
	free(sa);
	free(sb);
	return v;
}

int nf_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
		      double alpha, struct nf_hl *out)
{
	if (!a || !b || !out || na < 1 || nb < 1 || !(alpha > 0 && alpha < 1) ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return -1;
	out->shift = out->lo = out->hi = NAN;
	int exact = mwu_use_exact(a, na, b, nb);
	double u1, tie;
	if (exact < 0 || mwu_u(a, na, b, nb, &u1, &tie) < 0)
		return -1;
	double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
	if (!sa || !sb) {
		free(sa);
		free(sb);
		return -1;
	}
	size_t mn = na * nb;
	if (mn % 2)
		out->shift = kth_sorted(sa, na, sb, nb, mn / 2 + 1);
	else {
		double d1 = kth_sorted(sa, na, sb, nb, mn / 2);
		out->shift = 0.5 * (d1 + kth_next(sa, na, sb, nb, mn / 2, d1));
	}

	/* u: largest count with P(U <= u) <= alpha/2; the CI is
	 * [D(u+1), D(mn-u)].  long long so that "none" is -1. */
	long long u = -1;
	if (exact) {
		size_t m = na < nb ? na : nb, n = na < nb ? nb : na;
		double *c = mwu_counts(m, n);
		if (!c) {
			free(sa);
			free(sb);
			return -1;
		}
		double tot = 0, cum = 0;
		for (size_t k = 0; k <= mn; k++)
			tot += c[k];
		for (size_t k = 0; k <= mn / 2; k++) {
			cum += c[k];
			if (cum / tot > alpha / 2)
				break;
			u = (long long)k;
		}
		free(c);
	} else {
		double s = mwu_sigma(na, nb, tie);
		if (s == 0) { /* every value equal: every difference 0 */
			out->lo = out->hi = out->shift;
			free(sa);
			free(sb);
			return 0;
		}
		/* the continuity-corrected test rejects U <= mn/2 - 0.5 - z s
		 * strictly below; u is the largest integer strictly below */
		double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
		u = (long long)ceil((double)mn / 2.0 - 0.5 - z * s) - 1;
	}
	int rc = 0;
	if (u < 0) {
		rc = 1;
	} else {
		out->lo = kth_sorted(sa, na, sb, nb, (size_t)u + 1);
		out->hi = kth_sorted(sa, na, sb, nb, mn - (size_t)u);
	}
	free(sa);
	free(sb);
	return rc;
}

/* -------------------------------------------------------------- bootstrap */

int nf_bootstrap_ratio(const double *a, size_t na, const double *b, size_t nb,
		       double alpha, unsigned resamples, unsigned long seed,
		       struct nf_boot *out)
{
	if (!a || !b || !out || na < 2 || nb < 2 || !(alpha > 0 && alpha < 1) ||
	    !all_finite(a, na) || !all_finite(b, nb))
		return -1;
	out->ratio = out->lo = out->hi = out->p = NAN;
	size_t B = resamples ? resamples : NF_BOOT_RESAMPLES;
	double ma, va, mb, vb;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	if (va + vb == 0 || ma == 0)
		return -1;
	out->ratio = mb / ma;

	/* Small-sample expansion.  Variance of the log ratio (delta method)
	 * per side: unbiased s^2/(n m^2) vs the bootstrap's plug-in
	 * s^2 (n-1)/(n^2 m^2).  Without a usable mean, raw variances. */
	double ra = va / (double)na, rb = vb / (double)nb;
	if (mb != 0) {
		ra /= ma * ma;
		rb /= mb * mb;
	}
	double plug = ra * (double)(na - 1) / (double)na + rb * (double)(nb - 1) / (double)nb;
	double k = sqrt((ra + rb) / plug);
	double df = welch_df(ra, rb, na, nb);
	double level = gsl_cdf_ugaussian_Q(k * gsl_cdf_tdist_Qinv(alpha / 2, df));

	double *r = malloc(B * sizeof *r);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r || !rng) {
		free(r);
		if (rng)
			gsl_rng_free(rng);
		return -1;
	}
	gsl_rng_set(rng, seed);
	size_t le = 0, ge = 0;
	for (size_t i = 0; i < B; i++) {
		double sa = 0, sb = 0;
		for (size_t j = 0; j < na; j++)
			sa += a[gsl_rng_uniform_int(rng, na)];
		for (size_t j = 0; j < nb; j++)
			sb += b[gsl_rng_uniform_int(rng, nb)];
		double ra_ = sa / (double)na, rb_ = sb / (double)nb;
		/* a zero baseline resample (data with zeros): an infinite
		 * ratio, which pushes the interval open, never a NaN */
		double q = ra_ != 0 ? rb_ / ra_ : (rb_ < 0 ? -INFINITY : INFINITY);
		r[i] = q;
		le += q <= 1.0;
		ge += q >= 1.0;
	}
	gsl_rng_free(rng);
	qsort(r, B, sizeof *r, cmp_double);
	double lo = nf_quantile_sorted(r, B, level);
	double hi = nf_quantile_sorted(r, B, 1 - level);
	free(r);

	/* p: the alpha at which the expanded interval would just reach 1,
	 * with the Monte Carlo tail fraction (count+1)/(B+1) */
	double f = ((double)(le < ge ? le : ge) + 1.0) / ((double)B + 1.0);
	double p = 1.0;
	if (f < 0.5)
		p = 2.0 * gsl_cdf_tdist_Q(gsl_cdf_ugaussian_Qinv(f) / k, df);
	out->p = p > 1.0 ? 1.0 : p;
	if (!isfinite(lo) || !isfinite(hi))
		return 1;
	out->lo = lo;
	out->hi = hi;
	return 0;
}

/* ------------------------------------------------------------------ ANOVA */

int nf_anova(const double *const *g, const size_t *n, size_t k,
	     struct nf_anova *out)
{
	if (!g || !n || !out || k < 2)
		return -1;
	size_t N = 0;
	double sum = 0, first = NAN;
	int all_equal = 1;
	for (size_t i = 0; i < k; i++) {
		if (!g[i] || n[i] == 0 || !all_finite(g[i], n[i]))
			return -1;
		for (size_t j = 0; j < n[i]; j++) {
			if (N == 0 && j == 0)
				first = g[i][0];
			all_equal &= g[i][j] == first;
			sum += g[i][j];
		}
		N += n[i];
	}
	if (N <= k || all_equal)
		return -1;
	double grand = sum / (double)N, ssb = 0, ssw = 0;
	for (size_t i = 0; i < k; i++) {
		double m, v;
		mean_var(g[i], n[i], &m, &v);
		ssb += (double)n[i] * (m - grand) * (m - grand);
		ssw += v * (double)(n[i] - 1);
	}
	out->df_between = (double)(k - 1);
	out->df_within = (double)(N - k);
	if (ssw == 0) {
		out->f = INFINITY;
		out->p = 0;
		return 0;
	}
	out->f = (ssb / out->df_between) / (ssw / out->df_within);
	out->p = gsl_cdf_fdist_Q(out->f, out->df_between, out->df_within);
	return 0;
}

/* --------------------------------------------------------------- Spearman */

int nf_spearman(const double *x, const double *y, size_t n, double *rho,
		double *p)
{
	if (!x || !y || !rho || !p || n < 3 || !all_finite(x, n) || !all_finite(y, n))
		return -1;
	double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
	if (!rx || !ry || rank_avg(x, n, rx, NULL) < 0 || rank_avg(y, n, ry, NULL) < 0) {
		free(rx);
		free(ry);
		return -1;
	}
	double mr = ((double)n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = rx[i] - mr, dy = ry[i] - mr;
		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	free(rx);
	free(ry);
	if (sxx == 0 || syy == 0)
		return -1; /* a constant variable */
	double r = sxy / sqrt(sxx * syy);
	if (r > 1)
		r = 1;
	if (r < -1)
		r = -1;
	double dof = (double)n - 2;
	*rho = r;
	if (fabs(r) == 1) {
		*p = 0;
	} else {
		double t = r * sqrt(dof / ((r + 1.0) * (1.0 - r)));
		*p = t_two_sided(t, dof);
	}
	return 0;
}

/* ------------------------------------------------------------------- Holm */

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *pa, const void *pb)
{
	const struct pidx *a = pa, *b = pb;
	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);
}

int nf_holm(const double *p, size_t m, double *p_adj)
{
	if ((!p || !p_adj) && m)
		return -1;
	struct pidx *s = malloc((m ? m : 1) * sizeof *s);
	if (!s)
		return -1;
	size_t mf = 0;
	for (size_t i = 0; i < m; i++) {
		if (isnan(p[i]))
			continue;
		s[mf].p = p[i];
		s[mf].i = i;
		mf++;
	}
	for (size_t i = 0; i < m; i++)
		if (isnan(p[i]))
			p_adj[i] = NAN;
	qsort(s, mf, sizeof *s, cmp_pidx);
	double run = 0;
	for (size_t j = 0; j < mf; j++) {
		double v = (double)(mf - j) * s[j].p;
		if (v > 1)
			v = 1;
		if (v > run)
			run = v;
		p_adj[s[j].i] = run;
	}
	free(s);
	return 0;
}
