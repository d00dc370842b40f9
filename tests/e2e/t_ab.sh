# ab: a reproducible A/A ends equivalent or inconclusive; a clear
# difference ends regressed; the session is stored and compare reproduces
# the verdict; unpinned vs pinned ping-pong ends with a verdict.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "A/A ends equivalent or inconclusive"
# Two variants drawing from the same distribution (tests/helpers/randval.c:
# each variant's values are a fixed stream, whatever the interleaving), so
# the session is reproducible: a real workload's A/A would end improved or
# regressed in up to alpha of the runs, by design (t_ab_sim.sh measures
# that rate; here only the mechanics are checked, and they must not flake).
"${CC:-cc}" -O2 -o "$T/randval" "$ROOT/tests/helpers/randval.c" -lm 2>"$T/cc.err" ||
    fail "cannot compile tests/helpers/randval.c: $(head -c 200 "$T/cc.err")"
expect_rc 0 "$NF" ab --json --rounds 5:12 --seed 7 -m v \
    same1="--metric v=^v\ ([0-9.eE+-]+)$ -- $T/randval $T/st1 11 100 0.01" \
    same2="--metric v=^v\ ([0-9.eE+-]+)$ -- $T/randval $T/st2 12 100 0.01"
json_check 'd["baseline"] == "same1" and d["rows"][0]["metric"] == "v"'
json_check 'd["rows"][0]["verdict"] in ("equivalent", "inconclusive")'
json_check 'd["rounds"] >= 5 and d["rounds"] <= 12 and d["seed"] == 7'

t_case "a clear difference ends regressed"
# A difference that holds whatever else the machine is doing (a 10 ms and a
# 100 ms sleep): the session ends decisive, the slow variant regressed.
expect_rc 0 "$NF" ab --json --rounds 5:30 fast='-- sleep 0.01' slow='-- sleep 0.1'
cp "$T/out" "$T/ab.json"
json_check 'next(r for r in d["rows"] if r["metric"] == "wall")["verdict"] == "regressed"'
json_check 'next(r for r in d["rows"] if r["metric"] == "wall")["label"] == "slow"'
rounds=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rounds"])' "$T/ab.json")

t_case "stored by name; compare reproduces the verdicts"
# Stored under the names, with a shared session; compare agrees.
expect_rc 0 "$NF" compare --json fast slow
/usr/bin/python3 - "$T/ab.json" "$T/out" <<'PY' || fail "compare does not reproduce ab's verdicts"
import json, sys
a = json.load(open(sys.argv[1]))["rows"]
c = json.load(open(sys.argv[2]))["rows"]
key = lambda r: (r["workload"], r["metric"], r["label"])
val = lambda r: (r["verdict"], r["change_pct"], r["ci_low_pct"], r["pairing"], r["sequential"])
va = {key(r): val(r) for r in a}
vc = {key(r): val(r) for r in c}
sys.exit(0 if va == vc else 1)
PY
# wall decides: paired by round, decided by the session's stored design
json_check 'next(r for r in d["rows"] if r["metric"] == "wall")["pairing"] == "rounds"'
json_check 'next(r for r in d["rows"] if r["metric"] == "wall")["sequential"]["action"] == "stop: effect"'
expect_rc 0 "$NF" compare fast slow
expect_in out "note: slow: paired by round with fast \([0-9]+ rounds of ab session ab-"
expect_in out "note: slow: the session's sequential design \(rounds 5:30\): stop: effect at round"
expect_rc 0 "$NF" list --label slow
expect_in out "slow"

t_case "a label that already has runs: warned, pooled by compare"
expect_rc 0 "$NF" ab --rounds 2:2 fast='-- sleep 0.01' other='-- sleep 0.01'
expect_in err "warning: ab: label 'fast' already has 1 run\(s\) in .*compare. will pool them"
expect_not_in err "label 'other'"

t_case "unpinned vs pinned ends with a verdict"
# The demo's comparison (its verdict depends on what else the machine is
# doing, so only that it ends with one).
expect_rc 0 "$NF" ab --json --rounds 5:8 unpinned='pipe -l 5000' pinned='--pin 0 pipe -l 5000'
json_check 'next(r for r in d["rows"] if r["metric"] == "usecs/op")["verdict"] in ("improved", "regressed", "equivalent", "inconclusive")'


t_case "-m picks the deciding metric"
# -m picks the deciding metric: the closing verdict line names it.
expect_rc 0 "$NF" ab --rounds 2:2 -m voluntary-context-switches x1='pipe -l 1000' y1='pipe -l 1000'
expect_in out "^Verdict: y1 vs x1 on pipe voluntary-context-switches: "

t_case "text output: the stop and the table"
# Text output names the stop and prints the table.
expect_rc 0 "$NF" ab --rounds 3:3 --order abba x='pipe -l 1000' y='pipe -l 1000 -T'
expect_in out "ab session"
expect_in out "3 rounds"
expect_in out "Verdict"
expect_rc 0 "$NF" ab --rounds 3 --order sequential x2='pipe -l 1000' y2='pipe -l 1000'
expect_in out "sequential"

t_case "--sysctl holds for its own variant only"
# A --sysctl variant: set for its own repetitions only, restored after each,
# after the session, and after SIGINT.  A fake /proc/sys tree.
export NOISEFLOOR_STATE="$T/tune.state"
mkdir -p "$T/fk/proc/sys/kernel"
F="$T/fk/proc/sys/kernel/sched_foo"
echo 1 >"$F"
expect_rc 0 "$NF" ab --json --rounds 3:3 \
    plain="--root $T/fk --metric v=^([0-9]+)$ -- cat $F" \
    tuned="--root $T/fk --sysctl kernel.sched_foo=5 --metric v=^([0-9]+)$ -- cat $F"
[ "$(cat "$F")" = 1 ] || fail "ab: sysctl not restored after the session"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "ab: state file left"
expect_rc 0 "$NF" export --format json --label plain --label tuned
json_check '[next(m for m in r["metrics"] if m["name"] == "v")["values"] for r in d["runs"]] == [[1, 1, 1], [5, 5, 5]]'
json_check '[r["repeat"] for r in d["runs"]] == [3, 3] and len(set(r["session"] for r in d["runs"])) == 1'

t_case "SIGINT in a tuned repetition restores"
# SIGINT while the tuned variant runs: the command itself records the value
# it saw and then blocks, so the signal arrives inside a tuned repetition
# without racing it.
"$NF" ab --rounds 200:200 plain2="--root $T/fk -- sleep 0.02" \
    tuned2="--root $T/fk --sysctl kernel.sched_foo=6 -- sh -c 'cat $F >$T/seen.tmp; mv $T/seen.tmp $T/seen; exec sleep 100'" \
    >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 1200); do [ -e "$T/seen" ] && break; sleep 0.05; done
[ -e "$T/seen" ] || fail "ab: the tuned variant never ran"
[ "$(cat "$T/seen")" = 6 ] || fail "ab: the tuned variant saw $(cat "$T/seen"), not 6"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "ab: SIGINT: expected exit 130, got $rc"
[ "$(cat "$F")" = 1 ] || fail "ab: not restored after SIGINT: $(cat "$F")"
[ ! -e "$NOISEFLOOR_STATE" ] || fail "ab: state file left after SIGINT"
expect_in err "interrupted"
unset NOISEFLOOR_STATE

# A command printing one number per invocation from a known distribution
# (tests/helpers/randval.c): the values, and so the decisions, are fixed.
CC=${CC:-cc}
"$CC" -O2 -o "$T/randval" "$ROOT/tests/helpers/randval.c" -lm 2>/dev/null || : >"$T/no-randval"
M='--metric v=^v\ ([0-9.eE+-]+)$'

t_case "the progress line on a terminal shows the decision coming"
# script(1) gives the session a terminal; the line shows the round, each
# variant's change with its repeated CI, and the boundary it is nearing.
if [ -e "$T/no-randval" ] || ! command -v script >/dev/null; then
    echo "  (no C compiler or no script(1): not checked)"
else
    script -qec "$NF ab --rounds 5:8 --seed 3 -m v x='$M -- $T/randval $T/px 1 100 0.03' y='$M -- $T/randval $T/py 2 100 0.03'" /dev/null \
        </dev/null >"$T/tty" 2>&1
    tr '\r' '\n' <"$T/tty" >"$T/lines"
    expect_in lines 'round 6/8 +[0-9.]+s(  ETA [0-9:]+)?  y [+-][0-9.]+% \[[+-][0-9.]+%, [+-][0-9.]+%\] → (effect|equivalence) z [0-9.-]+/[0-9.]+'
    expect_in lines 'Verdict: y vs x on command v: '
    # not a terminal: no progress on stderr
    expect_rc 0 "$NF" ab --rounds 5:6 --seed 3 -m v x2="$M -- $T/randval $T/qx 1 100 0.03" \
        y2="$M -- $T/randval $T/qy 2 100 0.03"
    expect_not_in err "round"
fi

t_case "the seed printed replays the resampling too"
# Without --seed, ab picks one and prints it; --test shift resamples with
# it, so the same values give the same CI again under --seed SEED.
if [ -e "$T/no-randval" ]; then
    echo "  (no C compiler: not checked)"
else
    rm -f "$T/rx" "$T/ry"
    expect_rc 0 "$NF" ab --json --rounds 5:5 --test shift -m v \
        x4="$M -- $T/randval $T/rx 1 100 0.03" y4="$M -- $T/randval $T/ry 2 100 0.03"
    cp "$T/out" "$T/first.json"
    seed=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seed"])' "$T/first.json")
    rm -f "$T/rx" "$T/ry"
    expect_rc 0 "$NF" ab --json --rounds 5:5 --test shift -m v --seed "$seed" \
        x4="$M -- $T/randval $T/rx 1 100 0.03" y4="$M -- $T/randval $T/ry 2 100 0.03"
    /usr/bin/python3 - "$T/first.json" "$T/out" <<'PY' || fail "ab --seed $seed did not replay the CI"
import json, sys
def ci(f):
    r = [r for r in json.load(open(f))["rows"] if r["metric"] == "v"][0]
    return r["ci_low_pct"], r["ci_high_pct"], r["p_value"]
a, b = ci(sys.argv[1]), ci(sys.argv[2])
print("  first", a, "replayed", b)
sys.exit(0 if a == b else 1)
PY
fi

t_case "an interrupt ends the session at its last look"
# The variant's 8th invocation (warm-up + 7 rounds) marks that it started
# and blocks; SIGINT then ends the session after 6 complete rounds: the
# verdict is printed for them, and the exit status is still 130.
if [ -e "$T/no-randval" ]; then
    echo "  (no C compiler: not checked)"
else
    printf '%s\n' \
        "n=\$(cat $T/stall.n 2>/dev/null || echo 0)" \
        "echo \$((n + 1)) >$T/stall.n" \
        "[ \"\$n\" -lt 7 ] || { : >$T/stalled; exec sleep 100; }" \
        "exec $T/randval $T/sb 2 100 0.03" >"$T/stall.sh"
    "$NF" ab --rounds 5:200 --seed 4 -m v a4="$M -- $T/randval $T/sa 1 100 0.03" \
        b4="$M -- sh $T/stall.sh" >"$T/out" 2>"$T/err" &
    pid=$!
    for _ in $(seq 1200); do [ -e "$T/stalled" ] && break; sleep 0.05; done
    [ -e "$T/stalled" ] || fail "ab: the stalling variant never stalled"
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq 130 ] || fail "ab: SIGINT: expected exit 130, got $rc"
    expect_in out "stopped: interrupted; the last complete round was the last look"
    expect_in out "^Verdict: b4 vs a4 on command v: inconclusive"
    expect_in out "paired by round with a4 \(6 rounds"
    expect_rc 0 "$NF" compare --json -m v a4 b4
    json_check 'd["rows"][0]["pairing"] == "rounds" and d["rows"][0]["pairs"] == 6'
    json_check 'd["rows"][0]["sequential"]["action"] == "stop: max reached"'
    # each run stores the repetitions it holds: export and import agree
    expect_rc 0 "$NF" export --format json --label a4 --label b4
    cp "$T/out" "$T/ab4.json"
    json_check 'all(len(r["metrics"][0]["values"]) == r["repeat"] for r in d["runs"])'
    expect_rc 0 "$NF" --db "$T/copy.db" import "$T/ab4.json" --format json
fi

t_case "bad input: one line, exit 2"
# Bad input.
expect_rc 2 "$NF" ab only='pipe -l 10'
expect_one_line_err; expect_in err "at least two variants"
expect_rc 2 "$NF" ab a='pipe -l 10' 'pipe -l 10'
expect_one_line_err; expect_in err "NAME=SPEC"
# Shown quoted: a newline or a terminal escape in it reaches no terminal.
expect_rc 2 "$NF" ab a='pipe -l 10' "$(printf '\033[2Jpipe\n-l 10')"
expect_one_line_err; expect_in err "^noisefloor: ab: variant '\?\[2Jpipe\?-l 10' is not NAME=SPEC$"
expect_rc 2 "$NF" ab a='pipe -l 10' a='pipe -l 20'
expect_one_line_err; expect_in err "twice"
expect_rc 2 "$NF" ab a='pipe -l 10' b='nosuch'
expect_one_line_err; expect_in err "variant 'b': unknown workload"
expect_rc 2 "$NF" ab --rounds 9:3 a='pipe' b='pipe'
expect_one_line_err; expect_in err "rounds"
expect_rc 2 "$NF" ab --order zigzag a='pipe' b='pipe'
expect_one_line_err
expect_rc 2 "$NF" ab --rounds 2:2 -m bogus a3='pipe -l 100' b3='pipe -l 100'
expect_one_line_err; expect_in err "no metric 'bogus'"
expect_rc 2 "$NF" ab a="pipe 'x" b='pipe'
expect_one_line_err; expect_in err "unterminated"
pass
