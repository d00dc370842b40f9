# backends: sqlite postgresql
# bisect end to end: a repository of 64 commits of a small C program that
# prints the k-th value of a fixed normal stream (k kept in a counter file
# in the revision's tree, so every value is fixed whatever the order of a
# round), mean 100 and CV 1%, commit 37 raising the mean by 3%, commit 32
# not building.  bisect names commit 37, skips 32, says "nothing to
# bisect" on an A/A range, resumes after SIGINT, finds the same commit in
# kernel mode with every step a new process, and reset leaves no worktree;
# report --bisect draws the bisection.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip "no git"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
CC=${CC:-cc}
R=$T/repo
git init -q "$R" && git -C "$R" config user.email t@example.org && git -C "$R" config user.name t ||
    fail "git init"

# prog.c of commit I: its own seed, mean MEAN, and a line that does not
# compile when BROKEN is 1.
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
    printf("v %.9g\n", MEAN * (1 + 0.01 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2)));
    return 0;
}
EOC
    [ "$3" = 1 ] && echo "this line does not compile"
    :
}
# one git fast-import for the 65 commits (a git commit each costs more
# than the rest of the setup)
for i in $(seq 0 64); do
    mean=100.0
    [ "$i" -ge 37 ] && mean=103.0
    broken=0
    [ "$i" -eq 32 ] && broken=1
    gen "$i" "$mean" "$broken" >"$T/prog.$i.c"
    subject="commit $i"
    [ "$i" -eq 49 ] && subject="commit 49 <b>&\"x\"'" # a step of the first case: escaped in HTML
    printf 'commit refs/heads/master\ncommitter t <t@example.org> %d +0000\ndata <<EOM\n%s\nEOM\n' \
        $((1700000000 + i)) "$subject"
    printf 'M 644 inline prog.c\ndata %d\n' "$(wc -c <"$T/prog.$i.c")"
    cat "$T/prog.$i.c"
    printf 'reset refs/tags/c%d\nfrom refs/heads/master\n\n' "$i"
done >"$T/fast-import"
git -C "$R" fast-import --quiet <"$T/fast-import" && git -C "$R" checkout -q -f master ||
    fail "git fast-import"
C37=$(git -C "$R" rev-parse c37)
# a build (a shell command in the revision's worktree) that compiles each
# prog.c once for the whole file: the cases bisect overlapping ranges, and
# a compile costs more than a step's rounds; one that does not compile
# fails every time, so it is skipped in every case
mkdir -p "$T/cache"
BUILD="h=\$(git hash-object prog.c) && { [ -x $T/cache/\$h ] || { $CC -O0 -o $T/cache/\$h.\$\$ prog.c -lm && mv $T/cache/\$h.\$\$ $T/cache/\$h; }; } && cp $T/cache/\$h prog"
# the SPEC's words, {tree} the revision's worktree
set -- --metric 'v=^v ([0-9.eE+-]+)$' -- '{tree}/prog' '{tree}/.count'

t_case "bad input: one line, exit 2"
expect_rc 2 "$NF" bisect start --repo "$T" --good c0 --bad c64 -- "$@"
expect_one_line_err; expect_in err "is not a git repository"
expect_rc 2 "$NF" bisect start --repo "$R" --good nosuch --bad c64 -- "$@"
expect_one_line_err; expect_in err "unknown revision 'nosuch'"
expect_rc 2 "$NF" bisect start --repo "$R" --good c64 --bad c0 -- "$@"
expect_one_line_err; expect_in err "GOOD c64 is not an ancestor of BAD c0"
expect_rc 2 "$NF" bisect start --repo "$R" --good c0 --bad c64 -- --bogus x
expect_one_line_err; expect_in err "SPEC: "
expect_rc 2 "$NF" bisect start --repo "$R" --good c0 --bad c64
expect_one_line_err; expect_in err "needs a SPEC"
expect_rc 2 "$NF" bisect frobnicate
expect_one_line_err; expect_in err "unknown bisect command 'frobnicate'"
expect_rc 2 "$NF" bisect run --repo "$R"
expect_one_line_err; expect_in err "no bisection in progress"
expect_rc 0 "$NF" bisect start --repo "$R" --good c0 --bad c64 -m v -- "$@"
expect_rc 2 "$NF" bisect start --repo "$R" --good c0 --bad c64 -m v -- "$@"
expect_one_line_err; expect_in err "a bisection is in progress"
expect_rc 0 "$NF" bisect reset --repo "$R"
# a build that fails at GOOD: nothing can be measured
expect_rc 0 "$NF" bisect start --repo "$R" --good c32 --bad c64 --build "$BUILD" -m v -- "$@"
expect_rc 1 "$NF" bisect run --repo "$R"
expect_one_line_err; expect_in err "GOOD: nothing can be measured \(the build failed at"
expect_rc 0 "$NF" bisect reset --repo "$R"

t_case "the first bad commit, the broken build skipped"
expect_rc 0 "$NF" bisect start --repo "$R" --good c0 --bad c64 --build "$BUILD" -m v -- "$@"
expect_rc 0 "$NF" bisect run --repo "$R"
expect_in out "^step +revision +rounds +change vs GOOD +decision +subject"
expect_in out " skip +commit 32$"
expect_in out "^first bad commit: ${C37%????????????????????????????} commit 37: \+[0-9.]+% \[\+[0-9.]+%, \+[0-9.]+%\] on v \(confirmed against its parent, [0-9]+ rounds\)$"
expect_in out "^[0-9]+ steps, [0-9]+ rounds, [0-9]+ builds$"
# the result is the state's: run --json gives it again without measuring
expect_rc 0 "$NF" bisect run --repo "$R" --json
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C37"'"'
json_check 'd["first_bad"]["subject"] == "commit 37" and d["first_bad"]["ci_low_pct"] > 0'
json_check 'any(s["decision"] == "skip" and s["subject"] == "commit 32" for s in d["steps"])'
json_check 'all(s["decision"] in ("good", "bad", "skip") for s in d["steps"])'
json_check 'd["rounds"] > 0 and d["builds"] >= 4'
json_check 'sorted(d) == ["builds", "first_bad", "result", "rounds", "steps"]'
# report --bisect draws it: every revision of the range in range order,
# each step's decision on its revision, the first bad commit marked, the
# subjects escaped
cp "$T/out" "$T/run.json"
expect_rc 0 "$NF" report --bisect --repo "$R" --html "$T/bisect.html"
{ git -C "$R" rev-parse c0 && git -C "$R" rev-list --topo-order --reverse c0..c64; } >"$T/range"
grep -o 'class="rev" data-rev="[0-9a-f]*"' "$T/bisect.html" | sed 's/.*data-rev="//; s/"$//' \
    >"$T/drawn"
[ "$(wc -l <"$T/drawn")" -eq 65 ] && cmp -s "$T/range" "$T/drawn" ||
    fail "the page does not draw c0..c64 in range order: $(head -c 300 "$T/drawn")"
H=$T/bisect.html
cp "$T/run.json" "$T/out" # (the checks of the page against the steps run --json gave)
json_check 'all(("data-rev=\"%s\" data-decision=\"%s\"" % (s["commit"], s["decision"])) in open("'"$H"'").read() for s in d["steps"])'
json_check 'len(d["steps"]) == open("'"$H"'").read().count("<title>step ")'
json_check '1 + len([s for s in d["steps"] if s["decision"] != "skip"]) == open("'"$H"'").read().count("<line class=\"ci ")'
expect_in bisect.html "data-rev=\"$C37\" data-decision=\"bad\" data-first-bad=\"1\""
[ "$(grep -c 'data-first-bad=' "$H")" -eq 1 ] || fail "not one first bad commit marked"
expect_in bisect.html "data-rev=\"$(git -C "$R" rev-parse c0)\" data-decision=\"good\""
expect_in bisect.html "data-rev=\"$(git -C "$R" rev-parse c64)\" data-decision=\"bad\""
expect_in bisect.html "<title>step [0-9]+: [0-9a-f]{12} commit 49 &lt;b&gt;&amp;&quot;x&quot;&#39;: \+[0-9.]+% \[[-+][0-9.]+%, \+[0-9.]+%\] vs GOOD, [0-9]+ rounds, bad</title>"
expect_in bisect.html "<td>skip</td><td>commit 32</td>"
expect_in bisect.html "^<p class=\"result\">first bad commit: <code>${C37%????????????????????????????}</code> commit 37: "
expect_not_in bisect.html "<b>&"
# every round is stored as runs, labelled by the revisions
expect_rc 0 "$NF" list
expect_in out "${C37%????????????????????????????}"
expect_rc 0 "$NF" bisect log --repo "$R"
expect_in out "^noisefloor bisect start --good [0-9a-f]{40} --bad [0-9a-f]{40} --build"
expect_in out "^skip [0-9a-f]{40}$"
expect_in out "^# first bad commit: \[$C37\] commit 37$"
expect_rc 0 "$NF" bisect status --repo "$R"
expect_in out "^first bad commit: "

t_case "reset leaves no worktree"
[ "$(git -C "$R" worktree list | wc -l)" -gt 1 ] || fail "no worktrees while bisecting"
expect_rc 0 "$NF" bisect reset --repo "$R"
[ "$(git -C "$R" worktree list | wc -l)" -eq 1 ] || fail "worktrees left: $(git -C "$R" worktree list)"
[ ! -e "$R/.git/noisefloor-bisect" ] || fail "our directory is left"
[ -z "$(git -C "$R" status --porcelain)" ] || fail "the work tree changed"
[ "$(git -C "$R" rev-parse HEAD)" = "$(git -C "$R" rev-parse c64)" ] || fail "HEAD moved"
expect_rc 2 "$NF" report --bisect --repo "$R" --html "$T/none.html"
expect_one_line_err; expect_in err "no bisection in progress"
[ ! -e "$T/none.html" ] || fail "a page written for no bisection"

t_case "an A/A range: nothing to bisect"
expect_rc 0 "$NF" bisect start --repo "$R" --good c0 --bad c30 --build "$BUILD" -m v -- "$@"
expect_rc 0 "$NF" bisect run --repo "$R" --json
json_check 'd["result"] == "nothing" and d["first_bad"] is None and d["steps"] == []'
expect_rc 0 "$NF" bisect run --repo "$R"
expect_in out "^nothing to bisect: GOOD and BAD are equivalent"
expect_rc 0 "$NF" bisect reset --repo "$R"

t_case "SIGINT keeps the state; bisect run resumes"
expect_rc 0 "$NF" bisect start --repo "$R" --good c33 --bad c40 --build "$BUILD" -m v -- "$@"
"$NF" bisect run --repo "$R" >"$T/out1" 2>"$T/err1" &
pid=$!
S=$R/.git/noisefloor-bisect/state.json
# interrupt once a step has begun (its rounds are in the state)
for _ in $(seq 1200); do
    [ -e "$S" ] && [ "$(grep -c "\"kind\": \"step\"" "$S")" -ge 1 ] && break
    sleep 0.05
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || fail "SIGINT: expected exit 130, got $rc: $(cat "$T/err1")"
grep -q "interrupted by signal 2; the state keeps [0-9]* rounds: bisect run resumes" "$T/err1" ||
    fail "no interrupt line: $(cat "$T/err1")"
expect_rc 0 "$NF" bisect run --repo "$R" --json
json_check 'd["result"] == "found" and d["first_bad"]["commit"] == "'"$C37"'"'
expect_rc 0 "$NF" bisect log --repo "$R"
cp "$T/out" "$T/log"
expect_rc 0 "$NF" bisect reset --repo "$R"

t_case "replay re-runs a log's bisection"
expect_rc 0 "$NF" bisect replay --repo "$R" "$T/log"
expect_in out "^first bad commit: ${C37%????????????????????????????} commit 37"
expect_rc 0 "$NF" bisect reset --repo "$R"

t_case "kernel mode: a simulated kernel, each boot a new process"
# "booting" a revision: the hook puts its program (built here once per
# revision) where the SPEC runs it, and records its sha as the release the
# kernel would report; the value stream goes on across boots.  A boot is
# one run of 5 repetitions (its mean the boot's value), so fewer boots, each
# a new process, decide a step than with one value per boot
mkdir -p "$T/boot" "$T/kernels"
for i in $(seq 35 38); do # (the cases above built most of them)
    sha=$(git -C "$R" rev-parse "c$i") h=$(git -C "$R" rev-parse "c$i:prog.c")
    [ -x "$T/cache/$h" ] || { git -C "$R" show "$sha:prog.c" >"$T/kernels/$sha.c" &&
        $CC -O0 -o "$T/cache/$h" "$T/kernels/$sha.c" -lm; } || fail "build c$i"
    cp "$T/cache/$h" "$T/kernels/$sha" || fail "copy c$i"
done
HOOK="cp $T/kernels/\$1 $T/boot/prog && printf '6.8.0-g%.12s\\n' \$1 >$T/boot/release"
expect_rc 0 "$NF" bisect start --repo "$R" --good c35 --bad c38 -m v --boot --next-hook "$HOOK" \
    -- -r 5 --warmup 0 --metric 'v=^v ([0-9.eE+-]+)$' -- "$T/boot/prog" "$T/boot/count"
expect_in out "^boot next: [0-9a-f]{40} commit 35$"
expect_rc 2 "$NF" bisect run --repo "$R"
expect_one_line_err; expect_in err "kernel mode"
expect_rc 2 "$NF" bisect step --repo "$R" --kernel-release 6.8.0-gdeadbeef1234
expect_one_line_err; expect_in err "is not [0-9a-f]{12}, the revision to boot"
n=0
while [ "$n" -lt 200 ] && ! grep -q "^first bad commit" "$T/out"; do
    read -r rel <"$T/boot/release"
    NOISEFLOOR_UNAME_R=$rel "$NF" bisect step --repo "$R" >"$T/out" 2>"$T/err" ||
        { fail "step $n: $(cat "$T/err")"; break; }
    n=$((n + 1))
done
expect_in out "^first bad commit: ${C37%????????????????????????????} commit 37: .*confirmed against its parent"
expect_rc 0 "$NF" bisect status --repo "$R"
expect_in out "^first bad commit: ${C37%????????????????????????????} commit 37"
# its drawing: the boots' decisions as the steps' (c35..c38: 4 revisions)
expect_rc 0 "$NF" report --bisect --repo "$R" --html "$T/kernel.html"
expect_in kernel.html "kernel mode"
expect_in kernel.html "data-rev=\"$C37\" data-decision=\"bad\" data-first-bad=\"1\""
[ "$(grep -c 'class="rev"' "$T/kernel.html")" -eq 4 ] || fail "the kernel page does not draw c35..c38"
expect_rc 0 "$NF" bisect reset --repo "$R"

pass
