# compare's exit status when something could not be compared: nothing
# compared at all is exit 2 with one line naming why (the tables are still
# printed); with --fail-on-regression, a variant without samples of a row
# the baseline has (its run failed, it did not run the workload, or its
# primary metric is missing) fails the gate (exit 1), and a regression
# still wins (exit 3); a metric only the baseline measured does not.  A
# row of different workloads (a built-in workload run with other
# arguments) is no regression however it tested: it fails the gate
# (exit 1, one line) unless --allow-different decides it.
. "$(dirname "$0")/lib.sh"

# values NAME LABEL SCALE: import ten lat values (ms) times SCALE.
values() {
    for v in 100.3 99.1 101.2 98.7 100.9 99.6 100.4 99.8 101.5 98.9; do
        echo "$v"
    done | awk -v s="$3" '{ printf "%.6f\n", $1 * s }' >"$1.txt"
    "$NF" import "$1.txt" --format values --label "$2" --metric lat --unit ms >/dev/null ||
        fail "import $1"
}
# run_json LABEL STATUS METRICS: one stored run of workload values, imported.
run_json() {
    cat >"$1.json" <<EOF
{"runs": [{"id": null, "label": "$1", "workload": "values", "args": [],
  "started": "2026-01-01T00:00:00Z", "repeat": 3, "warmup": 0, "status": "$2",
  "session": null, "note": null, "env": {}, "metrics": [$3]}]}
EOF
    "$NF" import "$1.json" --format json >/dev/null || fail "import $1.json"
}
m() { # m NAME PRIMARY VALUES
    printf '{"name": "%s", "unit": "ms", "better": "lower", "primary": %s, "supported": true, "values": [%s]}' \
        "$1" "$2" "$3"
}

t_case "a variant whose runs stored no sample: nothing compared, exit 2"
expect_rc 0 "$NF" run -r 3 --warmup 0 -L base -- true
expect_rc 1 "$NF" run -r 3 --warmup 0 -L dead -- sh -c 'kill -SEGV $$'
expect_rc 2 "$NF" compare --fail-on-regression --brief base dead
expect_one_line_err
expect_in err "^noisefloor: compare: nothing compared: 'dead' has no samples \\(did its runs fail\\? list shows their status\\)$"
expect_in out '^Amean +wall +[0-9.]+ \(  0\.00%\) +no data'
expect_rc 2 "$NF" compare base dead
expect_in out '^Verdict'
expect_rc 2 "$NF" compare --json base dead
json_check 'all(r["label"] == "dead" and r["n"] == 0 for r in d["rows"])'

t_case "a baseline that stored no sample: nothing compared, exit 2"
expect_rc 2 "$NF" compare dead base
expect_one_line_err
expect_in err "nothing compared: the baseline 'dead' has no samples "

t_case "two labels with no workload in common: exit 2"
values va va 1
expect_rc 2 "$NF" compare va base
expect_one_line_err
expect_in err "nothing compared: 'base' and the baseline 'va' have no workload and metric in common$"
expect_in out '^values lat '
expect_rc 2 "$NF" compare va base dead
expect_in err "nothing compared: no label has samples of a workload and metric the baseline 'va' has$"
expect_rc 2 "$NF" compare -w command va base

t_case "a counter <not supported> named with -m: nothing compared, exit 2"
D=$ROOT/tests/data/import
expect_rc 0 "$NF" import "$D/perf-stat-r3.csv" --format perf-stat-csv --label pc
expect_rc 0 "$NF" import "$D/perf-stat-single.csv" --format perf-stat-csv --label pc2
expect_rc 2 "$NF" compare -m cycles pc pc2
expect_one_line_err
expect_in err "the baseline 'pc' has no samples of cycles, only <not supported> \\(the event could not be counted\\)$"
expect_in out '^Amean +cycles +<not supported> +<not supported>$'

t_case "--fail-on-regression: a variant's failed run fails the gate (exit 1)"
values a a 1
values a2 a2 1.001
run_json f failed "$(m lat true '')"
expect_rc 0 "$NF" compare --brief a a2 f
expect_rc 1 "$NF" compare --fail-on-regression --brief a a2 f
expect_one_line_err
expect_in err "^noisefloor: compare: --fail-on-regression: 'f' has no samples of values lat, which the baseline 'a' has$"
expect_in out '^Amean +lat '
expect_rc 1 "$NF" compare --fail-on-regression --json a a2 f
json_check 'len(d["rows"]) == 2'

t_case "--fail-on-regression: a regression still wins (exit 3)"
values slow slow 1.5
expect_rc 3 "$NF" compare --fail-on-regression --brief a slow f
expect_in err "'f' has no samples of values lat"
expect_rc 3 "$NF" compare --fail-on-regression --brief a slow

t_case "--fail-on-regression: a metric only the baseline has does not fail it"
LAT="100.3, 99.1, 101.2"
run_json b2 complete "$(m lat true "$LAT"), $(m extra false "1, 2, 3")"
run_json v2 complete "$(m lat true "$LAT")"
expect_rc 0 "$NF" compare --fail-on-regression --brief b2 v2
expect_in out '^Amean +extra +2\.0000 \(  0\.00%\) +no data'
t_case "--fail-on-regression: a primary metric missing fails it"
run_json w2 complete "$(m extra false "1, 2, 3")"
expect_rc 1 "$NF" compare --fail-on-regression --brief b2 w2
expect_one_line_err
expect_in err "'w2' has no samples of values lat, which the baseline 'b2' has$"
expect_rc 0 "$NF" compare --brief b2 w2

t_case "--fail-on-regression: a workload a variant did not run fails it"
run_json x1 complete "$(m lat true "$LAT")"
expect_rc 0 "$NF" import "$ROOT/tests/data/import/perf-stat-r3.csv" --format perf-stat-csv --label x1
expect_rc 0 "$NF" import "$ROOT/tests/data/import/perf-stat-r3.csv" --format perf-stat-csv --label x2
expect_rc 0 "$NF" compare --brief x1 x2
expect_rc 1 "$NF" compare --fail-on-regression --brief x1 x2
expect_one_line_err
expect_in err "'x2' has no samples of values lat, which the baseline 'x1' has$"

t_case "--fail-on-regression: different workloads are no regression, and fail the gate"
# pipe -l 2000 at 10 usecs/op against pipe -l 1000 at 20: regressed as
# tested, but of different workloads
cat >pp.json <<'EOF'
{"runs": [
 {"label": "pa", "workload": "pipe", "args": ["-l", "2000"], "started": "2026-01-01T00:00:00Z",
  "repeat": 5, "warmup": 0, "status": "complete", "env": {},
  "metrics": [{"name": "usecs/op", "unit": "usecs/op", "better": "lower", "primary": true,
               "supported": true, "values": [10.1, 9.9, 10.0, 10.2, 9.8]}]},
 {"label": "pb", "workload": "pipe", "args": ["-l", "1000"], "started": "2026-01-01T00:01:00Z",
  "repeat": 5, "warmup": 0, "status": "complete", "env": {},
  "metrics": [{"name": "usecs/op", "unit": "usecs/op", "better": "lower", "primary": true,
               "supported": true, "values": [20.1, 19.9, 20.0, 20.2, 19.8]}]}]}
EOF
expect_rc 0 "$NF" import pp.json --format json
expect_rc 0 "$NF" compare --brief pa pb
expect_in out "different workloads"
expect_rc 1 "$NF" compare --fail-on-regression --brief pa pb
expect_one_line_err
expect_in err "^noisefloor: compare: --fail-on-regression: 1 row of different workloads \\(the labels ran pipe with different arguments: the Unlike runs line names them\\); --allow-different decides them$"
expect_rc 3 "$NF" compare --fail-on-regression --allow-different --brief pa pb
expect_in out "regressed"
expect_rc 1 "$NF" compare --fail-on-regression --json pa pb
json_check 'd["rows"][0]["different_workloads"] is True'

pass
