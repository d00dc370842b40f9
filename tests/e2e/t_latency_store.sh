# The latency workloads' histograms in the store: timer under two labels
# stores each repetition's buckets; report --html draws each label's CDF
# from them; show --json and export carry them; export -> import (into a
# fresh SQLite file, and into this store after rm) -> export gives the same
# text, and the re-imported runs draw again.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "timer stores a histogram per repetition"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L base timer -i 200 -l 100
expect_rc 0 "$NF" run -r 2 --warmup 0 -L next timer -i 200 -l 100
expect_rc 0 "$NF" show --json 1
json_check '[h["name"] for h in d["histograms"]] == ["wakeup"]'
json_check '[r["rep"] for r in d["histograms"][0]["reps"]] == [1, 2]'
# Every wakeup of a repetition is in its buckets.
json_check 'all(sum(c for _, c in r["buckets"]) == 100 for r in d["histograms"][0]["reps"])'

# report_draws FILE: both labels' CDFs, from 2 repetitions of 1 run each.
report_draws() {
    expect_rc 0 "$NF" report --html "$1" base next
    expect_not_in "$1" "No histogram is stored"
    expect_in "$1" "wakeup latency distribution"
    [ "$(grep -c '<g class="cdf"' "$T/$1")" -eq 2 ] || fail "$1: not two CDF lines"
    expect_in "$1" "base: 200 events, 2 repetitions of 1 run"
    expect_in "$1" "next: 200 events, 2 repetitions of 1 run"
}

t_case "report --html draws the CDFs from the store"
report_draws r1.html

t_case "export, import into a fresh store, export: the same"
expect_rc 0 "$NF" export
cp "$T/out" "$T/e1.json"
json_check 'len(d["runs"]) == 2 and all(len(r["histograms"][0]["reps"]) == 2 for r in d["runs"])'
expect_rc 0 "$NF" --db "$T/fresh.db" import "$T/e1.json" --format json
expect_rc 0 "$NF" --db "$T/fresh.db" export
cmp -s "$T/e1.json" "$T/out" || fail "export of the fresh store differs: $(diff "$T/e1.json" "$T/out" | head -5)"

t_case "rm, import into this store, export: the same, and drawn again"
expect_rc 0 "$NF" rm 1 2
expect_rc 0 "$NF" import "$T/e1.json" --format json
expect_rc 0 "$NF" export
cmp -s "$T/e1.json" "$T/out" || fail "export after rm and import differs: $(diff "$T/e1.json" "$T/out" | head -5)"
report_draws r2.html

pass
