#!/bin/sh
# Serial correlation end to end (doc/statistics.md, "Serial correlation"):
# repetitions whose neighbours are correlated are named in the diagnosis
# with the lag-1 r and its p; rounds of an ab session whose log-ratios
# are serially correlated get a paired CI widened for it, with a note
# and the row's "autocorr" object.  The values are literal: seeded AR(1)
# draws (NumPy; coefficient 0.7, SD 2%; seed 7 for the rounds, seed 12
# for the one run, the first seed from 8 whose series has no monotone
# drift, Spearman p > 0.4), written once.
. "$(dirname "$0")/lib.sh"

A="100.002 100.597 99.452 98.219 99.091 98.017 100.120 102.680 99.016 98.759 100.980 100.714 100.211 98.139 99.941 101.391 97.312 99.085 96.198 97.421 96.317 99.530 97.465 100.543"
# A times exp(0.02 * AR(1)): the log-ratios B/A are the AR(1) series
B="100.316 100.550 95.908 95.022 96.755 96.550 96.927 99.694 95.645 95.286 99.984 98.871 98.878 98.459 99.338 100.801 97.068 99.001 94.473 96.300 97.412 98.128 97.694 100.880"
# 100 (1 + 0.02 AR(1)): serially correlated repetitions of one run
C="99.986 101.485 102.098 102.503 104.064 101.123 99.891 98.037 98.472 100.357 100.219 100.861 97.874 98.722 97.810 101.003 101.969 102.734 101.831 102.157 102.450 101.223 100.146 99.938"

t_case "serially correlated repetitions are named in the diagnosis"
printf '%s\n' $A >a.txt
printf '%s\n' $C >c.txt
expect_rc 0 "$NF" import a.txt --format values --label base --metric latency --better lower
expect_rc 0 "$NF" import c.txt --format values --label corr --metric latency --better lower
expect_rc 0 "$NF" compare base corr
expect_in out "serial correlation: neighbouring repetitions are correlated \(lag-1 r 0\.[0-9]+, p [0-9.e-]+\)"
expect_rc 0 "$NF" compare --json base corr
json_check '[f["kind"] for f in d["rows"][0]["diagnosis"] if f["label"] == "corr"] == ["serial-correlation"]'
json_check '[f for f in d["rows"][0]["diagnosis"] if f["label"] == "corr"][0]["lag1_r"] > 0.4'
json_check 'not any(f["kind"] == "serial-correlation" for f in d["rows"][0]["diagnosis"] if f["label"] == "base")'
# unpaired repetitions are not widened: no autocorr object
json_check 'd["rows"][0]["autocorr"] is None'

t_case "rounds with serially correlated log-ratios: the paired CI is widened"
/usr/bin/python3 - "$A" "$B" >session.json <<'PY'
import json, sys
runs = []
for i, (label, vals) in enumerate((("a", sys.argv[1]), ("b", sys.argv[2]))):
    runs.append({"id": i + 1, "label": label, "workload": "command", "args": [],
                 "started": "2026-12-01T00:00:00Z", "repeat": 24, "warmup": 0,
                 "status": "complete", "session": "ab-serial", "note": None, "env": None,
                 "metrics": [{"name": "v", "unit": "ms", "better": "lower", "primary": True,
                              "supported": True, "values": [float(v) for v in vals.split()]}]})
json.dump({"runs": runs}, sys.stdout)
PY
expect_rc 0 "$NF" import -f json --renumber session.json
expect_rc 0 "$NF" compare a b
expect_in out "b: paired by round with a \(24 rounds"
expect_in out "b: the rounds' log-ratios are serially correlated \(lag-1 r 0\.[0-9]+, p [0-9.e-]+\): CI widened for it \(variance of the mean x[0-9.]+\)"
expect_rc 0 "$NF" compare --json a b
json_check 'd["rows"][0]["autocorr"]["widened"] is True and d["rows"][0]["autocorr"]["variance_factor"] > 1.5'
# wider than the plain paired t's CI of the same rounds (SciPy)
case_failed || /usr/bin/python3 - "$T/out" "$A" "$B" <<'PY' || fail "the CI is not wider than the plain paired t's"
import json, math, sys
import numpy as np, scipy.stats as ss
row = json.load(open(sys.argv[1]))["rows"][0]
a = np.array([float(v) for v in sys.argv[2].split()])
b = np.array([float(v) for v in sys.argv[3].split()])
d = np.log(b / a)
h = ss.t.isf(0.025, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
plain = (math.expm1(d.mean() + h) - math.expm1(d.mean() - h)) * 100
shown = row["ci_high_pct"] - row["ci_low_pct"]
print("plain paired t CI width %.3f%%, shown %.3f%%" % (plain, shown), file=sys.stderr)
sys.exit(0 if shown > 1.2 * plain else 1)
PY

pass
