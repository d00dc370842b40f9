#!/usr/bin/python3
"""Generate tests/data/ref_compare_paired.txt: SciPy's numbers for the
rows of tests/e2e/t_compare_paired_tests.sh, an `ab` session of two
variants whose values are fixed (A and B, one value per round) and a
third label from a `run` of its own (C, compared unpaired).

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_compare_paired.py > tests/data/ref_compare_paired.txt

The samples are written literally below.  Floats are written with repr()
(round-trip exact).  One "NAME VALUE" per line:

    a_i, b_i, c_i      the values (the e2e test prints them in this order)
    mean_X             numpy.mean(X)
    trim_X             scipy.stats.trim_mean(X, 0.2): the 20% trimmed mean
    ttest_rel_p        scipy.stats.ttest_rel(log b, log a).pvalue: the
                       paired t on the per-round log-ratios
    ttest_rel_change   (exp(mean(log(b / a))) - 1) * 100
    wilcoxon_p         scipy.stats.wilcoxon(log(b / a), zero_method='pratt',
                       correction=False, method='exact').pvalue
    hl_change          (exp(HL) - 1) * 100, HL the median of the Walsh
                       averages (d_i + d_j) / 2, i <= j, of d = log(b / a)
    yuen_ca_p          scipy.stats.ttest_ind(c, a, equal_var=False,
                       trim=0.2).pvalue: yuen, C against A, unpaired
    yuen_ca_change     (trim_c / trim_a - 1) * 100
"""
import sys

import numpy as np
import scipy
import scipy.stats as st

A = [10.0, 10.2, 9.9, 14.0, 10.1, 10.0]
B = [11.0, 11.1, 10.8, 11.2, 11.0, 10.9]
C = [10.5, 10.6, 10.4, 10.7, 20.0, 10.5]

out = sys.stdout
out.write("# noisefloor paired-row reference values -- generated, do not edit.\n")
out.write("# command: /usr/bin/python3 tests/ref/gen_compare_paired.py"
          " > tests/data/ref_compare_paired.txt\n")
out.write("# scipy %s, numpy %s, python %s\n" % (scipy.__version__, np.__version__,
                                                 sys.version.split()[0]))
for name, x in (("a", A), ("b", B), ("c", C)):
    for i, v in enumerate(x):
        out.write("%s_%d %r\n" % (name, i + 1, v))
for name, x in (("a", A), ("b", B), ("c", C)):
    out.write("mean_%s %r\n" % (name, float(np.mean(x))))
    out.write("trim_%s %r\n" % (name, float(st.trim_mean(x, 0.2))))
la, lb = np.log(A), np.log(B)
d = lb - la
out.write("ttest_rel_p %r\n" % float(st.ttest_rel(lb, la).pvalue))
out.write("ttest_rel_change %r\n" % float(np.expm1(np.mean(d)) * 100))
out.write("wilcoxon_p %r\n" % float(st.wilcoxon(d, zero_method="pratt", correction=False,
                                               method="exact").pvalue))
walsh = [(d[i] + d[j]) / 2 for i in range(len(d)) for j in range(i, len(d))]
out.write("hl_change %r\n" % float(np.expm1(np.median(walsh)) * 100))
out.write("yuen_ca_p %r\n" % float(st.ttest_ind(C, A, equal_var=False, trim=0.2).pvalue))
out.write("yuen_ca_change %r\n" % float((st.trim_mean(C, 0.2) / st.trim_mean(A, 0.2) - 1) * 100))
