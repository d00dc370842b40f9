#!/usr/bin/python3
"""Print the finite-sample constants k_n of the robust CV (src/stats/robust.c,
robust_k[]): the median of s_w / sigma over normal samples of size n, s_w
the standard deviation (ddof 1) of the 20% winsorized sample, g =
floor(0.2 n) values set to the (g+1)-th at each end.  n = 5..40, where
g >= 1 and no closed form is at hand (g = 0, n < 5, is the plain SD:
k_n = sqrt(chi2.ppf(0.5, n-1) / (n-1)) exactly, and above 40 robust.c uses
c(g/n) * sqrt(chi2.ppf(0.5, h-1) / (h-1)), h = n - 2g, within 1.2% of the
simulated median).

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_robust_cv_consts.py

and paste the output into robust.c.  Deterministic:
numpy.random.default_rng(20261201), 2,000,000 samples per n (the median's
standard error is about 0.05% of k_n).  Printed to 4 significant digits.
"""
import numpy as np

rng = np.random.default_rng(20261201)
out = []
for n in range(5, 41):
    g = int(n * 0.2)
    meds = []
    sw = np.empty(0)
    for _ in range(10):
        s = np.sort(rng.standard_normal((200000, n)), axis=1)
        s[:, :g] = s[:, [g]]
        s[:, n - g:] = s[:, [n - g - 1]]
        sw = np.concatenate([sw, s.std(axis=1, ddof=1)])
    out.append(f"{np.median(sw):.4f}")
for i in range(0, len(out), 9):
    print("    " + ", ".join(out[i:i + 9]) + ",")
