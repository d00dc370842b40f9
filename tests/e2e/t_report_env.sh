# report --html, its environment section: a key that only some labels'
# runs have (a --sysctl one label ran with) differs between the labels, as
# the table's "—" shows; the same environment on every label says so.
. "$(dirname "$0")/lib.sh"

export NOISEFLOOR_STATE="$T/tune.state"
mkdir -p "$T/fk/proc/sys/kernel"
echo 1 >"$T/fk/proc/sys/kernel/sched_autogroup_enabled"

t_case "runs with and without a --sysctl"
for l in k-a k-b; do
    expect_rc 0 "$NF" run -q -r 3 --warmup 0 -L $l --root "$T/fk" -- true
done
expect_rc 0 "$NF" run -q -r 3 --warmup 0 -L k-auto0 --root "$T/fk" \
    --sysctl kernel.sched_autogroup_enabled=0 -- true

# env_flags FILE: the flags of the environment section, one per line.
env_flags() {
    /usr/bin/python3 - "$1" <<'PY'
import re, sys
src = open(sys.argv[1], encoding="utf-8").read()
sec = src[src.index('<section id="env">'):]
ul = sec[sec.index('<ul class="flags">'):sec.index("</ul>")]
for li in re.findall(r"<li[^>]*>(.*?)</li>", ul, re.S):
    print(re.sub(r"<[^>]+>", "", li))
PY
}

t_case "a key only one label has differs between the labels"
expect_rc 0 "$NF" report k-a k-auto0 k-b --html env.html
env_flags env.html >"$T/out"
expect_in out "^sysctl differs between labels"
expect_in out "k-auto0 = kernel.sched_autogroup_enabled=0"
expect_in out "k-a = —"
expect_not_in out "The environment is the same"
# the table's row is flagged, not plain
grep -q '<tr><td class="warn"><b>sysctl</b>' env.html || fail "sysctl row not flagged"

t_case "labels without the key agree"
expect_rc 0 "$NF" report k-a k-b --html same.html
env_flags same.html >"$T/out"
expect_not_in out "sysctl"

t_case "a label whose runs differ in having the key"
expect_rc 0 "$NF" run -q -r 3 --warmup 0 -L k-b --root "$T/fk" \
    --sysctl kernel.sched_autogroup_enabled=0 -- true
expect_rc 0 "$NF" report k-a k-b --html mixed.html
env_flags mixed.html >"$T/out"
expect_in out "the runs of k-b differ in sysctl: — \| kernel.sched_autogroup_enabled=0"
[ "$(cat "$T/fk/proc/sys/kernel/sched_autogroup_enabled")" = 1 ] || fail "sysctl not restored"

pass
