# backends: sqlite postgresql
# bisect's state in the store and its replay: a repository of 3 commits of
# a small C program that prints the k-th value of a fixed normal stream
# (k kept in a counter file, so every value is fixed whatever the order),
# mean 100 and CV 0.1%, commit 2 raising the mean by 20%: every test
# decides at its fewest rounds, and the one step (commit 1, good) is what
# a log with a decision needs, so each bisection is cheap.  Kernel mode
# keeps its state in the store's bisections table (nothing of it in .git),
# every step a new process with a simulated kernel; a second start is
# refused while it is in progress, in either mode; reset removes the row.
# The JSON says change_pct as compare does (the change of the means).
# replay, in either mode, takes a log's decisions and measures only what
# they leave.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip "no git"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
CC=${CC:-cc}
R=$T/repo
git init -q "$R" && git -C "$R" config user.email t@example.org && git -C "$R" config user.name t ||
    fail "git init"

gen() {
    cat <<EOC
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#define SEED $(($1 * 7 + 3))ULL
#define MEAN $2
static uint64_t sm(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
int main(int argc, char **argv)
{
    unsigned long long k = 0;
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    if (f) {
        if (fscanf(f, "%llu", &k) != 1)
            k = 0;
        fclose(f);
    }
    if (argc > 1 && (f = fopen(argv[1], "w"))) {
        fprintf(f, "%llu\n", k + 1);
        fclose(f);
    }
    uint64_t x = SEED * 0x100000001b3ULL + 2 * k * 0x9e3779b97f4a7c15ULL;
    double u1 = ((double)(sm(&x) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(sm(&x) >> 11) + 0.5) / 9007199254740992.0;
    printf("v %.9g\n", MEAN * (1 + 0.001 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)));
    return 0;
}
EOC
}
for i in 0 1 2; do
    mean=100.0
    [ "$i" -ge 2 ] && mean=120.0
    gen "$i" "$mean" >"$T/prog.$i.c"
    printf 'commit refs/heads/master\ncommitter t <t@example.org> %d +0000\ndata <<EOM\ncommit %d\nEOM\n' \
        $((1700000000 + i)) "$i"
    printf 'M 644 inline prog.c\ndata %d\n' "$(wc -c <"$T/prog.$i.c")"
    cat "$T/prog.$i.c"
    printf 'reset refs/tags/c%d\nfrom refs/heads/master\n\n' "$i"
done >"$T/fast-import"
git -C "$R" fast-import --quiet <"$T/fast-import" && git -C "$R" checkout -q -f master ||
    fail "git fast-import"
C1=$(git -C "$R" rev-parse c1)
C2=$(git -C "$R" rev-parse c2)
TOP=$(cd "$R" && pwd -P)
OURS=$R/.git/noisefloor-bisect
BUILD="$CC -O0 -o prog prog.c -lm"

# the bisections rows of the store, "repo|length of the state" each
rows() {
    if [ "$NF_TEST_BACKEND" = postgresql ]; then
        pg_sql "SELECT repo || '|' || length(state) FROM bisections ORDER BY id"
    else
        /usr/bin/python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute("SELECT repo, length(state) FROM bisections ORDER BY id"): print("%s|%d" % r)' "$NOISEFLOOR_DB"
    fi
}
# the state JSON of the repository's row
state() {
    if [ "$NF_TEST_BACKEND" = postgresql ]; then
        pg_sql "SELECT state FROM bisections WHERE repo = '$TOP'"
    else
        /usr/bin/python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute("SELECT state FROM bisections WHERE repo = ?", (sys.argv[2],)): print(r[0])' "$NOISEFLOOR_DB" "$TOP"
    fi
}

t_case "kernel mode keeps its state in the store, every step a new process"
# "booting" a revision: the hook puts its program (built here once per
# revision) where the SPEC runs it and records the release the kernel
# would report
mkdir -p "$T/boot" "$T/kernels"
for i in 0 1 2; do
    sha=$(git -C "$R" rev-parse "c$i")
    cp "$T/prog.$i.c" "$T/kernels/$sha.c" && $CC -O0 -o "$T/kernels/$sha" "$T/kernels/$sha.c" -lm ||
        fail "build c$i"
done
HOOK="cp $T/kernels/\$1 $T/boot/prog && echo 6.8.0-g\$1 | cut -c1-19 >$T/boot/release"
expect_rc 0 "$NF" bisect start --repo "$R" --good c0 --bad c2 -m v --boot --next-hook "$HOOK" \
    -- -r 1 --warmup 0 --metric 'v=^v ([0-9.eE+-]+)$' -- "$T/boot/prog" "$T/boot/count"
expect_in out "^boot next: [0-9a-f]{40} commit 0$"
expect_in out "its state in the store"
[ -e "$OURS/state.json" ] && fail "kernel mode wrote $OURS/state.json"
case "$(rows)" in "$TOP|"[0-9]*) ;; *) fail "bisections rows: $(rows)" ;; esac
[ "$(rows | wc -l)" = 1 ] || fail "bisections rows: $(rows)"
state | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["boot"] is True and d["boots"] == [], d' ||
    fail "the stored state: $(state)"
# one at a time, in either mode, while the store holds one
expect_rc 2 "$NF" bisect start --repo "$R" --good c0 --bad c2 -m v --boot -- -r 1 -- "$T/boot/prog"
expect_one_line_err; expect_in err "a bisection is in progress in .* in the store "
expect_rc 2 "$NF" bisect start --repo "$R" --good c0 --bad c2 -m v --build "$BUILD" \
    -- --metric 'v=^v ([0-9.eE+-]+)$' -- '{tree}/prog' '{tree}/.count'
expect_one_line_err; expect_in err "a bisection is in progress in .* in the store "
[ "$(rows | wc -l)" = 1 ] || fail "a refused start changed the rows: $(rows)"
# boot and step until the bisection ends (about 25 boots here, 20 in a replay;
# 40 bounds a bisection that does not end): n the steps
boots() {
    n=0
    while [ "$n" -lt 40 ] && ! grep -q "^first bad commit" "$T/out"; do
        NOISEFLOOR_UNAME_R=$(cat "$T/boot/release") "$NF" bisect step --repo "$R" >"$T/out" 2>"$T/err" ||
            { fail "step $n: $(cat "$T/err")"; break; }
        n=$((n + 1))
    done
}
boots
expect_in out "^first bad commit: ${C2%????????????????????????????} commit 2: .*confirmed against its parent"
[ -e "$OURS/state.json" ] && fail "kernel mode wrote $OURS/state.json"
state | /usr/bin/python3 -c 'import json,sys; n=int(sys.argv[1]); d=json.load(sys.stdin); assert len(d["boots"]) == n, (len(d["boots"]), n)' "$n" ||
    fail "the store does not hold the $n boots"
# status, log and JSON from the store alone, without measuring
expect_rc 0 "$NF" bisect status --repo "$R"
expect_in out "^first bad commit: ${C2%????????????????????????????} commit 2"
expect_rc 0 "$NF" bisect log --repo "$R"
expect_in out "^noisefloor bisect start --good [0-9a-f]{40} --bad [0-9a-f]{40} .*--boot"
expect_in out "^# first bad commit: \[$C2\] commit 2$"
cp "$T/out" "$T/klog"

t_case "--json: change_pct of the means, change_better_pct, the test's CI and its level"
# the bisection above has ended: step gives its result again, measuring nothing
expect_rc 0 "$NF" bisect step --repo "$R" --json --kernel-release none
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C2"'"'
# v is lower-is-better: commit 2 is 20% higher, so 20% worse
json_check '(lambda f: abs(f["change_pct"] - 100 * (f["mean"] / f["baseline_mean"] - 1)) < 1e-9 and 15 < f["change_pct"] < 25 and f["change_better_pct"] == -f["change_pct"])(d["first_bad"])'
json_check '(lambda f: f["ci_low_pct"] < f["test_change_pct"] < f["ci_high_pct"] and 90 < f["ci_level_pct"] < 100)(d["first_bad"])'
json_check 'all(s["decision"] in ("good", "bad") and not s["given"] and s["rounds"] >= 5 and 90 < s["ci_level_pct"] < 100 for s in d["steps"]) and len(d["steps"]) >= 1'
json_check 'all(abs(s["change_pct"] - 100 * (s["mean"] / s["baseline_mean"] - 1)) < 1e-9 for s in d["steps"])'
json_check 'sorted(d["first_bad"]) == sorted(["commit", "subject", "rounds", "decision", "given", "baseline_mean", "mean", "change_pct", "change_better_pct", "test_change_pct", "ci_low_pct", "ci_high_pct", "ci_level_pct"])'
# commit 1 booted as the step and as commit 2's parent, nothing else
state >"$T/kstate"
json_check '[s["commit"] for s in d["steps"]] == ["'"$C1"'"] and d["rounds"] == len(__import__("json").load(open("'"$T/kstate"'"))["boots"])'
json_check 'sum(b["sha"] == "'"$C1"'" for b in __import__("json").load(open("'"$T/kstate"'"))["boots"]) == d["steps"][0]["rounds"] + d["first_bad"]["rounds"]'

t_case "reset ends it in the store"
# a store that is not the bisection's: none in progress there
expect_rc 2 env NOISEFLOOR_DB="$T/other.db" "$NF" bisect status --repo "$R"
expect_one_line_err; expect_in err "no bisection in progress"
expect_rc 0 "$NF" bisect reset --repo "$R"
[ -z "$(rows)" ] || fail "reset left rows: $(rows)"
expect_rc 2 "$NF" bisect status --repo "$R"
expect_one_line_err; expect_in err "no bisection in progress"

t_case "kernel mode's replay: the log's decisions in the store, only the rest booted"
grep -E '^(good|bad) [0-9a-f]{40}$' "$T/klog" >"$T/kmarks" || fail "the kernel log has no decisions"
grep -q "^good $C1\$" "$T/kmarks" || fail "the kernel log has not 'good $C1': $(cat "$T/kmarks")"
expect_rc 0 "$NF" bisect replay --repo "$R" "$T/klog"
expect_in out "^boot next: [0-9a-f]{40} commit 0$"
[ -e "$OURS/state.json" ] && fail "kernel mode's replay wrote $OURS/state.json"
state | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["boot"] is True and d["boots"] == [] and [m["mark"] + " " + m["sha"] for m in d["marks"]] == open(sys.argv[1]).read().split("\n")[:-1], d' "$T/kmarks" ||
    fail "the stored state has not the log's marks: $(state)"
boots
expect_in out "^first bad commit: ${C2%????????????????????????????} commit 2: .*confirmed against its parent"
state >"$T/kstate2"
expect_rc 0 "$NF" bisect step --repo "$R" --json --kernel-release none
# commit 1, given, booted only as commit 2's parent; a boot per step
json_check 'sum(b["sha"] == "'"$C1"'" for b in __import__("json").load(open("'"$T/kstate2"'"))["boots"]) == d["first_bad"]["rounds"] > 0'
json_check 'd["rounds"] == len(__import__("json").load(open("'"$T/kstate2"'"))["boots"]) == '"$n"
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C2"'"'
json_check 'all(s["given"] and s["rounds"] == 0 for s in d["steps"])'
json_check '[s["decision"] + " " + s["commit"] for s in d["steps"]] == open("'"$T/kmarks"'").read().split("\n")[:-1]'
expect_rc 0 "$NF" bisect log --repo "$R"
grep -E '^(good|bad) [0-9a-f]{40}$' "$T/out" | cmp -s - "$T/kmarks" || fail "the kernel replay's log differs"
expect_rc 0 "$NF" bisect reset --repo "$R"
[ -z "$(rows)" ] || fail "reset left rows: $(rows)"

t_case "replay takes the log's decisions; --remeasure measures them again"
"$NF" bisect reset --repo "$R" >/dev/null 2>&1 # whatever a failed case above left
set -- --metric 'v=^v ([0-9.eE+-]+)$' -- '{tree}/prog' '{tree}/.count'
expect_rc 0 "$NF" bisect start --repo "$R" --good c0 --bad c2 --build "$BUILD" -m v -- "$@"
[ -e "$OURS/state.json" ] || fail "userspace mode keeps its state file"
[ -z "$(rows)" ] || fail "userspace mode wrote a row: $(rows)"
expect_rc 0 "$NF" bisect run --repo "$R" --json
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C2"'"'
json_check 'all(not s["given"] and s["rounds"] >= 5 for s in d["steps"]) and len(d["steps"]) >= 1'
json_check '(lambda f: abs(f["change_pct"] - 100 * (f["mean"] / f["baseline_mean"] - 1)) < 1e-9 and 15 < f["change_pct"] < 25)(d["first_bad"])'
expect_rc 0 "$NF" bisect log --repo "$R"
cp "$T/out" "$T/log"
grep -E '^(good|bad) [0-9a-f]{40}$' "$T/log" >"$T/marks" || fail "the log has no decisions"
expect_rc 0 "$NF" bisect reset --repo "$R"
expect_rc 0 "$NF" bisect replay --repo "$R" --json "$T/log"
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C2"'"'
json_check 'all(s["given"] and s["rounds"] == 0 for s in d["steps"])'
json_check '[s["decision"] + " " + s["commit"] for s in d["steps"]] == open("'"$T/marks"'").read().split("\n")[:-1]'
# its own log is the same decisions again
expect_rc 0 "$NF" bisect log --repo "$R"
grep -E '^(good|bad) [0-9a-f]{40}$' "$T/out" | cmp -s - "$T/marks" || fail "the replay's log differs"
expect_rc 0 "$NF" bisect reset --repo "$R"
expect_rc 0 "$NF" bisect replay --repo "$R" --remeasure --json "$T/log"
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C2"'"'
json_check 'all(not s["given"] and s["rounds"] >= 5 for s in d["steps"]) and len(d["steps"]) >= 1'
expect_rc 0 "$NF" bisect reset --repo "$R"
# a log line that is no decision: one line, exit 2, nothing started
{ grep '^noisefloor bisect start ' "$T/log" && echo "maybe c1"; } >"$T/badlog"
expect_rc 2 "$NF" bisect replay --repo "$R" "$T/badlog"
expect_one_line_err; expect_in err "badlog:2: 'maybe c1' is not 'good REV', 'bad REV' or 'skip REV'"
[ -e "$OURS/state.json" ] && fail "a refused replay started a bisection"
{ grep '^noisefloor bisect start ' "$T/log" && echo "good nosuch"; } >"$T/badlog"
expect_rc 2 "$NF" bisect replay --repo "$R" "$T/badlog"
expect_one_line_err; expect_in err "unknown revision 'nosuch'"
expect_rc 2 "$NF" bisect run --remeasure --repo "$R"
expect_one_line_err; expect_in err "--remeasure goes with replay"

pass
