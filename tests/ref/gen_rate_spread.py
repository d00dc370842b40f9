#!/usr/bin/python3
"""Generate tests/data/ref_rate_spread.txt: the values of a rate (higher
is better) and what run, show, list and the run JSON must print for it:
the harmonic mean, and the CV and the relative standard error of the
reciprocals (doc/statistics.md, "Summary"), from SciPy.

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_rate_spread.py > tests/data/ref_rate_spread.txt

Line format: "values V1 V2 ...", then "hmean H", "cv_pct C", "sem_pct S",
and "amean_cv_pct A" (the arithmetic CV the summary printed before, which
the test makes sure is not shown).
"""
import numpy as np
from scipy import stats

x = np.array([91.5, 120.25, 64.0, 88.75, 105.5, 72.25, 99.0, 81.5])
r = 1 / x
cv = 100 * stats.variation(r, ddof=1)
print("values " + " ".join("%g" % v for v in x))
print("hmean %.10g" % stats.hmean(x))
print("cv_pct %.10g" % cv)
print("sem_pct %.10g" % (100 * stats.sem(r) / r.mean()))
print("amean_cv_pct %.10g" % (100 * stats.variation(x, ddof=1)))
