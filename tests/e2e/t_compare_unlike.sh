# Unlike things are not compared silently (doc/noisefloor-compare.1): a
# line above the tables names what the labels' runs differ in (a
# built-in workload's arguments, the counters, pinning, host, kernel, CPU
# model) and the labels; where the workload's arguments differ the
# verdicts say "different workloads" unless --allow-different.  An ab
# session's variants differ on purpose: the line, and verdicts as usual.
. "$(dirname "$0")/lib.sh"

t_case "setup: pipe -l 2000 unpinned, pipe -l 1000 on CPU 0, and alike runs"
expect_rc 0 "$NF" run -q -r 3 --warmup 0 -L big pipe -l 2000
expect_rc 0 "$NF" run -q -r 3 --warmup 0 -L small --pin 0 pipe -l 1000
expect_rc 0 "$NF" run -q -r 3 --warmup 0 -L big2 pipe -l 2000

t_case "different arguments and pinning: said once above the table, no verdict"
expect_rc 0 "$NF" compare big small
expect_in out "^Unlike runs: workload arguments \(pipe\): big '-l 2000', small '-l 1000'; pinning \(--pin\): big none, small 0\. "
[ "$(grep -c '^Unlike runs' "$T/out")" -eq 1 ] || fail "the line is not once"
head -1 "$T/out" | grep -q '^Unlike runs' || fail "not above the tables"
expect_in out "^Verdict +different workloads$"
expect_not_in out "^Verdict +(improved|regressed|equivalent|inconclusive)"
expect_rc 0 "$NF" compare --brief big small
expect_in out "^Amean +usecs/op .* different workloads$"
expect_rc 0 "$NF" compare --json big small
json_check 'd["unlike"].startswith("workload arguments (pipe): big") and all(r["different_workloads"] for r in d["rows"])'

t_case "--allow-different decides them, the line stays"
expect_rc 0 "$NF" compare --allow-different big small
expect_in out "^Unlike runs: workload arguments"
expect_not_in out "different workloads"
expect_in out "^Verdict +(improved|regressed|equivalent|inconclusive)"

t_case "alike runs: no line"
expect_rc 0 "$NF" compare big big2
expect_not_in out "^Unlike runs"
expect_rc 0 "$NF" compare --json big big2
json_check 'd["unlike"] is None and not any(r["different_workloads"] for r in d["rows"])'

t_case "an ab session of different arguments: the line, and verdicts"
expect_rc 0 "$NF" ab --rounds 3:3 l1='pipe -l 1000' l2='pipe -l 2000'
expect_in out "^Unlike runs: workload arguments \(pipe\): l1 '-l 1000', l2 '-l 2000'\.$"
expect_not_in out "different workloads"

pass
