# Reference for test_verdict.c's test_compare_summary: Welch's t-test from
# summary statistics, two perf stat -r 10 blocks ("( +- x% )" is the
# standard error of the mean in percent of it: sd = x/100 * mean * sqrt(N)).
# Run with Debian's python3 (SciPy): /usr/bin/python3 tests/ref/gen_welch_summary.py
import math
from scipy import stats

for ma, xa, mb, xb, n in [(14.5464, 0.52, 14.2000, 0.35, 10), (100.0, 2.0, 101.0, 3.0, 5)]:
    sa = xa / 100 * ma * math.sqrt(n)
    sb = xb / 100 * mb * math.sqrt(n)
    r = stats.ttest_ind_from_stats(ma, sa, n, mb, sb, n, equal_var=False)
    print("%r, %r, %r, %r, %d: p %r" % (ma, sa, mb, sb, n, r.pvalue))
