# One `perf stat -r N` invocation imported from perf's text keeps its
# "( +- x% )": compare tests it as N repetitions with that standard error
# (Welch from summary statistics), instead of one value that no test can
# use.  Several invocations appended stay a run of their means.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"
D=$ROOT/tests/data/import

t_case "two -r 10 blocks compare as 10 repetitions each"
# The mail's block, and the same with another wall time and +-: SciPy's
# ttest_ind_from_stats gives p 0.00155 (tests/ref/gen_welch_summary.py).
sed 's/14.5464 +- 0.0758/14.2000 +- 0.0500/; s/( +-  0.52% )$/( +-  0.35% )/' \
    "$D/perf-stat-mail.txt" >"$T/b.txt"
expect_rc 0 "$NF" import "$D/perf-stat-mail.txt" --format perf-stat -L a
expect_rc 0 "$NF" import "$T/b.txt" --format perf-stat -L b
expect_rc 0 "$NF" export --format json -L a
json_check 'd["runs"][0]["env"]["perf_stat_repeat"]["runs"] == 10'
json_check 'd["runs"][0]["env"]["perf_stat_repeat"]["sem_pct"]["wall"] == 0.52 and d["runs"][0]["env"]["perf_stat_repeat"]["sem_pct"]["cycles:u"] == 0.7'
json_check '"compare tests it as 10 repetitions" in d["runs"][0]["note"]'
expect_rc 0 "$NF" compare --json -m wall a b
json_check 'abs(d["rows"][0]["p_value"] - 0.001554650600031387) < 1e-6 and d["rows"][0]["verdict"] == "improved"'
json_check 'not any("at least 3" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare -m wall a b
expect_in out 'one perf stat -r 10 block: its mean and \( \+- 0\.52% \) stand for 10 repetitions'
# the table says what the test used: N 10, and the standard deviation
# sem * sqrt(N) (0.0052 * 14.5464 * sqrt(10) = 0.2392, CV 0.52% * sqrt(10)
# = 1.64%; b: 0.1572, 1.11%)
expect_in out '^N +10 +10$'
expect_in out '^Stddev +seconds +0\.2392 +0\.1572$'
expect_in out '^CoeffVar +seconds +1\.64% +1\.11%$'
expect_rc 0 "$NF" compare -m wall --format mail a b
expect_in out '^Stddev +wall +0\.2392 +0\.1572$'
expect_rc 0 "$NF" compare --json -m wall a b
json_check 'd["rows"][0]["n"] == 10 and d["rows"][0]["baseline_n"] == 10'
expect_rc 0 "$NF" report --html "$T/r.html" a b
expect_rc 0 grep -q '<td class="num">10</td>' "$T/r.html"

t_case "without -r, or appended invocations: as before"
expect_rc 0 "$NF" import "$D/perf-stat.txt" --format perf-stat -L single
expect_rc 0 "$NF" export --format json -L single
json_check '"perf_stat_repeat" not in (d["runs"][0]["env"] or {})'
expect_rc 0 "$NF" import "$D/perf-stat-elapsed.txt" --format perf-stat -L three
expect_rc 0 "$NF" export --format json -L three
json_check '"perf_stat_repeat" not in (d["runs"][0]["env"] or {})'
pass
