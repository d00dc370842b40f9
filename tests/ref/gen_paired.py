#!/usr/bin/python3
"""Generate tests/data/ref_paired.txt: SciPy's reference values for the
paired-rounds statistics of noisefloor (src/stats/paired.c), checked by
tests/unit/test_paired_reference.c.

Produced once, from the repository root, with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_paired.py > tests/data/ref_paired.txt

Deterministic: numpy.random.default_rng(20260501).  Each case is one pair of
samples measured in rounds (base[i] and var[i] in round i).  The log-ratios
are d_i = log(var_i / base_i) with Python's math.log (the C library's log,
as the C code uses), negated for a rate metric (rate 1: the analysis runs on
reciprocals, time per operation).  Line format (repr() floats, round-trip
exact):

    case NAME
    rate R                 0 or 1
    base N x1 ... xN
    var N y1 ... yN
    ttest MEAN SD T DF P   scipy.stats.ttest_rel(d, zeros) on d (= ttest_rel of
                           the logs); MEAN, SD (ddof=1) by numpy
    tci ALPHA LO HI        MEAN -+ q * SD/sqrt(N), q = scipy.stats.t.isf(ALPHA/2, DF)
                           refined by Newton steps on scipy.stats.t.sf (SciPy
                           1.10's isf, cephes' stdtrit, is off by up to ~1e-9
                           relative in the tail probability; t.sf is not)
    wilcoxon RPLUS W P METHOD
                           scipy.stats.wilcoxon(d, zero_method='pratt',
                           correction=False, method=METHOD); METHOD is exact
                           when N <= 50 and d has no zeros and no ties in |d|,
                           else approx; RPLUS = sum of the ranks
                           (scipy.stats.rankdata(|d|)) of the positive d
    hl ALPHA EST LO HI     one-sample Hodges-Lehmann: median of the Walsh
                           averages (d_i + d_j)/2, i <= j (numpy); CI
                           [W(c+1), W(M-c)] of the sorted averages, c the
                           largest count with P(R+ <= c) <= ALPHA/2 from
                           SciPy's exact signed-rank distribution when N <= 50
                           and no two d are equal, else
                           ceil(N(N+1)/4 - z*sigma) - 1 with
                           z = scipy.stats.norm.isf(ALPHA/2) and the tie
                           correction over equal d; LO HI "unbounded" if c < 0
    end
"""
import math
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats._morestats import _get_wilcoxon_distr

rng = np.random.default_rng(20260501)


def logratios(base, var, rate):
    d = [math.log(v / b) for b, v in zip(base, var)]
    return np.array([-x for x in d] if rate else d)


def t_isf(p, df):
    x = stats.t.isf(p, df)
    for _ in range(3):
        x += (stats.t.sf(x, df) - p) / stats.t.pdf(x, df)
    return x


def wilcoxon_method(d):
    a = np.abs(d)
    if len(d) <= 50 and not np.any(d == 0) and len(np.unique(a)) == len(a):
        return "exact"
    return "approx"


def hl(d, alpha):
    n = len(d)
    i, j = np.triu_indices(n)
    w = np.sort((d[i] + d[j]) / 2)
    m = len(w)
    est = float(np.median(w))
    if n <= 50 and len(np.unique(d)) == n:
        pmf = _get_wilcoxon_distr(n)
        cum = np.cumsum(pmf)
        c = -1
        for k in range(m // 2 + 1):
            if cum[k] > alpha / 2:
                break
            c = k
    else:
        _, counts = np.unique(d, return_counts=True)
        tie = float(np.sum(counts.astype(float) ** 3 - counts))
        var = n * (n + 1) * (2 * n + 1) / 24 - tie / 48
        z = stats.norm.isf(alpha / 2)
        c = math.ceil(n * (n + 1) / 4 - z * math.sqrt(var)) - 1
    if c < 0:
        return est, None, None
    return est, float(w[c]), float(w[m - c - 1])


def emit(name, base, var, rate=0, alphas=(0.05,)):
    base = [float(x) for x in base]
    var = [float(x) for x in var]
    d = logratios(base, var, rate)
    n = len(d)
    print("case", name)
    print("rate", rate)
    print("base", n, " ".join(repr(x) for x in base))
    print("var", n, " ".join(repr(x) for x in var))
    mean, sd = float(np.mean(d)), float(np.std(d, ddof=1))
    r = stats.ttest_rel(d, np.zeros(n))
    print("ttest", repr(mean), repr(sd), repr(float(r.statistic)), repr(float(n - 1)),
          repr(float(r.pvalue)))
    for a in alphas:
        h = t_isf(a / 2, n - 1) * sd / math.sqrt(n)
        print("tci", repr(a), repr(mean - h), repr(mean + h))
    if np.any(d != 0):
        meth = wilcoxon_method(d)
        w = stats.wilcoxon(d, zero_method="pratt", correction=False, method=meth)
        rk = stats.rankdata(np.abs(d))
        rplus = float(np.sum(rk[d > 0]))
        print("wilcoxon", repr(rplus), repr(float(w.statistic)), repr(float(w.pvalue)), meth)
    for a in alphas:
        est, lo, hi = hl(d, a)
        if lo is None:
            print("hl", repr(a), repr(est), "unbounded")
        else:
            print("hl", repr(a), repr(est), repr(lo), repr(hi))
    print("end")


def rounds(n, cv, shift, dist="normal", drift=0.0, scale=100.0):
    """n rounds: base and variant share a per-round drift factor."""
    f = 1 + drift * np.arange(n) / max(n - 1, 1)
    if dist == "normal":
        ea, eb = rng.normal(0, cv, n), rng.normal(0, cv, n)
        return scale * f * (1 + ea), scale * (1 + shift) * f * (1 + eb)
    if dist == "lognormal":
        return (scale * f * np.exp(rng.normal(0, cv, n)),
                scale * (1 + shift) * f * np.exp(rng.normal(0, cv, n)))
    if dist == "t3":
        ea, eb = rng.standard_t(3, n) * cv, rng.standard_t(3, n) * cv
        return scale * f * (1 + ea), scale * (1 + shift) * f * (1 + eb)
    raise ValueError(dist)


def main():
    print("# noisefloor paired-rounds reference values -- generated, do not edit.")
    print("# command: /usr/bin/python3 tests/ref/gen_paired.py > tests/data/ref_paired.txt")
    print("# scipy %s, numpy %s, python %s, numpy.random.default_rng(20260501)"
          % (scipy.__version__, np.__version__, sys.version.split()[0]))
    print("# format: see the docstring of tests/ref/gen_paired.py")
    alphas = (0.05, 0.01, 0.0031)
    for n in (2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 51, 80, 200):
        for shift in (0.0, 0.02, -0.05):
            b, v = rounds(n, 0.01, shift)
            emit("normal_n%d_shift%g" % (n, shift), b, v, 0, alphas)
    for n in (7, 25, 60):
        b, v = rounds(n, 0.2, 0.1, "lognormal")
        emit("lognormal_n%d" % n, b, v, 0, alphas)
        b, v = rounds(n, 0.02, -0.01, "t3")
        emit("t3_n%d" % n, b, v, 0, alphas)
        b, v = rounds(n, 0.01, 0.01, "normal", drift=0.05)
        emit("drift_n%d" % n, b, v, 0, alphas)
    # rate metrics (higher is better): the same analysis on reciprocals
    for n in (6, 12, 40):
        b, v = rounds(n, 0.02, 0.03, scale=5000.0)
        emit("rate_n%d" % n, b, v, 1, alphas)
    # ties and zeros: values on a coarse grid (counts, rounded times)
    for n in (8, 12, 30, 45, 70):
        b, v = rounds(n, 0.02, 0.01)
        b, v = np.round(b), np.round(v)
        emit("rounded_n%d" % n, b, v, 0, alphas)
    b = [10, 10, 10, 11, 12, 10, 10, 13, 10, 11]
    v = [10, 11, 10, 12, 12, 11, 12, 13, 11, 11]
    emit("zeros_many", b, v, 0, alphas)
    b = [4.0, 5.0, 6.0, 5.0, 4.0, 6.0, 5.0]
    v = [5.0, 4.0, 6.0, 6.0, 5.0, 5.0, 4.0]
    emit("ties_symmetric", b, v, 0, alphas)
    # a large effect: tiny p-values
    b, v = rounds(40, 0.005, 0.2)
    emit("huge_effect_n40", b, v, 0, alphas)
    b, v = rounds(12, 0.005, -0.3)
    emit("huge_effect_n12", b, v, 0, alphas)


main()
