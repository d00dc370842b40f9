#!/usr/bin/python3
"""Generate the Holm families case of tests/e2e/t_compare_holm.sh:

    tests/data/holm_families_runs.json   runs to import (noisefloor export form)
    tests/data/ref_holm_families.json    what compare --json must say of them

Run once from the repository root with Debian's Python (python3-scipy):

    /usr/bin/python3 tests/ref/gen_holm_families.py

Three labels of a pipe-like workload, 10 repetitions each, with what a
run stores by default: usecs/op (primary), ops/sec = 1e6 / usecs/op (a
rate, tested as its reciprocal: the same test as usecs/op), rusage-like
metrics, and two rows constant and identical on both sides
(major-page-faults 0 vs 0, max-rss 3588 vs 3588).  The values are drawn
with a fixed seed and rounded, then stored, so the file is the data.

The seed is the first from 1 whose draw makes the case: v1's usecs/op
significant at p 0.004-0.02 (so after Holm over its 2-row primary family,
but not over all 14 rows), v2's not (p > 0.2), v1's user significant
before Holm over its 6-row family but not after (p 0.009-0.03), every
other row p > 0.1.

Expected, from SciPy and Holm's step-down computed here by hand:
  - p_value: scipy.stats.ttest_ind(equal_var=False) on the values (on
    1/x for the higher-is-better rate);
  - the primary family: the usecs/op rows of v1 and v2; ops/sec, the
    reciprocal of usecs/op and so the same test, takes usecs/op's Holm p
    without adding a row; the secondary family: every other row with a
    test; the constant rows in neither (p 1, p_adjusted 1);
  - p_adjusted: Holm within each family;
  - runs_needed of a row significant before the correction but not after
    it: ceil(n * (z(1 - level/2) / z(1 - p/2))^2) with level = alpha / m
    (m the rows of its family), z = scipy.stats.norm.isf, at least n + 1.
"""
import json
import math
import random

from scipy import stats

ALPHA = 0.05
N = 10
LABELS = ["v0", "v1", "v2"]
OUT_RUNS = "tests/data/holm_families_runs.json"
OUT_REF = "tests/data/ref_holm_families.json"


def draw(rng, mean, cv, digits):
    return [round(rng.gauss(mean, mean * cv), digits) for _ in range(N)]


def holm(ps):
    """Holm's step-down adjusted p-values, capped at 1, monotone."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adj = [0.0] * m
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (m - rank) * ps[i]))
        adj[i] = run
    return adj


def welch_p(a, b, rate):
    if rate:
        a = [1 / x for x in a]
        b = [1 / x for x in b]
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def draw_case(seed):
    rng = random.Random(seed)
    # per label: mean usecs/op, user seconds, sys seconds, context switches
    spec = {
        "v0": (10.0, 0.0150, 0.0520, 22340.0),
        "v1": (9.3, 0.0137, 0.0520, 22340.0),
        "v2": (9.9, 0.0150, 0.0520, 22340.0),
    }
    runs = []
    values = {}
    for k, label in enumerate(LABELS):
        us, user, sys_, vcs = spec[label]
        v = {
            "usecs/op": draw(rng, us, 0.08, 4),
            "user": draw(rng, user, 0.10, 6),
            "sys": draw(rng, sys_, 0.10, 6),
            "voluntary-context-switches": [float(round(x)) for x in draw(rng, vcs, 0.002, 0)],
            "major-page-faults": [0.0] * N,
            "max-rss": [3588.0] * N,
        }
        v["ops/sec"] = [1e6 / x for x in v["usecs/op"]]
        values[label] = v
        metrics = [
            ("usecs/op", "usecs/op", "lower", True),
            ("ops/sec", "ops/sec", "higher", False),
            ("user", "seconds", "lower", False),
            ("sys", "seconds", "lower", False),
            ("voluntary-context-switches", "", "lower", False),
            ("major-page-faults", "", "lower", False),
            ("max-rss", "KiB", "lower", False),
        ]
        runs.append({
            "id": k + 1, "label": label, "workload": "pipe", "args": [],
            "started": "2026-12-01T00:0%d:00Z" % k, "repeat": N, "warmup": 1,
            "status": "complete", "session": None, "note": None, "env": None,
            "metrics": [{"name": name, "unit": unit, "better": better, "primary": prim,
                         "supported": True, "values": v[name]}
                        for name, unit, better, prim in metrics],
        })

    return runs, values


def case_ok(values):
    def p(m, label):
        return welch_p(values["v0"][m], values[label][m], False)
    if not (0.004 <= p("usecs/op", "v1") <= 0.02 and p("usecs/op", "v2") > 0.2
            and 0.009 <= p("user", "v1") <= 0.03):
        return False
    others = [p(m, lb) for m in ("user", "sys", "voluntary-context-switches")
              for lb in ("v1", "v2") if (m, lb) != ("user", "v1")]
    return min(others) > 0.1


def main():
    seed = 1
    while not case_ok(draw_case(seed)[1]):
        seed += 1
    runs, values = draw_case(seed)
    print("seed", seed)
    rows = []
    for m in ["usecs/op", "ops/sec", "user", "sys", "voluntary-context-switches",
              "major-page-faults", "max-rss"]:
        for label in LABELS[1:]:
            a, b = values["v0"][m], values[label][m]
            const = len(set(a)) == 1 and len(set(b)) == 1 and a[0] == b[0]
            rows.append({
                "metric": m, "label": label,
                "p_value": 1.0 if const else welch_p(a, b, m == "ops/sec"),
                "family": None if const else "primary" if m in ("usecs/op", "ops/sec")
                else "secondary",
            })
    for fam in ("primary", "secondary"):
        idx = [i for i, r in enumerate(rows) if r["family"] == fam and r["metric"] != "ops/sec"]
        adj = holm([rows[i]["p_value"] for i in idx])
        for i, p in zip(idx, adj):
            rows[i]["p_adjusted"] = p
            rows[i]["family_rows"] = len(idx)
    for r in rows:  # ops/sec: usecs/op's Holm p (the same test)
        if r["metric"] == "ops/sec":
            twin = next(t for t in rows if t["metric"] == "usecs/op" and t["label"] == r["label"])
            r["p_adjusted"], r["family_rows"] = twin["p_adjusted"], twin["family_rows"]
    for r in rows:
        r.setdefault("p_adjusted", r["p_value"])
        r["runs_needed_before_holm"] = None
        if r["family"] and r["metric"] != "ops/sec" and r["p_value"] < ALPHA <= r["p_adjusted"]:
            level = ALPHA / r["family_rows"]
            z, target = stats.norm.isf(r["p_value"] / 2), stats.norm.isf(level / 2)
            r["runs_needed_before_holm"] = max(N + 1, math.ceil(N * (target / z) ** 2))
    # the old single family over every row, constant ones included
    allp = [r["p_value"] for r in rows]
    for r, p in zip(rows, holm(allp)):
        r["p_adjusted_one_family"] = p

    with open(OUT_RUNS, "w") as f:
        json.dump({"runs": runs}, f, indent=1)
        f.write("\n")
    with open(OUT_REF, "w") as f:
        json.dump({"alpha": ALPHA, "rows": rows}, f, indent=1)
        f.write("\n")
    for r in rows:
        print(r["metric"], r["label"], r["family"], "%.4g %.4g %.4g" % (
            r["p_value"], r["p_adjusted"], r["p_adjusted_one_family"]), r["runs_needed_before_holm"])


if __name__ == "__main__":
    main()
