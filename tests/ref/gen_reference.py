#!/usr/bin/python3
"""Generate tests/data/stats_reference.txt: reference values from SciPy for
noisefloor's statistics engine (src/stats/), checked by
tests/unit/test_stats_reference.c.

Run from the repository root with Debian's Python (it has python3-scipy):

    /usr/bin/python3 tests/ref/gen_reference.py > tests/data/stats_reference.txt

Deterministic: numpy.random.default_rng(20240611).  Line format (one token
per field, floats written with repr(), i.e. round-trip exact):

    case NAME
    a N x1 ... xN          baseline sample
    b N y1 ... yN          variant sample
    c N z1 ... zN          third group (ANOVA only)
    welch T DF P           scipy.stats.ttest_ind(a, b, equal_var=False); DF Welch-Satterthwaite
    mwu U P METHOD         scipy.stats.mannwhitneyu(a, b, use_continuity=True,
                           method=METHOD), METHOD = exact | asymptotic as
                           method='auto' chooses it
    anova F P              scipy.stats.f_oneway(a, b, c)
    spearman_idx RHO P     scipy.stats.spearmanr(range(len(a)), a)   (drift check)
    spearman_ab RHO P      scipy.stats.spearmanr(a[:k], b[:k]), k = min(len)
    fieller ALPHA LO HI    Fieller CI of mean(b)/mean(a), Welch df, roots of
                           the quadratic by numpy.roots ("unbounded" if the
                           leading coefficient is <= 0)
    hl ALPHA SHIFT LO HI   Hodges-Lehmann: median of all b_j - a_i (numpy),
                           CI [D(u+1), D(mn-u)] of the sorted differences,
                           u from SciPy's exact U distribution or the normal
                           approximation (ties, continuity) -- same rule as
                           mannwhitneyu's method='auto'; "unbounded" if u < 0
    end

Lines whose SciPy value is undefined (nan: constant input) are omitted.
"""
import math
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats import _mannwhitneyu as mwu_mod

rng = np.random.default_rng(20240611)
ALPHA = 0.05


def welch(a, b):
    r = stats.ttest_ind(a, b, equal_var=False)
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return float(r.statistic), float(df), float(r.pvalue)


def auto_method(a, b):
    if len(a) > 8 and len(b) > 8:
        return "asymptotic"
    xy = np.concatenate([a, b])
    return "asymptotic" if len(np.unique(xy)) < len(xy) else "exact"


def fieller(a, b, alpha):
    ma, mb = np.mean(a), np.mean(b)
    Va, Vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    df = (Va + Vb) ** 2 / (Va ** 2 / (len(a) - 1) + Vb ** 2 / (len(b) - 1))
    t = stats.t.ppf(1 - alpha / 2, df)
    # (mb - R ma)^2 = t^2 (Vb + R^2 Va)
    c2, c1, c0 = ma * ma - t * t * Va, -2 * ma * mb, mb * mb - t * t * Vb
    if c2 <= 0:
        return None
    roots = np.sort(np.real(np.roots([c2, c1, c0])))
    return float(roots[0]), float(roots[1])


def hodges_lehmann(a, b, alpha):
    d = np.sort(np.subtract.outer(b, a).ravel())
    mn = len(d)
    shift = float(np.median(d))
    m, n = len(a), len(b)
    if auto_method(a, b) == "exact":
        cdf = mwu_mod._mwu_state.cdf(np.arange(mn + 1), m, n)
        ok = np.nonzero(cdf <= alpha / 2)[0]
        u = int(ok[-1]) if len(ok) else -1
    else:
        xy = np.concatenate([a, b])
        _, cnt = np.unique(xy, return_counts=True)
        tie = float(np.sum(cnt ** 3 - cnt))
        N = m + n
        s = math.sqrt(m * n / 12 * ((N + 1) - tie / (N * (N - 1))))
        z = stats.norm.isf(alpha / 2)
        u = math.ceil(mn / 2 - 0.5 - z * s) - 1
    if u < 0:
        return shift, None
    return shift, (float(d[u]), float(d[mn - u - 1]))


def fmt(x):
    return repr(float(x))


def emit(name, a, b, c):
    a, b, c = (np.asarray(v, dtype=float) for v in (a, b, c))
    out = ["case " + name]
    for tag, v in (("a", a), ("b", b), ("c", c)):
        out.append(f"{tag} {len(v)} " + " ".join(fmt(x) for x in v))
    t, df, p = welch(a, b)
    if not math.isnan(t):
        out.append(f"welch {fmt(t)} {fmt(df)} {fmt(p)}")
    meth = auto_method(a, b)
    r = stats.mannwhitneyu(a, b, use_continuity=True, alternative="two-sided", method=meth)
    out.append(f"mwu {fmt(r.statistic)} {fmt(r.pvalue)} {meth}")
    r = stats.f_oneway(a, b, c)
    if not math.isnan(r.statistic):
        out.append(f"anova {fmt(r.statistic)} {fmt(r.pvalue)}")
    if len(a) >= 3 and len(np.unique(a)) > 1:
        r = stats.spearmanr(np.arange(len(a)), a)
        out.append(f"spearman_idx {fmt(r.correlation)} {fmt(r.pvalue)}")
    k = min(len(a), len(b))
    if k >= 3 and len(np.unique(a[:k])) > 1 and len(np.unique(b[:k])) > 1:
        r = stats.spearmanr(a[:k], b[:k])
        out.append(f"spearman_ab {fmt(r.correlation)} {fmt(r.pvalue)}")
    f = fieller(a, b, ALPHA)
    out.append(f"fieller {fmt(ALPHA)} " + (f"{fmt(f[0])} {fmt(f[1])}" if f else "unbounded"))
    shift, ci = hodges_lehmann(a, b, ALPHA)
    out.append(f"hl {fmt(ALPHA)} {fmt(shift)} " + (f"{fmt(ci[0])} {fmt(ci[1])}" if ci else "unbounded"))
    out.append("end")
    print("\n".join(out))


def normal(n, mu=100.0, sd=2.0):
    return rng.normal(mu, sd, n)


def main():
    print("# noisefloor statistics reference values -- generated, do not edit.")
    print("# command: /usr/bin/python3 tests/ref/gen_reference.py > tests/data/stats_reference.txt")
    print(f"# scipy {scipy.__version__}, numpy {np.__version__}, python {sys.version.split()[0]},"
          " numpy.random.default_rng(20240611)")
    print("# format: see the docstring of tests/ref/gen_reference.py")
    cases = 0

    def case(name, a, b, c):
        nonlocal cases
        emit(name, a, b, c)
        cases += 1

    # small n, normal, with and without a shift
    for n in (3, 5):
        for shift in (0.0, 1.0, 5.0):
            case(f"normal_n{n}_shift{shift:g}", normal(n), normal(n, 100 + shift), normal(n))
    case("normal_n3_n5", normal(3), normal(5, 101), normal(4))
    case("normal_n8_n200", normal(8), normal(200, 100.5), normal(20))   # exact U, large side
    case("normal_n5_n12", normal(5), normal(12, 102), normal(7))
    for n in (10, 30, 200):
        for shift in (0.0, 0.5, 3.0):
            case(f"normal_n{n}_shift{shift:g}", normal(n), normal(n, 100 + shift), normal(n))
    case("unequal_var_n10_n30", normal(10, 100, 0.5), normal(30, 100.4, 5), normal(15))
    case("far_apart_n10", normal(10, 100, 1), normal(10, 120, 1), normal(10, 110, 1))  # tiny p
    case("far_apart_n5", normal(5, 100, 1), normal(5, 120, 1), normal(5, 110, 1))
    # ties: integer-valued data (counters), both small and large
    for n in (5, 10, 30):
        case(f"ties_n{n}", np.round(normal(n, 20, 2)), np.round(normal(n, 21, 2)), np.round(normal(n, 20, 2)))
    case("ties_heavy_n30", rng.integers(0, 3, 30), rng.integers(0, 4, 30), rng.integers(0, 3, 30))
    # equal data: the same array on both sides
    for n in (5, 10, 30):
        x = normal(n)
        case(f"equal_n{n}", x, x.copy(), normal(n))
    # skewed: lognormal (latencies)
    for n in (5, 10, 30, 200):
        case(f"lognormal_n{n}", rng.lognormal(0, 0.5, n), rng.lognormal(0.1, 0.5, n), rng.lognormal(0, 0.5, n))
    # a denominator mean near zero: Fieller unbounded
    case("fieller_unbounded_n5", rng.normal(0.5, 3, 5), normal(5, 10, 3), normal(5, 0, 3))
    # negative values, a trend (drift), a reversed trend
    case("negative_n10", normal(10, -5, 1), normal(10, -4, 1), normal(10, -5, 1))
    case("drift_up_n30", np.arange(30) * 0.05 + normal(30, 100, 0.3), normal(30), normal(30))
    case("drift_down_n10", 100 - np.arange(10) * 0.5 + normal(10, 0, 0.2), normal(10), normal(10))
    case("monotone_n6", np.arange(6) * 1.0 + 1, np.arange(6) * 2.0 + 3, normal(6))  # rho = 1, U = 0-ish
    print(f"# {cases} cases")


if __name__ == "__main__":
    main()
