/* summary.c — n, means, spread, quantiles. */
#include "stats/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

double nf_quantile_sorted(const double *s, size_t n, double q)
{
	if (!s || n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	double frac = h - (double)lo;
	/* numpy's formula: a + (b - a) * frac, exact at frac == 0 */
	return s[lo] + (s[lo + 1] - s[lo]) * frac;
}

double nf_quantile(const double *x, size_t n, double q)
{
	if (!x || n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	double *s = malloc(n * sizeof *s);
	if (!s)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i])) {
			free(s);
			return NAN;
		}
		s[i] = x[i];
	}
	qsort(s, n, sizeof *s, cmp_double);
	double v = nf_quantile_sorted(s, n, q);
	free(s);
	return v;
}

int nf_summarize(const double *x, size_t n, struct nf_summary *out)
{
	if (!out)
		return -1;
	out->n = n;
	out->mean = out->hmean = out->stddev = out->cv_pct = out->sem_pct = NAN;
	out->min = out->max = out->median = NAN;
	if (!x || n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -1;

	double sum = 0, min = x[0], max = x[0], rsum = 0;
	int positive = 1;
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < min)
			min = x[i];
		if (x[i] > max)
			max = x[i];
		if (x[i] > 0)
			rsum += 1.0 / x[i];
		else
			positive = 0;
	}
	double mean = sum / (double)n;
	/* Second pass with the compensation term: accurate even when the
	 * spread is tiny relative to the mean (counters of ~1e9 +- 10). */
	double ss = 0, comp = 0;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;
		ss += d * d;
		comp += d;
	}
	double var = n > 1 ? (ss - comp * comp / (double)n) / (double)(n - 1) : 0.0;
	if (var < 0 || min == max)
		var = 0;
	if (min == max)
		mean = min; /* constant data: exactly that constant */
	double sd = sqrt(var);

	double median = nf_quantile(x, n, 0.5);
	if (isnan(median))
		return -1; /* out of memory */

	out->mean = mean;
	out->hmean = positive ? (double)n / rsum : NAN;
	out->stddev = sd;
	out->cv_pct = mean != 0 ? 100.0 * sd / mean : NAN;
	out->sem_pct = mean != 0 ? 100.0 * (sd / sqrt((double)n)) / mean : NAN;
	out->min = min;
	out->max = max;
	out->median = median;
	return 0;
}
