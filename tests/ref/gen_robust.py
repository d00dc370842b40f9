#!/usr/bin/python3
"""Generate tests/data/ref_robust.txt: SciPy's reference values for the
robust statistics of src/stats/ (robust.h, profdelta.h), checked by
tests/unit/test_robust_reference.c.

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_robust.py > tests/data/ref_robust.txt

Deterministic: numpy.random.default_rng(20240902).  Floats are written
with repr() (round-trip exact).  Line format:

    case NAME
    a N x1 ... xN          baseline sample
    b N y1 ... yN          variant sample
    yuen T DF P            scipy.stats.ttest_ind(a, b, equal_var=False, trim=0.2);
                           DF from SciPy's own _ttest_trim_var_mean_len
    yuen_ci ALPHA LO HI    Fieller's CI of trim_mean(b)/trim_mean(a) at 1-ALPHA with
                           Yuen's squared standard errors d and df (numpy.roots;
                           "unbounded" if the leading coefficient is <= 0)
    welch0 T P             scipy.stats.ttest_ind(a, b, equal_var=False, trim=0)
    tmean TA TB            scipy.stats.trim_mean(x, 0.2)
    mad MA MB              scipy.stats.median_abs_deviation(x)   (unscaled)
    rcv RA RB              100 * sd(winsorize(x, (0.2, 0.2)), ddof=1) / (k_n * |trim_mean|),
                           k_n the median of that sd on normal data (robust_k below,
                           doc/statistics.md "Robust spread")
    hd_a K q1 v1 ... qK vK scipy.stats.mstats.hdquantiles(a, prob=q)
    hd_b K ...             the same for b
    end

    pcase NAME ALPHA NB NV NSYM     profile deltas: NB + NV rows of NSYM shares
    row x1 ... xNSYM                (NB baseline rows, then NV variant rows)
    pd S DELTA LO HI P     per symbol S: mean(var) - mean(base), Welch CI
                           (scipy.stats.t.ppf, Welch df), scipy.stats.ttest_ind(
                           var, base, equal_var=False) p
    pend
"""
import math
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats import mstats
from scipy.stats import _stats_py

rng = np.random.default_rng(20240902)
ALPHA = 0.05
QS = [0.0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 0.95, 1.0]


def fmt(v):
    return repr(float(v))


def yuen_parts(x):
    v, m, h = _stats_py._ttest_trim_var_mean_len(np.asarray(x, float), 0.2, 0)
    return float(v) / h, float(m), h


def yuen_ci(a, b, alpha):
    da, ma, ha = yuen_parts(a)
    db, mb, hb = yuen_parts(b)
    df = (da + db) ** 2 / (da ** 2 / (ha - 1) + db ** 2 / (hb - 1))
    t = stats.t.ppf(1 - alpha / 2, df)
    c2, c1, c0 = ma * ma - t * t * da, -2 * ma * mb, mb * mb - t * t * db
    if c2 <= 0:
        return None
    r = np.sort(np.real(np.roots([c2, c1, c0])))
    return float(r[0]), float(r[1])


# k_n for n = 5..40, as printed by tests/ref/gen_robust_cv_consts.py
ROBUST_K = [
    0.4662, 0.5790, 0.6518, 0.7032, 0.7407, 0.5656, 0.6113, 0.6481, 0.6782,
    0.7039, 0.5932, 0.6216, 0.6464, 0.6681, 0.6869, 0.6060, 0.6267, 0.6453,
    0.6620, 0.6773, 0.6137, 0.6295, 0.6446, 0.6585, 0.6709, 0.6187, 0.6319,
    0.6444, 0.6560, 0.6667, 0.6219, 0.6335, 0.6440, 0.6540, 0.6635, 0.6246
]


def winsor_c(g):
    z = stats.norm.isf(g)
    return math.sqrt((1 - 2 * g) - 2 * z * stats.norm.pdf(z) + 2 * g * z * z)


def robust_k(n):
    g = int(n * 0.2)
    if g == 0:
        return math.sqrt(stats.chi2.ppf(0.5, n - 1) / (n - 1))
    if 5 <= n <= 40:
        return ROBUST_K[n - 5]
    h = n - 2 * g
    return winsor_c(g / n) * math.sqrt(stats.chi2.ppf(0.5, h - 1) / (h - 1))


def robust_cv(x):
    g = 0.2
    w = np.asarray(mstats.winsorize(np.asarray(x, float), limits=(g, g)))
    return 100 * np.std(w, ddof=1) / (robust_k(len(x)) * abs(stats.trim_mean(x, 0.2)))


def emit_case(name, a, b, hd_only=False):
    out = [f"case {name}",
           f"a {len(a)} " + " ".join(fmt(v) for v in a),
           f"b {len(b)} " + " ".join(fmt(v) for v in b)]
    if not hd_only:
        r = stats.ttest_ind(a, b, equal_var=False, trim=0.2)
        da, _, ha = yuen_parts(a)
        db, _, hb = yuen_parts(b)
        df = (da + db) ** 2 / (da ** 2 / (ha - 1) + db ** 2 / (hb - 1))
        out.append(f"yuen {fmt(r.statistic)} {fmt(df)} {fmt(r.pvalue)}")
        ci = yuen_ci(a, b, ALPHA)
        out.append(f"yuen_ci {ALPHA} " + ("unbounded" if ci is None
                                          else f"{fmt(ci[0])} {fmt(ci[1])}"))
        w = stats.ttest_ind(a, b, equal_var=False, trim=0)
        out.append(f"welch0 {fmt(w.statistic)} {fmt(w.pvalue)}")
        out.append(f"tmean {fmt(stats.trim_mean(a, 0.2))} {fmt(stats.trim_mean(b, 0.2))}")
        out.append(f"mad {fmt(stats.median_abs_deviation(a))} "
                   f"{fmt(stats.median_abs_deviation(b))}")
        out.append(f"rcv {fmt(robust_cv(a))} {fmt(robust_cv(b))}")
    for side, x in (("a", a), ("b", b)):
        hd = mstats.hdquantiles(np.asarray(x, float), prob=QS)
        out.append(f"hd_{side} {len(QS)} " +
                   " ".join(f"{q} {fmt(v)}" for q, v in zip(QS, np.asarray(hd))))
    out.append("end")
    print("\n".join(out))


def emit_pcase(name, base, var, alpha):
    nb, ns = base.shape
    nv = var.shape[0]
    print(f"pcase {name} {alpha} {nb} {nv} {ns}")
    for row in np.vstack([base, var]):
        print("row " + " ".join(fmt(v) for v in row))
    for s in range(ns):
        a, b = base[:, s], var[:, s]
        d = b.mean() - a.mean()
        va, vb = a.var(ddof=1) / nb, b.var(ddof=1) / nv
        if va + vb == 0:
            continue
        df = (va + vb) ** 2 / (va ** 2 / (nb - 1) + vb ** 2 / (nv - 1))
        half = stats.t.ppf(1 - alpha / 2, df) * math.sqrt(va + vb)
        p = stats.ttest_ind(b, a, equal_var=False).pvalue
        print(f"pd {s} {fmt(d)} {fmt(d - half)} {fmt(d + half)} {fmt(p)}")
    print("pend")


def main():
    print("# noisefloor robust statistics reference values -- generated, do not edit.")
    print("# command: /usr/bin/python3 tests/ref/gen_robust.py > tests/data/ref_robust.txt")
    print(f"# scipy {scipy.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}, numpy.random.default_rng(20240902)")
    print("# format: see the docstring of tests/ref/gen_robust.py")

    def normal(n, m=100.0, cv=0.02):
        return list(m * (1 + cv * rng.standard_normal(n)))

    def lognormal(n, s):
        return list(rng.lognormal(0.0, s, n))

    # the outlier of the diagnosis: 5 values at CV 0.5 % plus one +60 %
    clean = normal(5, 6.2, 0.005)
    emit_case("outlier_n6", clean[:3] + [6.2 * 1.6] + clean[3:], normal(5, 6.2, 0.005))
    emit_case("normal_n2_n3", normal(2), normal(3))
    emit_case("normal_n3_n4", normal(3), normal(4, 101))
    emit_case("normal_n5_n5", normal(5), normal(5, 103))
    emit_case("normal_n7_n9", normal(7), normal(9, 99))
    emit_case("lognormal_n10_n12", lognormal(10, 0.2), lognormal(12, 0.3))
    emit_case("normal_n20_shift", normal(20), normal(20, 102))
    emit_case("normal_n30_far", normal(30), normal(30, 110))
    x = normal(33)
    x[4] *= 1.5
    x[17] *= 2.0
    emit_case("outliers_n33_n50", x, normal(50, 100.5))
    # two clusters: 70 % at 1.00 +- 1 %, 30 % at 1.75 +- 10 %
    def clusters(n, fast=1.0):
        k = int(round(0.7 * n))
        return list(np.concatenate([fast * (1 + 0.01 * rng.standard_normal(k)),
                                    1.75 * (1 + 0.10 * rng.standard_normal(n - k))]))
    emit_case("clusters_n50", clusters(50), clusters(50, 1.02))
    emit_case("lognormal_n200_n150", lognormal(200, 0.5), lognormal(150, 0.5))
    emit_case("ties_n15", list(rng.integers(10, 14, 15).astype(float)),
              list(rng.integers(11, 15, 15).astype(float)))
    emit_case("negative_n8_n9", list(rng.normal(-1, 2, 8)), list(rng.normal(0.5, 2, 9)))
    emit_case("heavy_n40", list(100 + 3 * rng.standard_t(2, 40)),
              list(101 + 3 * rng.standard_t(2, 41)))
    # large samples: the Harrell-Davis weights window (n > 2000)
    emit_case("hd_n1000_n2500", list(rng.lognormal(0, 0.3, 1000)),
              list(100 + rng.standard_normal(2500)), hd_only=True)

    # profile deltas: 5 repetitions a side, shares in percent
    def shares(nrep, base_pct, jitter):
        m = np.array(base_pct)[None, :] * (1 + jitter * rng.standard_normal((nrep, len(base_pct))))
        return np.clip(m, 0, None)
    emit_pcase("prof5", shares(5, [30, 12, 8.7, 5, 0.5, 0], 0.05),
               shares(5, [30, 13, 7.1, 5, 0.6, 0.01], 0.05), ALPHA)
    emit_pcase("prof3_4", shares(3, [50, 20, 2], 0.1), shares(4, [45, 20, 2.5], 0.1), 0.01)


main()
