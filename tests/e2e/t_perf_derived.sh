# perf stat's derived ratios beside the counters, where the run has what
# they take, and the multiplexing note with its fix.  The reference is
# perf's own: tests/data/import/perf-stat-mail.txt is perf stat -r 10
# output from a machine with a PMU, whose "# ..." column says 1.158 CPUs
# utilized, 0.020 GHz and 0.25 insn per cycle (this machine has no PMU).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"
D=$ROOT/tests/data/import

t_case "CPUs utilized, GHz and insn per cycle, as perf printed them"
expect_rc 0 "$NF" import "$D/perf-stat-mail.txt" --format perf-stat -L mail
expect_rc 0 "$NF" show 1
expect_in out 'msec task-clock:u .*# 1\.158 CPUs utilized$'
expect_in out ' cycles:u .*\(83\.72%\)  # 0\.020 GHz$'
expect_in out ' instructions:u .*# 0\.25 insn per cycle$'
# Nothing derived where perf derives nothing of these.
expect_not_in out 'branches:u .*#'
expect_not_in out 'seconds wall .*#'

t_case "the multiplexing note says the fix"
expect_in out 'note: 6 counters were multiplexed \(the \(x%\) column: counted 83\.01% of the time'
expect_in out 'fix: count fewer events, or one group'
expect_in out '^ +per run$'

t_case "without cycles or a wall time: no ratio, no note"
# perf-stat-r3.txt: task-clock and the wall time (perf: 0.414 CPUs
# utilized), cycles <not supported>.
expect_rc 0 "$NF" import "$D/perf-stat-r3.txt" --format perf-stat -L r3
expect_rc 0 "$NF" show 2
expect_in out 'task-clock .*# 0\.414 CPUs utilized$'
expect_not_in out 'GHz|insn per cycle|multiplexed'
pass
