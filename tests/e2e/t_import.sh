# import: the real outputs in tests/data/import go in; each malformed variant
# gives one line FILE:LINE: expected ..., exit 2, and changes nothing.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"
D="$ROOT/tests/data/import"

t_case "a run before the imports"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L before pipe -l 1000
"$NF" export >"$T/before.json" || fail "export"

t_case "perf stat -r output, appended"
expect_rc 0 "$NF" import "$D/perf-stat-append.csv" --format perf-stat-csv -L perf-r5x3
expect_in out '^imported run 2 \(label perf-r5x3, perf-stat, 3 repetitions\)$'
expect_rc 0 "$NF" show --json 2
json_check '[m["name"] for m in d["metrics"]] == ["task-clock", "context-switches", "cycles"]'
json_check 'd["metrics"][0]["values"] == [29.27, 18.58, 25.17] and d["metrics"][0]["primary"]'
json_check 'd["metrics"][2]["supported"] is False and d["metrics"][2]["values"] == []'
json_check '"perf stat -r" in d["note"]'
expect_rc 0 "$NF" show 2
expect_in out '<not supported> +cycles'
t_case "CSV export: a <not supported> counter has no rows, and no value 0"
expect_rc 0 "$NF" export --format csv -L perf-r5x3
[ "$(grep -c '^2,perf-r5x3,perf-stat,task-clock,msec,lower,[123],' "$T/out")" -eq 3 ] ||
    fail "csv: expected 3 task-clock rows"
expect_not_in out 'cycles'

t_case "perf-stat-json, perf-stat-csv, hyperfine-json, values"
expect_rc 0 "$NF" import "$D/perf-stat-r3.json" --format perf-stat-json -L pj
expect_rc 0 "$NF" import "$D/perf-stat-single.csv" --format perf-stat-csv -L pc --workload pipe-bench
expect_in out 'label pc, pipe-bench, 1 repetition\)'
expect_rc 0 "$NF" import "$D/hyperfine-2cmd.json" --format hyperfine-json -L l1000 -L l2000
expect_in out '^imported run 5 \(label l1000, command, 5 repetitions\)$'
expect_in out '^imported run 6 \(label l2000, command, 5 repetitions\)$'
expect_rc 0 "$NF" show --json 6
json_check 'd["args"] == ["perf bench sched pipe -l 2000"] and d["metrics"][0]["name"] == "wall"'
expect_rc 0 "$NF" import - --format values -L v --metric usecs/op --unit usecs/op --better lower <"$D/values.txt"
expect_rc 0 "$NF" show --json 7
json_check 'd["metrics"][0]["values"] == [6.10, 6.12, 6.08, 6.11] and d["metrics"][0]["name"] == "usecs/op"'

t_case "perf stat -x, and -j with a second derived metric on its own line"
expect_rc 0 "$NF" import "$D/perf-stat-metrics.csv" --format perf-stat-csv -L metrics
expect_in out '^imported run 8 \(label metrics, perf-stat, 1 repetition\)$'
expect_rc 0 "$NF" show --json 8
json_check 'len(d["metrics"]) == 10 and d["metrics"][7]["name"] == "instructions:u"'
json_check 'd["metrics"][7]["values"] == [84456137] and d["metrics"][8]["name"] == "branches:u"'
expect_rc 0 "$NF" import "$D/perf-stat-metrics.json" --format perf-stat-json -L metrics
expect_in out '^imported run 9 \(label metrics, perf-stat, 1 repetition\)$'

t_case "<not counted> in some invocations: stored without values, one warning per event"
expect_rc 0 "$NF" import "$D/perf-stat-not-counted.csv" --format perf-stat-csv -L delayed
expect_in out '^imported run 10 \(label delayed, perf-stat, 5 repetitions\)$'
[ "$(grep -c '^noisefloor: warning: ' "$T/err")" -eq 2 ] || fail "expected two warnings"
expect_in err "^noisefloor: warning: $D/perf-stat-not-counted.csv: 'task-clock' was <not counted> in 2 of 5 invocations .*stored without values, as unsupported$"
expect_in err "'page-faults' was <not counted> in 2 of 5 invocations"
expect_rc 0 "$NF" show --json 10
json_check '[m["supported"] for m in d["metrics"]] == [True, False, False]'
json_check 'd["metrics"][1]["values"] == [] and len(d["metrics"][0]["values"]) == 5'
json_check '"<not counted> in 2 of 5" in d["note"] and d["metrics"][0]["primary"]'
expect_rc 0 "$NF" -q import "$D/perf-stat-not-counted.csv" --format perf-stat-csv -L delayed
expect_not_in err 'warning'
expect_rc 0 "$NF" rm 11

t_case "perf stat's own output: counts, wall, user, sys"
expect_rc 0 "$NF" import "$D/perf-stat.txt" --format perf-stat -L text
expect_in out '^imported run 12 \(label text, perf-stat, 1 repetition\)$'
expect_rc 0 "$NF" show --json 12
json_check '[m["name"] for m in d["metrics"]] == ["task-clock", "context-switches", "page-faults", "cycles", "instructions", "wall", "user", "sys"]'
json_check 'd["metrics"][0]["values"] == [11.94] and d["metrics"][0]["primary"] and d["metrics"][5]["values"] == [0.028601266]'
json_check 'd["metrics"][5]["unit"] == "seconds" and d["metrics"][3]["supported"] is False'
t_case "perf stat --null, three invocations appended: wall per invocation"
for i in 1 2 3; do sed -n "1,/^$/p;/seconds/p" "$D/perf-stat-null.txt"; done >null3.txt
expect_rc 0 "$NF" import null3.txt --format perf-stat -L null
expect_in out '^imported run 13 \(label null, perf-stat, 3 repetitions\)$'
expect_rc 0 "$NF" show --json 13
json_check 'd["metrics"][0]["name"] == "wall" and d["metrics"][0]["values"] == [0.001739417] * 3 and d["metrics"][0]["primary"]'
t_case "a mail's 'seconds time elapsed' lines of perf stat -r, compared"
expect_rc 0 "$NF" import "$D/perf-stat-elapsed.txt" --format perf-stat -L elapsed
expect_in out '^imported run 14 \(label elapsed, perf-stat, 3 repetitions\)$'
expect_rc 0 "$NF" show --json 14
json_check '"mean of one \x27perf stat -r\x27 invocation" in d["note"]'
expect_rc 0 "$NF" compare elapsed null -m wall
expect_in out 'wall'

"$NF" export >"$T/good.json" || fail "export"
bad() {     # FILE FORMAT LINE
    t_case "malformed $1 as $2"
    expect_rc 2 "$NF" import "$D/$1" --format "$2" -L bad
    expect_one_line_err
    expect_in err "^noisefloor: $D/$1:$3: expected "
    "$NF" export >"$T/now.json" || fail "export"
    cmp -s "$T/now.json" "$T/good.json" || fail "import of $1 changed the database"
}
bad bad-perf-stat-value.csv perf-stat-csv 2
bad bad-perf-stat-pct.csv perf-stat-csv 2
bad bad-perf-stat-block.csv perf-stat-csv 7
bad bad-perf-stat-line.json perf-stat-json 2
bad bad-perf-stat-value.json perf-stat-json 2
bad bad-hyperfine-times.json hyperfine-json 3
bad bad-hyperfine-truncated.json hyperfine-json 15
bad bad-values.txt values 4
bad bad-export.json json 166
bad bad-perf-stat-value.txt perf-stat 5
bad bad-perf-stat-mixed.txt perf-stat 1
bad perf-stat.txt perf-stat-csv 2
bad perf-stat-r3.json perf-stat-csv 1
bad hyperfine-2cmd.json json 1

t_case "the earlier run is unchanged"
# The run that was there before is still there, identical.
expect_rc 0 "$NF" export --label before
cmp -s "$T/out" "$T/before.json" || fail "the earlier run changed"

# Usage errors.
for args in "--format values -L x" "$D/values.txt -L x" "$D/values.txt --format nope -L x" \
            "$D/values.txt --format values" "$D/values.txt --format perf-stat-csv --metric m -L x" \
            "$D/nonexistent --format values -L x" "$D/values.txt $D/values.txt --format values -L x"; do
    t_case "usage error: import $args"
    # shellcheck disable=SC2086
    expect_rc 2 "$NF" import $args
    expect_one_line_err
done
t_case "usage errors change nothing"
"$NF" export >"$T/now.json" && cmp -s "$T/now.json" "$T/good.json" || fail "usage errors changed the database"
pass
