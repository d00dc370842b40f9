#!/usr/bin/python3
"""Generate tests/data/ref_compare_orient.txt: the advice counts that
tests/e2e/t_compare_orient.sh expects, from the formulas of
doc/statistics.md ("runs_needed", "Robust spread", "Robust runs_needed").

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_compare_orient.py > tests/data/ref_compare_orient.txt

For a side of n < 5 values nothing is winsorized and the robust CV is the
plain |CV| divided by k_n = sqrt(chi2.ppf(0.5, n-1)/(n-1)).  The other side
of each pair is much quieter (CV 0.2%, or about as quiet), so the larger
robust CV is this side's.  runs_needed is the smallest n >= 2 with
t.ppf(1-alpha/2, 2n-2) * CV * sqrt(2/n) <= threshold/2 (threshold 1%,
alpha 0.05, compare's defaults).  Line format:

    NAME ROBUST_CV_PCT RUNS_NEEDED
"""
import math

import numpy as np
from scipy import stats

THR, ALPHA = 1.0, 0.05


def robust_cv_small(x):
    x = np.asarray(x, dtype=float)
    n = len(x)
    assert n < 5
    k = math.sqrt(stats.chi2.ppf(0.5, n - 1) / (n - 1))
    return 100 * np.std(x, ddof=1) / abs(np.mean(x)) / k


def runs_needed(cv):
    def enough(n):
        return stats.t.ppf(1 - ALPHA / 2, 2 * n - 2) * cv * math.sqrt(2 / n) <= THR / 2
    n = 2
    while not enough(n):
        n += 1
    return n


CASES = [
    # 3 repetitions against 200 (the 200 at CV 0.2%)
    ("m3", [100, 102, 98]),
    ("m3wide", [100, 110, 90]),
    # the run means of a label of 2 runs (100.00 and 101.50, each 5
    # repetitions within +-0.05) against 100.20 and 101.70
    ("runs", [100.0, 101.5]),
]
for name, x in CASES:
    cv = robust_cv_small(x)
    print("%s %r %d" % (name, float(cv), runs_needed(cv)))
