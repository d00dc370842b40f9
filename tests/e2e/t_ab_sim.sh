# ab's stopping rule end to end: whole `ab` sessions (processes, capture,
# store, the comparison, the design) on a command that prints one number
# from a known distribution per invocation (tests/helpers/randval.c).  The
# values depend only on each variant's seed, not on timing or the order of
# the rounds, so the outcome is fixed.  A few dozen sessions check the rates
# grossly; the exact operating characteristics are simulated in
# tests/unit/test_sequential_sim.c (doc/ab.md).
. "$(dirname "$0")/lib.sh"

SESSIONS=24
AA_SESSIONS=40
CC=${CC:-cc}
"$CC" -O2 -o "$T/randval" "$ROOT/tests/helpers/randval.c" -lm 2>"$T/cc.err" ||
    skip "cannot compile tests/helpers/randval.c: $(head -c 200 "$T/cc.err")"
cd "$T" || exit 1
M='--metric v=^v\ ([0-9.eE+-]+)$'

# session NAME SHIFT CV MIN:MAX I: the I-th session of sim NAME, its JSON
# in NAME.I.json.
session() {
    sa=$((1000 + 2 * $5)); sb=$((1001 + 2 * $5))
    mb=$(awk -v s="$2" 'BEGIN { printf "%.6f", 100 * (1 + s) }')
    "$NF" ab --json --rounds "$4" --seed "$5" -m v \
        "a$1$5=$M -- ./randval st.$1.$5.a $sa 100 $3" \
        "b$1$5=$M -- ./randval st.$1.$5.b $sb $mb $3" >"$1.$5.json" 2>"$1.$5.err"
}

# sim NAME SHIFT CV MIN:MAX N: N sessions of a against b = a * (1 + SHIFT);
# one line per session in NAME.tally: rounds, verdict, pairing, decided by
# the design.  Two sessions at a time: each has its own seeds, state files
# and labels, so neither can change what the other draws or decides; they
# share only the store, which takes concurrent writers.  One python reads
# every session's JSON.
sim() {
    i=1
    while [ "$i" -le "$5" ]; do
        j=$((i + 1))
        session "$1" "$2" "$3" "$4" "$i" &
        p=$!
        q=""
        if [ "$j" -le "$5" ]; then
            session "$1" "$2" "$3" "$4" "$j" &
            q=$!
        fi
        wait "$p" || fail "ab session $i of $1: $(head -c 300 "$1.$i.err")"
        [ -z "$q" ] || wait "$q" || fail "ab session $j of $1: $(head -c 300 "$1.$j.err")"
        case_failed && return
        i=$((j + 1))
    done
    /usr/bin/python3 - "$1" "$5" >"$1.tally" <<'PY' || fail "cannot read the sessions of $1"
import json, sys
for i in range(1, int(sys.argv[2]) + 1):
    d = json.load(open("%s.%d.json" % (sys.argv[1], i)))
    r = next(x for x in d["rows"] if x["metric"] == "v")
    print(d["rounds"], r["verdict"], r["pairing"], r["sequential"] is not None)
PY
}

# count NAME VERDICT
count() { awk -v v="$2" '$2 == v { n++ } END { print n + 0 }' "$T/$1.tally"; }
mean_rounds() { awk '{ s += $1 } END { printf "%.1f", s / NR }' "$T/$1.tally"; }

t_case "A/A at CV 3%: few false decisions"
# Too noisy for an equivalence claim in 30 rounds: every session looks
# for an effect at every round from 5 to 30.
sim aa 0 0.03 5:30 "$AA_SESSIONS"
case_failed || {
    wrong=$(($(count aa improved) + $(count aa regressed)))
    echo "  A/A CV 3%, rounds 5:30: $wrong of $AA_SESSIONS improved/regressed, mean rounds $(mean_rounds aa)"
    # alpha 5%: about 2 of 40 expected; a paired t at 5% on each of these
    # 26 looks decides falsely in 23% of sessions (about 9 of 40).
    [ "$wrong" -le 4 ] || fail "A/A: $wrong of $AA_SESSIONS sessions improved/regressed"
    awk '$3 != "rounds" || $4 != "True" { bad = 1 } END { exit bad }' "$T/aa.tally" ||
        fail "A/A: a session not paired by round or not decided by its design"
}

t_case "no change at CV 1% ends equivalent"
sim eq 0 0.01 5:50 "$SESSIONS"
case_failed || {
    eq=$(count eq equivalent)
    wrong=$(($(count eq improved) + $(count eq regressed)))
    echo "  no change, CV 1%: $eq of $SESSIONS equivalent, $wrong improved/regressed, mean rounds $(mean_rounds eq)"
    [ "$eq" -ge $((SESSIONS * 3 / 4)) ] || fail "only $eq of $SESSIONS equivalent"
}

t_case "a 2% regression at CV 2.5% is found in about 28 rounds"
sim two 0.02 0.025 5:50 "$SESSIONS"
case_failed || {
    right=$(count two regressed)
    wrong=$(count two improved)
    mr=$(mean_rounds two)
    echo "  +2%, CV 2.5%: $right of $SESSIONS regressed, $wrong improved, mean rounds $mr"
    # expected: about 89% right after 28 rounds on average (the widening
    # for serial correlation, doc/ab.md, costs a tenth more rounds)
    [ "$right" -ge $((SESSIONS * 3 / 4)) ] || fail "+2%: only $right of $SESSIONS regressed"
    [ "$wrong" -eq 0 ] || fail "+2%: $wrong sessions called it improved"
    awk -v m="$mr" 'BEGIN { exit !(m <= 34) }' || fail "+2%: mean rounds $mr > 34"
}

t_case "compare on the stored sessions reproduces ab's verdicts"
# The last session of each kind, from the store.
for k in eq two; do
    expect_rc 0 "$NF" compare --json -m v "a$k$SESSIONS" "b$k$SESSIONS"
    /usr/bin/python3 - "$T/$k.$SESSIONS.json" "$T/out" <<'PY' || fail "compare differs from ab ($k)"
import json, sys
a = next(r for r in json.load(open(sys.argv[1]))["rows"] if r["metric"] == "v")
c = json.load(open(sys.argv[2]))["rows"][0]
keys = ("verdict", "change_pct", "ci_low_pct", "ci_high_pct", "pairing", "sequential")
sys.exit(0 if all(a[k] == c[k] for k in keys) else 1)
PY
done
pass
