#!/usr/bin/python3
"""Generate tests/data/ref_zero_base.txt: SciPy's reference values for a
comparison whose baseline mean is 0 (a count that stayed 0, or values
around 0), checked by tests/unit/test_verdict.c (nf_compare_samples with
zero_base: the test runs on the values, the CI is that of the difference).

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_zero_base.py > tests/data/ref_zero_base.txt

The samples are written literally below (no random numbers).  Floats are
written with repr() (round-trip exact).  Line format:

    case NAME
    a N x1 ... xN          baseline sample (mean 0)
    b N y1 ... yN          variant sample
    welch T DF P           scipy.stats.ttest_ind(a, b, equal_var=False); DF Welch's
    welch_diff ALPHA LO HI mean(b) - mean(a) -+ scipy.stats.t.ppf(1 - ALPHA/2, DF) *
                           sqrt(var(a)/na + var(b)/nb)
    mwu P METHOD           scipy.stats.mannwhitneyu(a, b, use_continuity=True,
                           method=METHOD), METHOD as method='auto' chooses it
    yuen P DF              scipy.stats.ttest_ind(a, b, equal_var=False, trim=0.2);
                           DF from SciPy's _ttest_trim_var_mean_len
    yuen_diff ALPHA LO HI  trim_mean(b) - trim_mean(a) -+ t.ppf(1 - ALPHA/2, DF) *
                           sqrt(d_a + d_b), d the squared standard errors of Yuen
                           ("unbounded" when the trimmed mean of a is not 0)
    verdict V              the verdict for a lower-is-better metric by welch:
                           regressed / improved when P < ALPHA and the
                           difference's CI excludes 0 (by its sign), else
                           inconclusive
    end
"""
import math
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats import _stats_py

ALPHA = 0.05


def fmt(v):
    return repr(float(v))


def auto_method(a, b):
    if len(a) > 8 and len(b) > 8:
        return "asymptotic"
    xy = np.concatenate([a, b])
    return "asymptotic" if len(np.unique(xy)) < len(xy) else "exact"


def yuen_parts(x):
    v, m, h = _stats_py._ttest_trim_var_mean_len(np.asarray(x, float), 0.2, 0)
    return float(v) / h, float(m), h


def emit(name, a, b):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    assert a.mean() == 0
    out = [f"case {name}",
           f"a {len(a)} " + " ".join(fmt(v) for v in a),
           f"b {len(b)} " + " ".join(fmt(v) for v in b)]
    w = stats.ttest_ind(a, b, equal_var=False)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    out.append(f"welch {fmt(w.statistic)} {fmt(df)} {fmt(w.pvalue)}")
    d = b.mean() - a.mean()
    half = stats.t.ppf(1 - ALPHA / 2, df) * math.sqrt(va + vb)
    out.append(f"welch_diff {ALPHA} {fmt(d - half)} {fmt(d + half)}")
    m = auto_method(a, b)
    u = stats.mannwhitneyu(a, b, use_continuity=True, alternative="two-sided", method=m)
    out.append(f"mwu {fmt(u.pvalue)} {m}")
    y = stats.ttest_ind(a, b, equal_var=False, trim=0.2)
    da, ta, ha = yuen_parts(a)
    db, tb, hb = yuen_parts(b)
    ydf = (da + db) ** 2 / (da ** 2 / (ha - 1) + db ** 2 / (hb - 1))
    out.append(f"yuen {fmt(y.pvalue)} {fmt(ydf)}")
    if ta == 0:
        yh = stats.t.ppf(1 - ALPHA / 2, ydf) * math.sqrt(da + db)
        out.append(f"yuen_diff {ALPHA} {fmt(tb - ta - yh)} {fmt(tb - ta + yh)}")
    else:
        out.append(f"yuen_diff {ALPHA} unbounded")
    lo, hi = d - half, d + half
    if w.pvalue < ALPHA and (lo > 0 or hi < 0):
        v = "regressed" if lo > 0 else "improved"
    else:
        v = "inconclusive"
    out.append(f"verdict {v}")
    out.append("end")
    print("\n".join(out))


def main():
    print("# noisefloor zero-baseline reference values -- generated, do not edit.")
    print("# command: /usr/bin/python3 tests/ref/gen_zero_base.py > tests/data/ref_zero_base.txt")
    print(f"# scipy {scipy.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}")
    print("# format: see the docstring of tests/ref/gen_zero_base.py")
    # major page faults: none, then a few
    emit("faults_0_vs_556", [0, 0, 0], [5, 5, 6])
    # cpu-migrations: pinned (0) against unpinned (mean 2.4)
    emit("migrations_pinned", [0] * 10, [2, 3, 2, 3, 2, 2, 3, 2, 3, 2])
    # one fault in three: not enough to tell
    emit("faults_0_vs_007", [0, 0, 0], [0, 0, 7])
    # values around 0 on the baseline, higher on the variant
    emit("around0_up", [-1, 1, -2, 2, 0], [0.5, 1.5, 1, 2, 0.25])
    # ... and lower on the variant
    emit("around0_down", [-1, 1, -2, 2, 0], [-3, -4, -3.5, -5, -2])
    # rare events: 0 against a few in twelve repetitions
    emit("rare_12", [0] * 12, [0, 1, 0, 2, 1, 0, 0, 1, 3, 0, 1, 0])


if __name__ == "__main__":
    main()
