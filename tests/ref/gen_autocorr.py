#!/usr/bin/python3
"""Generate tests/data/ref_autocorr.txt: reference values for the lag-1
autocorrelation, its test, the AR(1) variance inflation of the mean and the
widened paired t (src/stats/autocorr.c), checked by
tests/unit/test_autocorr.c.

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_autocorr.py > tests/data/ref_autocorr.txt

statsmodels is not installed, so nothing here comes from a library's
autocorrelation routine: r is computed from its definition with NumPy; its
null moments under independent normal values from the quadratic forms
themselves, with the matrices built explicitly (A = M D M, M the centring
matrix, D the symmetric lag-1 matrix / 2; E[r] = tr A / (n-1),
E[r^2] = (tr(A)^2 + 2 tr(A^2)) / ((n-1)(n+1)), by the independence of r
and the sum of squares), not from the closed forms the C code uses; the
normal tail from scipy.stats.norm; the inflation by summing the AR(1)
autocovariances; the paired t from scipy.stats.ttest_1samp and then
widened by hand; t tails from scipy.stats.t.  The series are seeded
numpy draws (AR(1) of several coefficients, a trend), constant data, an
alternating series and one of two values in runs (a large effect, strongly
correlated).
Line format:

    case NAME
    x N x1 ... xN
    r R E0 SD0 Z PPOS PTWO      lag-1 r, its null mean and SD, z, one-sided
                                 (positive) and two-sided normal p
    rule WIDENED RHO F DF       the rule: p_pos < 0.3 and n >= 8 -> Kendall's
                                 rho = (n r + 1)/(n - 4) in [0, 0.8], f, and
                                 df = max(n (1 - rho^2)/(1 + rho^2) - 1, 1)
    t T DF P LO HI              the paired t of x (as log-ratios) at alpha
                                 0.05 after the widening: t, df, two-sided p,
                                 CI of the mean
    infl RHO N F                nf_autocorr_inflation(RHO, N)
"""
import numpy as np
import scipy
import scipy.stats as ss
import sys

def r_and_null(x):
    n = len(x)
    c = x - x.mean()
    # constant data: r = 0 (numpy's mean of nine 0.03 is not exactly 0.03)
    r = 0.0 if np.all(x == x[0]) else float((c[:-1] * c[1:]).sum() / (c * c).sum())
    M = np.eye(n) - np.ones((n, n)) / n
    D = np.zeros((n, n))
    for i in range(n - 1):
        D[i, i + 1] = D[i + 1, i] = 0.5
    A = M @ D @ M
    tra, tra2 = np.trace(A), np.trace(A @ A)
    e0 = tra / (n - 1)
    v0 = (tra ** 2 + 2 * tra2) / ((n - 1) * (n + 1)) - e0 ** 2
    sd0 = np.sqrt(v0)
    z = (r - e0) / sd0
    return r, e0, sd0, z, ss.norm.sf(z), min(1.0, 2 * ss.norm.sf(abs(z)))

def inflation(rho, n):
    # n Var(mean)/sigma^2 from the AR(1) autocovariances rho^|i-j|
    i = np.arange(n)
    g = (rho ** np.abs(i[:, None] - i[None, :])).sum() / n
    return g * (n - 1) / (n - g)

def rule(x):
    n = len(x)
    if n < 8 or np.all(x == x[0]):  # constant data: nothing to widen
        return 0, 0.0, 1.0, n - 1.0
    r, e0, sd0, z, pp, p2 = r_and_null(x)
    if not pp < 0.3:
        return 0, 0.0, 1.0, n - 1.0
    rho = min((n * r + 1) / (n - 4), 0.8)
    if not rho > 0:
        return 0, 0.0, 1.0, n - 1.0
    f = inflation(rho, n)
    # df: Bartlett's Var(s^2) of AR(1), 2 sigma^4 (1 + rho^2)/(n (1 - rho^2)),
    # matched to a chi-square's, less one for the mean
    return 1, rho, f, max(n * (1 - rho * rho) / (1 + rho * rho) - 1, 1.0)

def ar1(rng, n, rho, sd=0.02, mean=0.0):
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0]
    for i in range(1, n):
        x[i] = rho * x[i - 1] + np.sqrt(1 - rho * rho) * e[i]
    return mean + sd * x

rng = np.random.default_rng(20240612)
cases = []
for n, rho in [(4, 0.0), (8, 0.5), (10, 0.0), (10, 0.3), (12, 0.6), (20, 0.0), (20, 0.3),
               (20, -0.4), (30, 0.3), (40, 0.3), (40, 0.8), (60, 0.1), (200, 0.3)]:
    cases.append((f"ar1_n{n}_rho{rho}", ar1(rng, n, rho, mean=0.01)))
cases.append(("trend_n15", 0.001 * np.arange(15) + ar1(rng, 15, 0.0, sd=0.002)))
cases.append(("constant_n9", np.full(9, 0.03)))
cases.append(("alternating_n10", np.array([0.01, -0.01] * 5)))
# a p99 in whole microseconds, 3 or 4 in runs, against 3500: r 0.458, rho 0.8
cases.append(("runs_3_4_n12", np.log(3500 / np.array([3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3.0]))))

print("# noisefloor autocorrelation reference values -- generated, do not edit.")
print("# command: /usr/bin/python3 tests/ref/gen_autocorr.py > tests/data/ref_autocorr.txt")
print(f"# scipy {scipy.__version__}, numpy {np.__version__}, python {sys.version.split()[0]}")
print("# format: see the docstring of tests/ref/gen_autocorr.py")
for name, x in cases:
    n = len(x)
    print(f"case {name}")
    print("x", n, " ".join(repr(float(v)) for v in x))
    print("r", " ".join(repr(float(v)) for v in r_and_null(x)))
    w, rho, f, df = rule(x)
    print("rule", w, repr(float(rho)), repr(float(f)), repr(float(df)))
    sd = x.std(ddof=1)
    if sd > 0 and not np.all(x == x[0]):
        m = x.mean()
        se = sd * np.sqrt(f) / np.sqrt(n)
        t = m / se
        p = min(1.0, 2 * ss.t.sf(abs(t), df))
        h = ss.t.isf(0.025, df) * se
        if not w:  # unwidened: the same as scipy's one-sample t
            ref = ss.ttest_1samp(x, 0.0)
            assert abs(ref.statistic - t) <= 1e-9 * abs(t) and abs(ref.pvalue - p) <= 1e-9
        print("t", repr(float(t)), repr(float(df)), repr(float(p)), repr(float(m - h)),
              repr(float(m + h)))
for rho, n in [(0.0, 10), (0.3, 10), (0.3, 20), (0.3, 1000), (0.8, 8), (-0.5, 12), (0.5, 2)]:
    print("infl", repr(rho), n, repr(float(inflation(rho, n))))
