# compare's notes appear only where they change a decision
# (doc/noisefloor-compare.1, NOTES): no warm-up note for max-rss, whose
# peak is the first repetition's as much as any other's; no clusters for
# page-fault counts (whole pages take a few values), neither as a finding
# nor as the advice of an inconclusive row nor as a cluster table, in the
# text and in the HTML report; the JSON keeps every finding.  The same
# shapes under another metric's name are noted, so the filter is by
# metric, not by shape.
. "$(dirname "$0")/lib.sh"

t_case "setup: a warm-up in max-rss and in v, two clusters of page faults and of w"
/usr/bin/python3 - >"$T/fm.json" <<'PY'
import json
runs = []
for k, lab in enumerate(("FA", "FB")):
    # the first repetition high, the rest a few KiB apart
    rss = [9000] + [5000 + 4 * ((i + k) % 3) for i in range(19)]
    # every third repetition 340 or 341 faults, the others 120 to 122
    pf = [120 + (i + k) % 3 if i % 3 else 340 + (i + k) % 2 for i in range(20)]
    metrics = [{"name": "seconds", "unit": "s", "better": "lower", "primary": True,
                "supported": True, "values": [10 + 0.01 * ((i * 7 + k) % 5) for i in range(20)]}]
    for name, vals in (("max-rss", rss), ("v", rss), ("minor-page-faults", pf), ("w", pf)):
        metrics.append({"name": name, "unit": "", "better": "lower", "primary": False,
                        "supported": True, "values": vals})
    runs.append({"label": lab, "workload": "values", "args": [], "repeat": 20, "warmup": 0,
                 "started": "2026-01-01T12:00:0%dZ" % k, "status": "complete",
                 "env": {"hostname": "h", "kernel": "6.1"}, "metrics": metrics})
print(json.dumps({"runs": runs}))
PY
expect_rc 0 "$NF" import "$T/fm.json" --format json

t_case "no warm-up note for max-rss; the same values as v have one"
expect_rc 0 "$NF" compare -m max-rss FA FB
expect_not_in out "first repetition is slower"
expect_not_in out "--warmup"
expect_rc 0 "$NF" compare -m v FA FB
expect_in out "note: FA: the first repetition is slower"
expect_in out "fix: discard them: --warmup 1"

t_case "no clusters for page-fault counts; the same values as w have them"
expect_rc 0 "$NF" compare -m minor-page-faults FA FB
expect_not_in out "cluster"
expect_in out "note: FB: inconclusive; "
expect_rc 0 "$NF" compare -m w FA FB
expect_in out "note: FA: 2 clusters"
expect_in out "form clusters: .*more repetitions will not help"
expect_in out "cluster by cluster"

t_case "the brief form counts only the notes that matter"
expect_rc 0 "$NF" compare --all FA FB
expect_rc 0 sh -c "sed -n '/^values max-rss/,/^\$/p' '$T/out' >'$T/rss'"
expect_not_in rss "note"

t_case "the JSON keeps every finding, and repetitions help page faults"
expect_rc 0 "$NF" compare --json FA FB
json_check '[sorted(set(f["kind"] for f in r["diagnosis"])) for r in d["rows"] if r["metric"] == "max-rss"] == [["warm-up"]]'
json_check '[sorted(set(f["kind"] for f in r["diagnosis"])) for r in d["rows"] if r["metric"] == "minor-page-faults"] == [["clusters"]]'
json_check '[r["advice"]["more_repetitions_help"] for r in d["rows"] if r["metric"] == "minor-page-faults"] == [True]'
json_check '[r["advice"]["more_repetitions_help"] for r in d["rows"] if r["metric"] == "w"] == [False]'

t_case "the HTML report leaves them out too"
expect_rc 0 "$NF" report --html "$T/r.html" FA FB
expect_rc 0 sh -c "grep -c 'badge kind\">warm-up' '$T/r.html' >'$T/nw'"
expect_rc 0 sh -c "grep -c 'badge kind\">clusters' '$T/r.html' >'$T/nc'"
# v's warm-up in both labels, w's clusters in both: max-rss and the page faults add none
[ "$(cat "$T/nw")" -eq 2 ] || fail "warm-up findings in the report: $(cat "$T/nw") (want 2, v's)"
[ "$(cat "$T/nc")" -eq 2 ] || fail "clusters findings in the report: $(cat "$T/nc") (want 2, w's)"

pass
