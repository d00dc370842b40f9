#!/usr/bin/python3
"""Generate tests/data/ref_changepoint.txt: change points of stored series
by a straightforward, independent E-Divisive implementation in NumPy/SciPy,
checked by tests/unit/test_changepoint.c against src/stats/changepoint.c
(doc/statistics.md, "Change points", defines the method).

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_changepoint.py > tests/data/ref_changepoint.txt

Independent of the C code's shortcuts: the energy statistic is summed over
the full distance matrix at every split (O(N^2) a split, where the C code
keeps prefix sums in a Fenwick tree), the t-test is SciPy's
ttest_ind_from_stats, the scan correction is integrated by
scipy.integrate.quad in t (the C code uses Simpson's rule in log(t/(1-t))),
Fieller's interval comes from numpy.roots, BH from its definition.  Drift
is not modelled here: the C test runs these series with drift off.
Serial correlation (step 6) from its definitions: the lag-1 r of the
residuals within the segments, its null mean and sd from the quadratic
forms' traces of explicit n x n matrices (the C code has them in closed
form), and the variance inflation of a segment's mean from the explicit
AR(1) correlation matrix (Var(mean) = 1'R1/m^2, E[s^2] = (tr R - 1'R1/m)/(m-1);
the C code sums the series of nf_autocorr_inflation).

Deterministic: numpy.random.default_rng(20261201).  Floats with repr().
Line format:

    series NAME N MIN_SEG ALPHA THRESHOLD OUTLIER_K
    pts MEAN SD N MEAN SD N ...       the N points
    noise SD                          robust sd of a point (1.4826 MAD(diff) / sqrt 2)
    outliers K I1 ... IK
    serial R P RHO                    step 6: lag-1 r of the residuals, its p, rho assumed
                                      (nan nan 0: not tested)
    cp INDEX BEFORE AFTER CHANGE_PCT LO HI T DF P ENERGY BEYOND
    seg FROM TO RUNS MEAN SD SPLIT_P  (SPLIT_P nan: too short to split)
    end
    scan T DF N MIN_SEG P             the scan-corrected p alone
    bh M P1..PM Q1..QM                Benjamini-Hochberg q values
"""
import math
import sys

import numpy as np
import scipy
from scipy import integrate, stats

rng = np.random.default_rng(20261201)


def fmt(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    return repr(v)


# ---------------------------------------------------------------- outliers

def noise_sd(x):
    d = np.diff(x)
    if len(d) < 2:
        return 0.0
    dev = np.abs(d - np.median(d))
    mad = np.median(dev)
    s = 1.482602218505602 * mad if mad > 0 else 1.2533141373155 * dev.mean()
    return s / math.sqrt(2)


def outliers(x, k):
    n = len(x)
    sd = noise_sd(x) if n >= 3 else 0.0
    out = []
    if not (k > 0) or not (sd > 0) or n < 4:
        return out, sd
    lim = k * sd
    for i in range(n):
        left = x[max(0, i - 3):i]
        right = x[i + 1:i + 4]
        dl = x[i] - np.median(left) if len(left) else None
        dr = x[i] - np.median(right) if len(right) else None
        if dl is not None and dr is not None:
            far = abs(dl) > lim and abs(dr) > lim and (dl > 0) == (dr > 0)
        elif dl is not None:
            far = abs(dl) > lim and abs(x[i] - x[i - 1]) > lim
        else:
            far = abs(dr) > lim and abs(x[i] - x[i + 1]) > lim
        if far:
            out.append(i)
    return out, sd


# ------------------------------------------------------------------ energy

def energy_all(z, L):
    """Q(tau) for tau = L..N-L (Matteson & James 2014, alpha = 1)."""
    N = len(z)
    D = np.abs(z[:, None] - z[None, :])
    q = {}
    for t in range(L, N - L + 1):
        m, n = t, N - t
        cross = D[:t, t:].sum()
        within_l = D[:t, :t].sum() / 2
        within_r = D[t:, t:].sum() / 2
        e = 2 * cross / (m * n) - within_l / (m * (m - 1) / 2) - within_r / (n * (n - 1) / 2)
        q[t] = m * n / (m + n) * e
    return q


def best_split(z, L):
    q = energy_all(z, L)
    best = max(q.values())
    t = min(t for t, v in q.items() if v == best)
    return t, best


# ------------------------------------------------------------------- tests

RHO = 0.0  # the AR(1) coefficient the tests assume (step 6); 0: independent


def inflation(rho, m):
    """m Var(mean) / E[s^2] of m AR(1) values, from the correlation matrix."""
    i = np.arange(m)
    R = rho ** np.abs(i[:, None] - i[None, :])
    vm = R.sum() / m ** 2
    es2 = (np.trace(R) - R.sum() / m) / (m - 1)
    return m * vm / es2


def side(y, s2):
    """mean, variance of a point (floored), m, and the effective m for df."""
    m = len(y)
    v = y.var(ddof=1) if m > 1 else 0.0
    neff = m
    if RHO > 0 and m > 1:
        f = inflation(RHO, m)
        if f > 1:
            v *= f
            # Bartlett: Var(s^2) of AR(1) values is (1 + rho^2)/(1 - rho^2)
            # times that of independent ones
            neff = m * (1 - RHO ** 2) / (1 + RHO ** 2)
    floor = s2.mean()
    return y.mean(), max(v, floor), m, max(2, int(math.floor(neff + 0.5)))


def welch(y, s2, a, tau, b):
    ml, vl, nl, el = side(y[a:tau], s2[a:tau])
    mr, vr, nr, er = side(y[tau:b], s2[tau:b])
    se_l, se_r = vl / nl, vr / nr
    if RHO == 0:
        res = stats.ttest_ind_from_stats(mr, math.sqrt(vr), nr, ml, math.sqrt(vl), nl,
                                         equal_var=False)
        df = (se_l + se_r) ** 2 / (se_l ** 2 / (nl - 1) + se_r ** 2 / (nr - 1))
        return float(res.statistic), df, float(res.pvalue), (ml, vl, nl), (mr, vr, nr)
    t = (mr - ml) / math.sqrt(se_l + se_r)
    df = (se_l + se_r) ** 2 / (se_l ** 2 / (el - 1) + se_r ** 2 / (er - 1))
    # Fieller's interval sees the effective counts too, with the spread
    # that keeps each mean's variance v / m
    return t, df, 2 * stats.t.sf(abs(t), df), (ml, vl * el / nl, el), (mr, vr * er / nr, er)


def serial(y, cps):
    """Step 6: the residuals within the segments, their lag-1 r, its
    one-sided p against the null mean -j/n of j fitted levels, and the rho
    (Kendall's correction, once a level) when p < 0.3 and n >= 40."""
    n = len(y)
    if n < 8:
        return math.nan, math.nan, 0.0
    bounds = [0] + cps + [n]
    e = np.concatenate([y[a:b] - y[a:b].mean() for a, b in zip(bounds, bounds[1:])])
    c = e - e.mean()
    den = (c * c).sum()
    r = (c[:-1] * c[1:]).sum() / den if den > 0 else 0.0
    # null moments of r = x'Ax / x'Mx for independent normal x
    M = np.eye(n) - np.ones((n, n)) / n
    D = (np.eye(n, k=1) + np.eye(n, k=-1)) / 2
    A = M @ D @ M
    e0 = np.trace(A) / (n - 1)
    v0 = (np.trace(A) ** 2 + 2 * np.trace(A @ A)) / ((n - 1) * (n + 1)) - e0 ** 2
    j = len(cps) + 1
    p = float(stats.norm.sf((r + j / n) / math.sqrt(v0)))
    if not p < 0.3 or n < 40 or not n > 4 * j + 4:
        return r, p, 0.0
    rho = (n * r + j) / (n - 4 * j)
    return r, p, min(max(rho, 0.0), 0.8)


def nu(x):
    if x < 1e-8:
        return 1.0
    h = x / 2
    P = stats.norm.cdf(h)
    return (2 / x) * (P - 0.5) / (h * P + stats.norm.pdf(h))


def scan_p(t, df, N, L):
    """Siegmund's approximation to P(max over splits of |Z| >= b)."""
    pt = 2 * stats.t.sf(abs(t), df)
    if pt <= 0 or N <= 2 * L:
        return pt
    if pt >= 1:
        return 1.0
    b = stats.norm.isf(pt / 2)
    t0, t1 = L / N, 1 - L / N
    val, _ = integrate.quad(lambda s: nu(b / math.sqrt(N * s * (1 - s))) / (s * (1 - s)),
                            t0, t1, epsabs=0, epsrel=1e-11, limit=200)
    p = b * stats.norm.pdf(b) * val
    return min(1.0, max(p, pt))


def split_p(y, s2, a, tau, b, L):
    t, df, _, _, _ = welch(y, s2, a, tau, b)
    return scan_p(t, df, b - a, L)


def seeded(y, s2, a, b, L):
    """The windows at scales (b-a)/2, /4, ... >= max(4L, 20), half-overlapping,
    the last of each scale ending at b; Bonferroni over their number."""
    wins = []
    W = (b - a) // 2
    wmin = max(4 * L, 20)
    while W >= wmin:
        s = a
        while True:
            e = min(s + W, b)
            wins.append((e - W, e))
            if e == b:
                break
            s += W // 2
        W //= 2
    best = (math.inf, None)
    for ws, we in wins:
        if we - ws < 2 * L:
            continue
        tau, _ = best_split(y[ws:we], L)
        p = split_p(y, s2, ws, ws + tau, we, L) * len(wins)
        if p < best[0]:
            best = (p, ws + tau)
    return best


def detect(y, s2, L, alpha):
    N = len(y)
    cps = []
    stack = [(0, N)]
    while stack:
        a, b = stack.pop()
        if b - a < 2 * L:
            continue
        tau, _ = best_split(y[a:b], L)
        tau += a
        if not split_p(y, s2, a, tau, b, L) <= alpha:
            p, t2 = seeded(y, s2, a, b, L)
            if not p <= alpha:
                continue
            tau = t2
        cps.append(tau)
        stack.append((a, tau))
        stack.append((tau, b))
    cps.sort()

    def pj(j):
        a = cps[j - 1] if j else 0
        b = cps[j + 1] if j + 1 < len(cps) else N
        return split_p(y, s2, a, cps[j], b, L)

    while cps:  # merge: the weakest goes while it is not significant
        ps = [pj(j) for j in range(len(cps))]
        w = int(np.argmax(ps))
        if ps[w] <= alpha:
            break
        del cps[w]
    return cps


def fieller(ml, vl, nl, mr, vr, nr, alpha):
    Va, Vb = vl / nl, vr / nr
    df = (Va + Vb) ** 2 / (Va ** 2 / (nl - 1) + Vb ** 2 / (nr - 1))
    t = stats.t.isf(alpha / 2, df)
    # (mb - r ma)^2 = t^2 (Vb + r^2 Va)
    a2 = ml * ml - t * t * Va
    if a2 <= 0:
        return math.nan, math.nan
    r = np.sort(np.roots([a2, -2 * ml * mr, mr * mr - t * t * Vb]).real)
    return r[0], r[1]


def run_series(name, pts, L=5, alpha=0.01, thr=1.0, k=5.0):
    x = np.array([p[0] for p in pts], float)
    out, sd = outliers(x, k)
    keep = [i for i in range(len(x)) if i not in out]
    y = x[keep]
    s2 = np.array([p[1] ** 2 / p[2] if p[2] >= 2 else 0.0 for p in pts])[keep]
    N = len(y)
    global RHO
    RHO = 0.0
    cps = detect(y, s2, L, alpha) if N >= 2 * L else []
    sr, sp_, rho = serial(y, cps) if N >= 2 * L else (math.nan, math.nan, 0.0)
    RHO = rho
    if rho > 0 and cps:
        cps = detect(y, s2, L, alpha)
    print("series", name, len(x), L, fmt(alpha), fmt(thr), fmt(k))
    print("pts", " ".join("%s %s %d" % (fmt(m), fmt(s), n) for m, s, n in pts))
    print("noise", fmt(sd))
    print("outliers", len(out), " ".join(str(i) for i in out))
    print("serial", fmt(sr), fmt(sp_), fmt(rho))
    bounds = [0] + cps + [N]
    for j, tau in enumerate(cps):
        a, b = bounds[j], bounds[j + 2]
        t, df, _, (ml, vl, nl), (mr, vr, nr) = welch(y, s2, a, tau, b)
        p = scan_p(t, df, b - a, L)
        q = energy_all(y[a:b], L)[tau - a]
        lo, hi = fieller(ml, vl, nl, mr, vr, nr, alpha)
        lo, hi = 100 * (lo - 1), 100 * (hi - 1)
        beyond = int(lo > thr or hi < -thr)
        print("cp", keep[tau], fmt(ml), fmt(mr), fmt(100 * (mr / ml - 1)), fmt(lo), fmt(hi),
              fmt(t), fmt(df), fmt(p), fmt(q), beyond)
    for j in range(len(bounds) - 1):
        a, b = bounds[j], bounds[j + 1]
        seg = y[a:b]
        frm = keep[a] if j else 0
        to = keep[b] if j + 1 < len(bounds) - 1 else len(x)
        sp = math.nan
        if b - a >= 2 * L:
            tau, _ = best_split(seg, L)
            sp = split_p(y, s2, a, a + tau, b, L)
        print("seg", frm, to, b - a, fmt(seg.mean()), fmt(seg.std(ddof=1) if b - a > 1 else 0),
              fmt(sp))
    print("end")


def series(n, cv, steps=(), level=100.0, reps=5, outl=(), within=None, ar=0.0):
    """Means level * (1 + N(0, cv)) with steps (position, relative size) and
    outliers (position, size in cv); reps repetitions of sd within * level
    (default cv).  ar > 0: the N(0, cv) noise is AR(1) with that
    coefficient (same stationary sd)."""
    pts = []
    lev = level
    st = dict(steps)
    ol = dict(outl)
    w = cv if within is None else within
    e = 0.0
    for i in range(n):
        if i in st:
            lev *= 1 + st[i]
        if ar > 0:
            z = rng.normal(0, cv)
            e = z if i == 0 else ar * e + math.sqrt(1 - ar * ar) * z
            m = lev * (1 + e)
        else:
            m = lev * (1 + rng.normal(0, cv))
        if i in ol:
            m += lev * cv * ol[i]
        s = lev * w * math.sqrt(rng.chisquare(reps - 1) / (reps - 1))
        pts.append((m, s, reps))
    return pts


def main():
    print("# noisefloor change-point reference values -- generated, do not edit.")
    print("# command: /usr/bin/python3 tests/ref/gen_changepoint.py > tests/data/ref_changepoint.txt")
    print("# scipy %s, numpy %s, python %s, numpy.random.default_rng(20261201)"
          % (scipy.__version__, np.__version__, sys.version.split()[0]))
    print("# format: see the docstring of tests/ref/gen_changepoint.py")
    run_series("flat_n60", series(60, 0.02))
    run_series("one_step_n80", series(80, 0.015, [(40, 0.05)]))
    run_series("two_steps_n150", series(150, 0.02, [(50, 0.04), (110, -0.06)]))
    run_series("three_steps_n240", series(240, 0.01, [(60, 0.03), (120, -0.03), (200, 0.05)]))
    run_series("pulse_n200", series(200, 0.011, [(141, 0.041), (152, -0.04)]))
    run_series("outliers_n120", series(120, 0.015, [(70, -0.05)],
                                       outl=[(20, 9.0), (45, -12.0), (90, 8.0), (119, 10.0)]))
    run_series("late_step_n100", series(100, 0.01, [(88, 0.04)]))
    # The repetitions disagree far more than the runs: the floor holds the
    # step back.
    run_series("noisy_reps_n40", series(40, 0.002, [(20, 0.01)], reps=3, within=0.05))
    run_series("min_seg10_n90", series(90, 0.02, [(30, 0.06), (60, -0.03)]), L=10)
    run_series("alpha05_n70", series(70, 0.025, [(35, 0.03)]), alpha=0.05, thr=2.0)
    run_series("short_n8", series(8, 0.02))
    # Serially correlated runs (step 6): no step, and two real steps.
    run_series("ar03_flat_n150", series(150, 0.02, ar=0.3))
    run_series("ar05_flat_n200", series(200, 0.015, ar=0.5))
    run_series("ar03_steps_n160", series(160, 0.01, [(50, 0.06), (110, -0.05)], ar=0.3))
    for t, df, N, L in [(2.5, 30.0, 60, 5), (3.3, 18.0, 100, 5), (4.2, 50.5, 400, 5),
                        (5.0, 12.0, 40, 10), (1.0, 100.0, 200, 5), (2.8, 1e6, 50, 5),
                        (6.5, 80.0, 1000, 5), (3.0, 20.0, 10, 5)]:
        print("scan", fmt(t), fmt(df), N, L, fmt(scan_p(t, df, N, L)))
    p = np.array([0.001, 0.04, 0.03, 0.5, 0.0002, 0.04, 0.9, 0.011])
    m = len(p)
    order = np.argsort(p, kind="stable")
    q = np.empty(m)
    run = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        run = min(run, p[i] * m / rank)
        q[i] = run
    print("bh", m, " ".join(fmt(v) for v in p), " ".join(fmt(v) for v in q))


main()
