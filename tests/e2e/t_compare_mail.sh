# compare --format mail (doc/noisefloor-compare.1): the mmtests-shaped
# table only, in at most 80 columns (labels in a legend when they do not
# fit), then a verdict line per label and one line on how it was measured.
# The runs are netsend's nine sizes for three kernels, with the harmonic
# means of a published mmtests comparison (netperf UDP, uclamp's fast
# path): ten values a size whose reciprocals average to 1/mean, so that
# each harmonic mean is that table's, and so are its marks.
. "$(dirname "$0")/lib.sh"

t_case "setup: netsend's nine sizes, three labels"
/usr/bin/python3 - >"$T/ns.json" <<'PY'
import json
sizes = [64, 128, 256, 1024, 2048, 3312, 4096, 8192, 16384]
means = {"nouclamp": [162.43, 324.71, 641.55, 2525.28, 4836.14, 7540.83, 9124.53, 15589.67, 26386.47],
         "uclamp": [157.84, 314.78, 628.67, 2448.26, 4712.08, 7425.45, 8948.82, 15486.35, 25752.25],
         "uclamp-static-key": [163.39, 326.18, 648.12, 2543.73, 4867.69, 7621.06, 9276.25, 15819.98, 26773.74]}
w = [0.003, -0.002, 0.001, -0.003, 0.002, -0.001, 0.0025, -0.0025, 0.0005, -0.0005]
runs = []
for i, (lab, ms) in enumerate(means.items()):
    mets = [{"name": "send-%d" % s, "unit": "Mbit/s", "better": "higher", "primary": k == 0,
             "supported": True, "values": [m / (1 + e) for e in w]} for k, (s, m) in enumerate(zip(sizes, ms))]
    for name in ("user", "sys"):
        mets.append({"name": name, "unit": "seconds", "better": "lower", "primary": False,
                     "supported": True, "values": [1 + e for e in w]})
    runs.append({"label": lab, "workload": "netsend", "args": [], "repeat": 10, "warmup": 1,
                 "started": "2026-01-0%dT12:00:00Z" % (i + 1), "status": "complete",
                 "env": {"hostname": "h", "kernel": "5.8.0-rc1", "cpu_model": "Intel Xeon E5-2690 v2", "pin": None},
                 "metrics": mets})
print(json.dumps({"runs": runs}))
PY
expect_rc 0 "$NF" import "$T/ns.json" --format json

cols() { # fail when a line of out is wider than 80 columns (characters)
    /usr/bin/python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 80 for l in open(sys.argv[1], encoding="utf-8")))' "$T/out" ||
        fail "a line wider than 80 columns: $(awk 'length > 80' "$T/out" | head -1)"
}

t_case "the thread's table: nine Hmean rows, the marks, 80 columns"
expect_rc 0 "$NF" compare --format mail nouclamp uclamp uclamp-static-key
cols
expect_in out "^ +nouclamp +uclamp +uclamp-static-key$"
expect_in out "^Hmean +send-64 +162\.43 \(   0\.00%\) +157\.84 \*  -2\.83%\* +163\.39 \*   0\.59%\*$"
expect_in out "^Hmean +send-16384 +26386\.47 \(   0\.00%\) +25752\.25 \*  -2\.40%\* +26773\.74 \*   1\.47%\*$"
[ "$(grep -c '^Hmean' "$T/out")" -eq 9 ] || fail "not nine Hmean rows"
[ "$(grep -c '^Stddev' "$T/out")" -eq 9 ] && [ "$(grep -c '^CoeffVar' "$T/out")" -eq 9 ] || fail "not nine Stddev and CoeffVar rows"
# rusage's user and sys are not the workload's rows; no verdict in the columns
expect_not_in out "^[A-Za-z]+ +(user|sys) "
expect_not_in out "^(Hmean|Stddev|CoeffVar) .*(regressed|improved|equivalent|inconclusive)"
expect_in out "^uclamp vs nouclamp: regressed on netsend send-64 \(-2\.8[0-9]%, 95% CI \[-"
expect_in out "the 9 rows: 8 regressed, 1 equivalent$"
expect_in out "^uclamp-static-key vs nouclamp: "
expect_in out "^Measured: 10 repetitions per label, one label after another, unpinned, kernel$"
expect_in out "^  5\.8\.0-rc1, Intel Xeon E5-2690 v2, host h; welch test, alpha 0\.05, equivalence$"

t_case "--all: every metric's rows"
expect_rc 0 "$NF" compare --format mail --all nouclamp uclamp uclamp-static-key
cols
[ "$(grep -c '^Amean' "$T/out")" -eq 2 ] || fail "not user and sys's Amean rows"

t_case "labels wider than their columns: numbered, with a legend"
expect_rc 0 "$NF" import "$T/ns.json" --format json -L a-kernel-with-a-long-release-name
expect_rc 0 "$NF" compare --format mail nouclamp a-kernel-with-a-long-release-name uclamp
cols
expect_in out "^ +\[1\] +\[2\] +\[3\]$"
expect_in out "^\[1\] nouclamp  \[2\] a-kernel-with-a-long-release-name  \[3\] uclamp$"

t_case "perf stat -r blocks: their N repetitions, no kernel that was not stored"
D=$ROOT/tests/data/import
sed 's/14.5464 +- 0.0758/14.2000 +- 0.0500/; s/( +-  0.52% )$/( +-  0.35% )/' \
    "$D/perf-stat-mail.txt" >"$T/b.txt"
expect_rc 0 "$NF" import "$D/perf-stat-mail.txt" --format perf-stat -L pa
expect_rc 0 "$NF" import "$T/b.txt" --format perf-stat -L pb
expect_rc 0 "$NF" compare --format mail -m wall pa pb
cols
expect_in out "^Stddev +wall +0\.2392 +0\.1572$"
expect_in out "^Measured: 10 repetitions per label \(by perf stat -r\), one label after"
expect_not_in out "kernel"

t_case "runs that do not record pinning: nothing said of it"
# An export's run without "pin" in its environment (another tool's, an
# older export): pinning unknown, not unpinned ("pin": null is unpinned).
/usr/bin/python3 - "$T/ns.json" "$T/nopin.json" "$T/mixed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    del r["env"]["pin"]
json.dump(d, open(sys.argv[2], "w"))
d["runs"][1]["env"]["pin"] = None
json.dump(d, open(sys.argv[3], "w"))
PY
expect_rc 0 "$NF" --db "$T/nopin.db" import "$T/nopin.json" --format json
expect_rc 0 "$NF" --db "$T/nopin.db" compare --format mail nouclamp uclamp
expect_in out "^Measured: 10 repetitions per label, one label after another, kernel 5\.8\.0-rc1,$"
expect_not_in out "pinn"
expect_not_in out "^Unlike runs"

t_case "some runs record pinning, some do not: pinning unknown"
expect_rc 0 "$NF" --db "$T/mixed.db" import "$T/mixed.json" --format json
expect_rc 0 "$NF" --db "$T/mixed.db" compare --format mail nouclamp uclamp
expect_in out "^Measured: 10 repetitions per label, one label after another, pinning unknown,$"
expect_not_in out "unpinned"
# not a difference the runs recorded
expect_not_in out "^Unlike runs"
expect_rc 0 "$NF" --db "$T/mixed.db" compare --json nouclamp uclamp
json_check 'd["unlike"] is None'

t_case "ab --format mail: the rounds, interleaved"
expect_rc 0 "$NF" ab --rounds 3:3 --format mail a='pipe -l 2000' b='pipe -l 2000'
cols
expect_in out "^Amean +usecs/op "
expect_in out "^b vs a: [a-z]+ on pipe usecs/op \("
expect_in out "^Measured: 3 rounds of an ab session, the labels interleaved in each"
expect_not_in out "^Verdict"

pass
