#!/usr/bin/python3
"""Generate the runs-that-differ case of tests/e2e/t_compare_runs_anova.sh:

    tests/data/runs_anova_runs.json   runs to import (noisefloor export form)
    tests/data/ref_runs_anova.json    the ANOVA p compare must say

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_runs_anova.py

Label "a" has three runs of 12 repetitions of one metric (usecs, lower is
better); the first three repetitions of each run are 15% slower, as a
warm-up the noise diagnosis finds.  Label "b" has three runs that agree.
The run offsets are such that scipy.stats.f_oneway over every repetition
(what decides compare's units) gives p near 0.02, while the same test
without the warm-up repetitions gives a much smaller p: the note and the
diagnosis must both say the p over every repetition.  The seed is the
first from 1 that makes the case (p_all in 0.005-0.04, p without the
warm-up below p_all / 5); b's, the first from 1001 whose runs agree
(p > 0.2).
"""
import json
import random

from scipy import stats

N, WARM = 12, 3
OFFSETS = [0.0, 0.25, 0.5]


def draw(seed):
    rng = random.Random(seed)
    runs = []
    for off in OFFSETS:
        v = [round(rng.gauss(10.0 + off, 0.35), 4) for _ in range(N)]
        for i in range(WARM):
            v[i] = round(v[i] * 1.15, 4)
        runs.append(v)
    return runs


def main():
    seed = 1
    while True:
        a = draw(seed)
        p_all = float(stats.f_oneway(*a).pvalue)
        p_warm = float(stats.f_oneway(*[r[WARM:] for r in a]).pvalue)
        if 0.005 <= p_all <= 0.04 and p_warm < p_all / 5:
            break
        seed += 1
    bseed = seed + 1000
    while True:  # b's runs agree: p over 0.2
        rng = random.Random(bseed)
        b = [[round(rng.gauss(10.4, 0.35), 4) for _ in range(N)] for _ in OFFSETS]
        if stats.f_oneway(*b).pvalue > 0.2:
            break
        bseed += 1
    runs = []
    for label, groups in (("a", a), ("b", b)):
        for v in groups:
            k = len(runs)
            runs.append({
                "id": k + 1, "label": label, "workload": "bench", "args": [],
                "started": "2026-12-01T00:%02d:00Z" % k, "repeat": N, "warmup": 0,
                "status": "complete", "session": None, "note": None, "env": None,
                "metrics": [{"name": "usecs", "unit": "us", "better": "lower", "primary": True,
                             "supported": True, "values": v}],
            })
    with open("tests/data/runs_anova_runs.json", "w") as f:
        json.dump({"runs": runs}, f, indent=1)
        f.write("\n")
    ref = {"seed": seed, "p_all": p_all, "p_without_warmup": p_warm,
           "p_b": float(stats.f_oneway(*b).pvalue)}
    with open("tests/data/ref_runs_anova.json", "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    print(ref)


if __name__ == "__main__":
    main()
