# import against hostile files: each bad one gets one line and exit 2, and
# nothing already stored is lost or changed (the export before and after
# is the same).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"
D="$ROOT/tests/data/import"

t_case "setup: a stored run"
printf '%s\n' 100 101 99 100.5 >base.txt
expect_rc 0 "$NF" import base.txt --format values -L base --metric t --unit s --better lower
"$NF" export >"$T/before.json" || fail "export"
# unchanged: the database holds what it held before the case.
unchanged() {
    "$NF" export >"$T/now.json" || fail "export"
    cmp -s "$T/before.json" "$T/now.json" || fail "the stored runs changed"
}

t_case "a file larger than 1 GiB is refused unread"
truncate -s $((1024 * 1024 * 1024 + 1)) huge.txt
expect_rc 2 "$NF" import huge.txt --format values -L huge
expect_one_line_err
expect_in err "huge.txt' is larger than 1 GiB, the most import reads"
unchanged

# A run as export writes it, with one field changed: variant NAME EXPR
# (EXPR edits the run r in Python) writes NAME.json.
"$NF" export -L base >"$T/one.json" || fail "export"
variant() {
    /usr/bin/python3 - "$T/one.json" "$T/$1.json" "$2" <<'PY' || fail "cannot write $1.json"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
refused() { # NAME REGEX: import of NAME.json: exit 2, one line, nothing changed
    expect_rc 2 "$NF" import "$T/$1.json" --format json
    expect_one_line_err
    expect_in err "^noisefloor: $T/$1.json:[0-9]+: .*$2"
    unchanged
}
t_case "json: ids that would break the id space are refused"
variant id-max 'r["id"] = 9223372036854775807'
refused id-max '"id" must be null or a whole number from 1 to 9007199254740991'
variant id-zero 'r["id"] = 0'
refused id-zero '"id" must be'
variant id-neg 'r["id"] = -3'
refused id-neg '"id" must be'
variant id-text 'r["id"] = "12"'
refused id-text '"id" must be'
variant id-big 'r["id"] = 2**53'
refused id-big '"id" must be'
t_case "json: ids past 2^31 work, and so do the runs after them"
variant id-2g 'r["id"] = 2**31 + 5; r["label"] = "two-g"'
expect_rc 0 "$NF" import "$T/id-2g.json" --format json
expect_in out "imported run 2147483653 "
expect_rc 0 "$NF" show 2147483653
expect_in out "two-g"
variant id-top 'r["id"] = 2**53 - 1; r["label"] = "top"'
expect_rc 0 "$NF" import "$T/id-top.json" --format json
expect_in out "imported run 9007199254740991 "
expect_rc 0 "$NF" run -r 1 --warmup 0 -L next -- true
expect_rc 0 "$NF" import base.txt --format values -L next2 --metric t
expect_in out "imported run 9007199254740993 "
expect_rc 0 "$NF" show 9007199254740992
expect_in out "next"
expect_rc 0 "$NF" rm 9007199254740993 9007199254740991 2147483653
expect_rc 0 "$NF" rm 9007199254740992
"$NF" export >"$T/now.json" || fail "export"
cmp -s "$T/before.json" "$T/now.json" || fail "the first run changed"
t_case "json: the same export imported twice is refused, and --renumber says so"
"$NF" export >twice.json || fail "export"
expect_rc 2 "$NF" import twice.json --format json
expect_one_line_err
expect_in err "^noisefloor: import: twice.json: 1 of its 1 run ids are already in the store \(the first: run 1 in .*\); nothing stored: --renumber stores them under new ids$"
unchanged
expect_rc 0 "$NF" import twice.json --format json --renumber
expect_one_line_err
expect_in err "^noisefloor: warning: import: 1 of 1 run ids were already in the store: renumbered$"
expect_in out "^imported run [0-9]+ \(label base,"
expect_not_in out "^imported run 1 "
new=$(sed -n 's/^imported run \([0-9]*\) .*/\1/p' "$T/out")
[ -n "$new" ] && [ "$new" != 1 ] || fail "no new id: $(cat "$T/out")"
expect_rc 0 "$NF" rm "$new"
unchanged
t_case "json: one taken id among free ones, or one id twice, refuses the file"
/usr/bin/python3 - "$T/one.json" <<'PY' || fail "cannot write the files"
import copy, json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
free = copy.deepcopy(r); free["id"] = 77; free["label"] = "free"
d["runs"] = [free, r]
json.dump(d, open("mixed.json", "w"))
dup = copy.deepcopy(free); dup["label"] = "dup"
d["runs"] = [free, dup]
json.dump(d, open("dup.json", "w"))
PY
expect_rc 2 "$NF" import mixed.json --format json
expect_one_line_err
expect_in err "1 of its 2 run ids are already in the store \(the first: run 1 in "
unchanged
expect_rc 2 "$NF" import dup.json --format json
expect_one_line_err
expect_in err "1 of its 2 run ids are already in the store \(the first: run 77 in "
unchanged
t_case "json: status, started, warmup, repeat are checked"
variant st-bad 'r["status"] = "splendid"'
refused st-bad '"status" must be running, complete'
variant st-num 'r["status"] = 1'
refused st-num '"status" must be'
variant st-none 'del r["status"]'
refused st-none '"status" must be'
variant started-bad 'r["started"] = "2026-13-01T00:00:00Z"'
refused started-bad '"started" must be a time as ISO 8601 UTC'
variant started-none 'del r["started"]'
refused started-none '"started" must be'
variant started-num 'r["started"] = 1764472802'
refused started-num '"started" must be'
variant warm-neg 'r["warmup"] = -1'
refused warm-neg '"warmup" must be a count'
variant warm-text 'r["warmup"] = "1"'
refused warm-text '"warmup" must be a count'
variant warm-huge 'r["warmup"] = 2**40'
refused warm-huge '"warmup" must be a count'
variant rep-none 'del r["repeat"]'
refused rep-none '"repeat" must be a count'
t_case "json: every metric has a value per repetition"
variant vals-more 'r["metrics"][0]["values"].append(1.0)'
refused vals-more 'metric "t" has 5 values, but the complete run has 4 repetitions'
variant vals-less 'r["metrics"][0]["values"].pop()'
refused vals-less 'metric "t" has 3 values, but the complete run has 4 repetitions'
variant rep-more 'r["repeat"] = 5'
refused rep-more 'metric "t" has 4 values, but the complete run has 5 repetitions'
# A run that stopped early has fewer: that is what it measured.
variant early 'r["status"] = "interrupted"; r["repeat"] = 10; r["label"] = "early"; r["id"] = None'
expect_rc 0 "$NF" import "$T/early.json" --format json
expect_rc 0 "$NF" export -L early
json_check 'd["runs"][0]["status"] == "interrupted" and len(d["runs"][0]["metrics"][0]["values"]) == 4'

# refused_file FILE FORMAT LINE REGEX: exit 2, "FILE:LINE: ...REGEX", nothing changed.
refused_file() {
    expect_rc 2 "$NF" import "$1" --format "$2" -L bad
    expect_one_line_err
    expect_in err "^noisefloor: $1:$3: .*$4"
    unchanged
}
t_case "perf-stat CSV: a truncated last line is an error, not a value"
"$NF" export >"$T/before.json" || fail "export"
# Cut inside the last line's value, inside its event name, after a field.
for cut in 12 25 40; do
    head -c "-$cut" "$D/perf-stat-r3.csv" >"cut$cut.csv"
    refused_file "cut$cut.csv" perf-stat-csv 3 "expected a whole line, ending with a newline"
done
head -c -1 "$D/perf-stat-single.csv" >nonl.csv
refused_file nonl.csv perf-stat-csv 3 "cut off"
t_case "perf-stat JSON too"
head -c -20 "$D/perf-stat-r3.json" >cut.json
refused_file cut.json perf-stat-json 3 "expected a whole line"

# perf stat -I, -A, -G and --per-* print an event several times per
# invocation: intervals, CPUs or cgroups are not repetitions.  Real files
# (tests/data/import/README).
not_reps() { # FILE FORMAT WHAT
    refused_file "$D/$1" "$2" 3 "perf stat $3 output \\(.*\\) is not one measurement per invocation; run perf stat without -I, -A, -G and --per-\\*$"
}
t_case "perf-stat JSON: interval and per-CPU output are not repetitions"
not_reps perf-stat-interval.json perf-stat-json interval
expect_in err '\(-I: "interval"\)'
not_reps perf-stat-percpu.json perf-stat-json per-CPU
expect_in err '\(-A: "cpu"\)'
not_reps perf-stat-per-core.json perf-stat-json per-core
t_case "perf-stat JSON: other aggregations (--per-node, --per-socket, ...) too"
sed 's/"core" : "S0-D0-C[01]"/"node" : "N0"/' "$D/perf-stat-per-core.json" >node.json
refused_file node.json perf-stat-json 3 "perf stat per-node output"
sed 's/"core" : "S0-D0-C[01]", //' "$D/perf-stat-per-core.json" >aggr.json
refused_file aggr.json perf-stat-json 3 'aggregated output \(--per-\*: "aggregate-number"\)'
t_case "perf-stat CSV: interval and per-CPU output are named as such"
not_reps perf-stat-interval.csv perf-stat-csv interval
expect_in err "\(-I: the first field is a time in seconds\)"
not_reps perf-stat-percpu.csv perf-stat-csv per-CPU
expect_in err "\(-A: the first field is a CPU\)"
not_reps perf-stat-per-socket.csv perf-stat-csv per-socket
not_reps perf-stat-per-core.csv perf-stat-csv per-core
t_case "perf-stat: per-thread output is named as such, CSV and JSON"
not_reps perf-stat-per-thread.csv perf-stat-csv per-thread
expect_in err "\(--per-thread: the first field is a thread\)"
# A command name may hold commas, which perf does not quote.
sed 's/^sched-pipe-/a,b-/' "$D/perf-stat-per-thread.csv" >comma-comm.csv
refused_file "$T/comma-comm.csv" perf-stat-csv 3 "perf stat per-thread output"
not_reps perf-stat-interval-per-thread.csv perf-stat-csv interval
not_reps perf-stat-per-thread.json perf-stat-json per-thread
t_case "perf-stat: per-cgroup output (-G) too, CSV and JSON"
not_reps perf-stat-cgroup.csv perf-stat-csv per-cgroup
expect_in err "\\(-G: a cgroup follows the event\\)"
not_reps perf-stat-cgroup-r3.csv perf-stat-csv per-cgroup
not_reps perf-stat-cgroup.json perf-stat-json per-cgroup
expect_in err '\(-G: "cgroup"\)'
t_case "perf-stat (text): -I, -A, --per-*, -G are named as such"
text_reps() { # FILE LINE WHAT
    refused_file "$D/$1" perf-stat "$2" "perf stat $3 output \\(.*\\) is not one measurement per invocation; run perf stat without -I, -A, -G and --per-\\*$"
}
text_reps perf-stat-interval.txt 3 interval
expect_in err "\(-I: a column of times\)"
text_reps perf-stat-percpu.txt 6 per-CPU
text_reps perf-stat-per-core.txt 6 per-core
text_reps perf-stat-per-thread.txt 6 per-thread
text_reps perf-stat-cgroup.txt 6 per-cgroup
expect_in err "\(-G: a cgroup follows the event\)"
t_case "perf-stat (text): a truncated last line is an error, not a value"
head -c -1 "$D/perf-stat-elapsed.txt" >cut.txt
refused_file cut.txt perf-stat 3 "expected a whole line, ending with a newline"

t_case "perf-stat CSV: an event with PMU terms is read whole"
# perf writes "software/config=1,period=100000/u" with its comma unquoted.
"$NF" export >"$T/before.json" || fail "export"
expect_rc 0 "$NF" import "$D/perf-stat-pmu-terms.csv" --format perf-stat-csv -L pmu
id=$(sed -n 's/^imported run \([0-9]*\) .*/\1/p' "$T/out")
expect_rc 0 "$NF" export -L pmu
json_check '[(m["name"], m["values"]) for m in d["runs"][0]["metrics"]] == [("task-clock", [14.86]), ("software/config=1,period=100000/u", [14856983.0])]'
expect_rc 0 "$NF" rm "$id"
unchanged
not_reps perf-stat-pmu-terms-cgroup.csv perf-stat-csv per-cgroup
# An event whose terms are never closed is refused, and is not a cgroup.
sed 's|100000/u,|100000u,|' "$D/perf-stat-pmu-terms.csv" >unclosed.csv
expect_rc 2 "$NF" import unclosed.csv --format perf-stat-csv -L bad
expect_one_line_err
expect_not_in err "cgroup"
unchanged

t_case "hyperfine: repetitions that failed are not samples"
# hyperfine -i times failed repetitions: a non-zero code, or null (killed).
hf() { # NAME EXPR: hyperfine-2cmd.json with EXPR applied to d
    /usr/bin/python3 - "$D/hyperfine-2cmd.json" "$T/$1.json" "$2" <<'PY' || fail "cannot write $1"
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}
hf hf-exit1 'd["results"][1]["exit_codes"][2] = 1'
refused_file "$T/hf-exit1.json" hyperfine-json "[0-9]+" \
    "result 2 \('perf bench sched pipe -l 2000'\).* 1 of 5 exited non-zero"
hf hf-killed 'd["results"][0]["exit_codes"][0] = None'
refused_file "$T/hf-killed.json" hyperfine-json "[0-9]+" "result 1 .* 1 of 5 exited non-zero"
hf hf-short 'd["results"][0]["exit_codes"].pop()'
refused_file "$T/hf-short.json" hyperfine-json "[0-9]+" "one code per time \(5\)"
hf hf-ok 'pass'
expect_rc 0 "$NF" import "$T/hf-ok.json" --format hyperfine-json -L h1 -L h2
expect_in out "label h2, command, 5 repetitions"

t_case "hyperfine: a command that is not a label needs --label"
# A multi-line shell script as the command (a real file): a label with a
# newline would break list's and compare's tables, so it is refused as -L
# would refuse it, escaped, and nothing is stored.
"$NF" export >"$T/before.json" || fail "export"
expect_rc 2 "$NF" import "$D/hyperfine-multiline.json" --format hyperfine-json
expect_one_line_err
expect_in err "^noisefloor: $D/hyperfine-multiline.json:3: label \(the \"command\" of result 1\) 'for l in 1000 2000\\\\ndo perf bench.*' contains a control character: .*; give --label$"
unchanged
expect_rc 0 "$NF" import "$D/hyperfine-multiline.json" --format hyperfine-json -L loop -L l3000
expect_in out "label loop, command, 3 repetitions"
expect_rc 0 "$NF" export -L loop
json_check 'd["runs"][0]["args"] == ["for l in 1000 2000\ndo perf bench sched pipe -l $l\ndone"]'

t_case "numbers of any length parse"
long1="1.$(printf '0%.0s' $(seq 80))1"
long2="$(printf '0%.0s' $(seq 70))42.5"
printf '%s\n' "$long1" "$long2" "1e-320" "2.5E+3" >long.txt
expect_rc 0 "$NF" import long.txt --format values -L long --metric t
expect_rc 0 "$NF" export -L long
json_check 'd["runs"][0]["metrics"][0]["values"] == [1.0, 42.5, 1e-320, 2500.0]'
# ... and in perf-stat's value field.
sed "1s/^14.87,/14.87$(printf '0%.0s' $(seq 70)),/" "$D/perf-stat-r3.csv" >long.csv
expect_rc 0 "$NF" import long.csv --format perf-stat-csv -L longperf
expect_rc 0 "$NF" export -L longperf
json_check 'd["runs"][0]["metrics"][0]["values"] == [14.87]'
t_case "numbers that are not measurements are still refused"
for bad in "1e999" "nan" "inf" "0x10" "1.5.2"; do
    printf '%s\n' 1 "$bad" >bad.txt
    "$NF" export >"$T/before.json" || fail "export"
    refused_file bad.txt values 2 "expected one number per line"
done
pass
