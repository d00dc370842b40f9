# run at the edges of its input: a rate with a value of 0 or below is
# summarised as compare summarises it; --metric sees past a NUL byte and
# says when a line too long to keep went unsearched; --sysctl is recorded
# with the run; -e accumulates, -e '' is refused, --pin keeps the last.
. "$(dirname "$0")/lib.sh"

# A command that prints "s V", V the next of the values given, one per
# repetition (the count kept in a file of its own).
cat >"$T/seq.py" <<'PY'
import sys
vals = sys.argv[2].split(",")
with open(sys.argv[1], "a+") as f:
    f.write("x")
    f.seek(0)
    print("s", vals[len(f.read()) - 1])
PY
rate_run() { # LABEL VALUES [OPTIONS...]: run the values as a rate, --json
    label=$1 vals=$2
    shift 2
    rm -f "$T/count.$label"
    expect_rc 0 "$NF" run -r 4 --warmup 0 -L "$label" --better higher \
        --metric 's=^s (-?[0-9.]+)$' "$@" -- /usr/bin/python3 "$T/seq.py" "$T/count.$label" "$vals"
}
metric_s='next(m for m in d["metrics"] if m["name"] == "s")'

t_case "a rate with a value of 0: mean 0 and a note, as compare"
rate_run zero 1,2,0,4
expect_in out '^ +0\.0000  s .*\(hmean\)'
expect_not_in out '^ +1\.75[0-9]*  s '
expect_in out "note: s: a value of 0 in a rate \\(higher is better\\): the harmonic mean is 0"
expect_rc 0 "$NF" show --json 1
json_check "$metric_s[\"mean\"] == 0"
rate_run zero2 1,2,0,4
expect_rc 0 "$NF" compare --json -m s zero zero2
json_check 'all(r["mean"] == 0 and r["baseline_mean"] == 0 for r in d["rows"])'

t_case "a rate with a value below 0: no mean, and a note"
rate_run neg -1,1,-2,2 --json
json_check "$metric_s[\"mean\"] is None and $metric_s[\"values\"] == [-1, 1, -2, 2]"
rate_run neg2 -1,1,-2,2
expect_in out '^ +-  s .*\(hmean\)'
expect_in out "note: s: a value below 0 in a rate \\(higher is better\\): no harmonic mean"

t_case "a positive rate: its harmonic mean, no note"
rate_run pos 1,2,4,4 --json
json_check "abs($metric_s[\"mean\"] - 2.0) < 1e-12"
rate_run pos2 1,2,4,4
# (s is the command's primary metric, so its noise is diagnosed; no note
# of a value of 0 or below)
expect_not_in out "note: s: a value"
expect_not_in out "note: s: .*harmonic mean"

t_case "--metric searches past a NUL byte"
expect_rc 0 "$NF" run -r 1 --warmup 0 --json --metric 'x=^result: ([0-9]+)$' -- \
    printf 'bin\0ary\nresult: 5\n'
json_check 'next(m for m in d["metrics"] if m["name"] == "x")["values"] == [5.0]'
expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'x=^other: ([0-9]+)$' -- printf 'bin\0ary\nresult: 5\n'
expect_in err 'stdout\| bin\?ary$'

t_case "--metric on a line too long to keep says so"
# 20 MB in one line, the number at its start: only whole lines are kept.
expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'r=result: ([0-9]+)' -- \
    sh -c 'printf "result: 45"; head -c 20000000 /dev/zero | tr "\0" x; echo'
expect_one_line_err
expect_in err "which was cut: it wrote 19\\.1 MiB, of which the first 16 MiB and the last 1 MiB are searched, whole lines only, and it has none there: its first line runs past 16 MiB"

t_case "--sysctl is recorded with the run"
mkdir -p "$T/fk/proc/sys/kernel"
echo 8192 >"$T/fk/proc/sys/kernel/msgmax"
export NOISEFLOOR_STATE="$T/tune.state"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L sys --root "$T/fk" --sysctl kernel.msgmax=9000 --json -- true
json_check 'd["env"]["sysctl"] == {"kernel.msgmax": "9000"}'
[ "$(cat "$T/fk/proc/sys/kernel/msgmax")" = 8192 ] || fail "kernel.msgmax not restored"
id=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$T/out")
expect_rc 0 "$NF" export -L sys
json_check 'd["runs"][0]["env"]["sysctl"] == {"kernel.msgmax": "9000"}'
expect_rc 0 "$NF" show "$id"
expect_in out '^  sysctl +\{"kernel\.msgmax":"9000"\}$'
expect_rc 0 "$NF" run -r 1 --warmup 0 -L nosys --json -- true
json_check '"sysctl" not in d["env"]'

t_case "-e given twice counts both"
expect_rc 0 "$NF" run -r 1 --warmup 0 --json -e task-clock -e context-switches pipe -l 10
json_check '{"task-clock", "context-switches"} <= {m["name"] for m in d["metrics"]}'

t_case "-e '' is refused"
expect_rc 2 "$NF" run -r 1 -e '' pipe -l 10
expect_one_line_err
expect_in err "run: -e: an empty event name in ''"
expect_rc 2 "$NF" run -r 1 -e task-clock --events= pipe -l 10
expect_one_line_err

t_case "--pin given twice: the last one holds (the first is not even checked)"
expect_rc 0 "$NF" run -r 1 --warmup 0 --json --pin 1 --pin 0 pipe -l 10
json_check 'd["env"]["pin"] == "0"'

pass
