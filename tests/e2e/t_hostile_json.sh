# --json always prints JSON on stdout, also when there is nothing to
# compare: compare --json of labels without samples, ab --json that stops
# before its first round (an interrupt, a setting it cannot make), ab --json
# whose words are refused (a bad option, a bad variant) or whose --source or
# store fails it; compare --json and run --json whose words are refused or
# whose store cannot be opened.  The line on stderr and the exit code are
# those without --json.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "compare --json when no label has samples"
expect_rc 1 "$NF" run -r 1 --warmup 0 -L e -- false
expect_rc 1 "$NF" run -r 1 --warmup 0 -L f -- false
expect_rc 2 "$NF" compare --json e f
expect_one_line_err; expect_in err "no samples"
json_check 'd["rows"] == [] and d["baseline"] == "e" and "no samples" in d["error"]'

t_case "ab --json whose --sysctl cannot be made"
expect_rc 1 "$NF" ab --json --rounds 3:3 "a=--sysctl fs.nosuch=1 pipe" b=pipe
expect_in err "no sysctl 'fs.nosuch'"
json_check 'd["rounds"] == 0 and d["rows"] == [] and d["error"]'

t_case "ab --json stopped by SIGTERM before its first round"
# The first variant's command waits; the stop comes during round 1's first
# repetition (its warm-up).
"$NF" ab --json --rounds 3:3 "a=-- sleep 30" "b=-- sleep 30" >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 100); do
    pgrep -P $pid sleep >/dev/null && break
    sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] || fail "exit $rc, not 143: $(head -c 300 "$T/err")"
json_check 'd["rounds"] == 0 and d["rows"] == [] and d["session"].startswith("ab-")'
# usage_json WORDS...: ab WORDS is a usage error: exit 2, its one line on
# stderr, and on stdout an object with that line's text in "error", no
# session and no rows; nothing stored.
usage_json() {
    "$NF" export >"$T/before.json" 2>/dev/null
    expect_rc 2 "$NF" ab "$@"
    expect_one_line_err
    msg=$(sed 's/^noisefloor: ab: //' "$T/err")
    printf '%s' "$msg" >"$T/msg"
    json_check 'd["error"] == open("msg").read() and d["error"] and d["session"] is None and d["rounds"] == 0 and d["rows"] == []'
    "$NF" export >"$T/now.json" 2>/dev/null
    cmp -s "$T/before.json" "$T/now.json" || fail "the store changed"
}
t_case "ab --json with a bad option prints JSON"
usage_json --json --bogus a=pipe b=pipe
expect_in err "unknown option '--bogus'"
t_case "ab --json with the bad option before --json prints JSON too"
usage_json --rounds 0:x --json a=pipe b=pipe
t_case "ab --json with one variant prints JSON"
usage_json --json a=pipe
expect_in err "give at least two variants"
t_case "ab --json with a bad variant spec prints JSON"
usage_json --json a=nosuchworkload b=pipe
expect_in err "unknown workload 'nosuchworkload'"
usage_json a=pipe "b=pipe --nosuch" --json
t_case "ab with a bad option and no --json prints nothing on stdout"
expect_rc 2 "$NF" ab --bogus a=pipe b=pipe
[ ! -s "$T/out" ] || fail "stdout: $(head -c 200 "$T/out")"
# err_json CMD RC WORDS...: noisefloor WORDS exits RC with one line on
# stderr, "noisefloor: CMD: WHY", and prints on stdout an object whose
# "error" is WHY; ab's has no session and no rows, compare's no rows,
# run's no id and no metrics.
err_json() {
    cmd=$1 rc=$2
    shift 2
    expect_rc "$rc" "$NF" "$@"
    expect_one_line_err
    msg=$(sed "s/^noisefloor: $cmd: //" "$T/err")
    printf '%s' "$msg" >"$T/msg"
    json_check 'd["error"] == open("msg").read() and d["error"]'
    case $cmd in
    ab) json_check 'd["session"] is None and d["rounds"] == 0 and d["rows"] == []' ;;
    compare) json_check 'd["rows"] == []' ;;
    run) json_check 'd["id"] is None and d["metrics"] == []' ;;
    esac
}
t_case "ab --json whose --source is no directory prints JSON"
err_json ab 2 ab --json --rounds 3:3 "a=--source $T/nosuch pipe" b=pipe
expect_in err "nosuch"
t_case "ab --json whose store cannot be opened prints JSON"
mkdir "$T/ro" && : >"$T/ro/x.db" && echo "not a database" >"$T/ro/x.db"
err_json ab 1 --db "$T/ro/x.db" ab --json --rounds 3:3 a=pipe b=pipe
t_case "compare --json with a bad option prints JSON"
err_json compare 2 compare --json --bogus e f
expect_in err "unknown option '--bogus'"
err_json compare 2 compare --bogus e f --json
t_case "compare --json with one label prints JSON"
err_json compare 2 compare --json e
t_case "compare --json of an unknown label prints JSON"
err_json compare 2 compare --json e nosuchlabel
expect_in err "nosuchlabel"
t_case "compare --json of a store that is not there prints JSON"
err_json compare 2 --db "$T/none.db" compare --json e f
t_case "compare with a bad option and no --json prints nothing on stdout"
expect_rc 2 "$NF" compare --bogus e f
[ ! -s "$T/out" ] || fail "stdout: $(head -c 200 "$T/out")"
t_case "run --json with a bad option prints JSON"
err_json run 2 run --json --bogus pipe
expect_in err "unknown option '--bogus'"
t_case "run --json of an unknown workload prints JSON"
err_json run 2 run --json nosuchworkload
t_case "run --json whose --source is no directory prints JSON"
err_json run 2 run --json --source "$T/nosuch" -r 1 pipe
t_case "run --json whose store cannot be opened prints JSON"
err_json run 1 --db "$T/ro/x.db" run --json -r 1 pipe
t_case "run with a bad option and no --json prints nothing on stdout"
expect_rc 2 "$NF" run --bogus pipe
[ ! -s "$T/out" ] || fail "stdout: $(head -c 200 "$T/out")"
t_case "submit of a refused ab --json prints no JSON: its stdout is submit's"
expect_rc 2 "$NF" submit ab --json a=nosuchworkload b=pipe
expect_one_line_err
expect_in err "unknown workload 'nosuchworkload'"
[ ! -s "$T/out" ] || fail "stdout: $(head -c 200 "$T/out")"
pass
