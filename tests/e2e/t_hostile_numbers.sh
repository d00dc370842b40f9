# One rule for a number a double cannot hold, wherever it is read: run
# --metric, import --format values and perf-stat-csv refuse 1e-400 (not 0,
# it would become 0.0) and 1e999, and all take 1e-320 (a subnormal: the
# nearest double).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

for text in 1e-400 -1e-400 1e999; do
    t_case "$text is refused by run --metric and both importers"
    expect_rc 1 "$NF" run -r 1 --warmup 0 --metric "x=([-+0-9e.]+)" -- echo "$text"
    expect_in err "captured '$text'"
    printf '%s\n' 5 "$text" >v.txt
    expect_rc 2 "$NF" import v.txt --format values -L v --metric t
    expect_one_line_err
    expect_in err "v.txt:2: .*'$text'"
    printf '%s\n' "$text,,task-clock,1000,100.00,," >p.csv
    expect_rc 2 "$NF" import p.csv --format perf-stat-csv -L p
    expect_one_line_err
    expect_in err "p.csv:1: .*'$text'"
    expect_rc 0 "$NF" export
    # The failed runs of run stay, as failed; nothing was imported.
    json_check 'all(r["status"] == "failed" for r in d["runs"])'
done

t_case "1e-320 (a subnormal) is taken by all three"
expect_rc 0 "$NF" run -r 1 --warmup 0 --metric "x=([-+0-9e.]+)" -L r --json -- echo 1e-320
json_check 'next(m for m in d["metrics"] if m["name"] == "x")["values"] == [1e-320]'
printf '%s\n' 5 1e-320 >v.txt
expect_rc 0 "$NF" import v.txt --format values -L v --metric t
printf '%s\n' "1e-320,,task-clock,1000,100.00,," >p.csv
expect_rc 0 "$NF" import p.csv --format perf-stat-csv -L p
expect_rc 0 "$NF" export
json_check '[r["metrics"][0]["values"] for r in d["runs"] if r["label"] in "vp"] == [[5.0, 1e-320], [1e-320]]'
pass
