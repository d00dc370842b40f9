# compare pairs by host (runs imported from four simulated hosts, each
# running A and B, and a fifth that ran only A), and practical
# significance: a real change inside the margin is equivalent, keeps
# "significant", and no regression gate fires on it; --threshold 0 is plain
# significance.  Then a fleet: four agents (NOISEFLOOR_HOSTNAME plays the
# hosts) each run one copy of an ab job; compare pairs A and B by host.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

t_case "import runs of five hosts"
# Host levels differ by +-10%; B is 2% slower than A on every host; eight
# repetitions a run with a fixed +-0.5% pattern.
/usr/bin/python3 - >"$T/fleet.json" <<'PY'
import json
levels = {"h1": 10.0, "h2": 11.0, "h3": 9.0, "h4": 10.5, "h5": 12.0}
wiggle = [0.004, -0.003, 0.005, -0.005, 0.001, -0.002, 0.003, -0.004]
runs = []
for label, factor, hosts in (("A", 1.0, levels), ("B", 1.02, ["h1", "h2", "h3", "h4"])):
    for i, h in enumerate(hosts):
        vals = [levels[h] * factor * (1 + w * (1 if i % 2 else -1)) for w in wiggle]
        runs.append({"label": label, "workload": "pipe", "repeat": 8, "warmup": 1,
                     "started": "2026-01-0%dT12:00:00Z" % (i + 1), "status": "complete",
                     "env": {"hostname": h, "kernel": "6.1"},
                     "metrics": [{"name": "usecs/op", "unit": "usecs/op", "better": "lower",
                                  "primary": True, "values": vals}]})
print(json.dumps({"runs": runs}))
PY
expect_rc 0 "$NF" import "$T/fleet.json" --format json

t_case "pairs by host, says how many, names the left-out host"
expect_rc 3 "$NF" compare --json --fail-on-regression A B
json_check 'd["rows"][0]["pairing"] == "hosts" and d["rows"][0]["pairs"] == 4'
json_check 'd["rows"][0]["verdict"] == "regressed" and abs(d["rows"][0]["test_change_pct"] - 2) < 0.1'
json_check 'abs(d["rows"][0]["change_pct"] - (d["rows"][0]["mean"] / d["rows"][0]["baseline_mean"] - 1) * 100) < 1e-9'
json_check 'any("paired by host with A: 4 hosts ran both (h1, h2, h3, h4)" in n for n in d["rows"][0]["notes"])'
json_check 'any("hosts that ran only A, left out: h5" in n for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare A B
expect_in out "note: B: paired by host with A: 4 hosts ran both"
expect_in out "regressed"
expect_in out "^welch test \(its paired form where rows are paired by round or host\), alpha 0\.05"
expect_rc 0 "$NF" report --html - A B
expect_in out "; welch test \(its paired form where rows are paired by round or host\), alpha 0\.05"

t_case "utest pairs by host too"
# Four hosts are too few for a signed-rank CI at 5%: no verdict, but paired.
expect_rc 0 "$NF" compare --json --test utest A B
json_check 'd["rows"][0]["pairing"] == "hosts" and d["rows"][0]["verdict"] == "inconclusive"'
json_check 'any("signed-rank" in n for n in d["rows"][0]["notes"])'

t_case "a real change inside the margin is equivalent"
# +0.14% at CV ~0.1%, 200 repetitions a side: the CI excludes 0 but lies
# inside +-1%.
awk 'BEGIN { for (i = 0; i < 200; i++) printf "%.6f\n", 100 * (1 + 0.001 * ((i * 37) % 11 - 5) / 5) }' >base.txt
awk 'BEGIN { for (i = 0; i < 200; i++) printf "%.6f\n", 100.14 * (1 + 0.001 * ((i * 53) % 11 - 5) / 5) }' >tiny.txt
for l in base tiny; do
    expect_rc 0 "$NF" import "$l.txt" --format values --label "$l" --metric context-switches --better lower
done
expect_rc 0 "$NF" compare --json --fail-on-regression base tiny
json_check 'd["rows"][0]["verdict"] == "equivalent" and d["rows"][0]["significant"] is True'
json_check 'd["rows"][0]["ci_low_pct"] > 0 and d["rows"][0]["ci_high_pct"] < 1'
json_check 'any(n == "tiny: a real change of %+.2f%% (worse), inside the \u00b11%% margin" % -d["rows"][0]["test_change_pct"] for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare base tiny
expect_in out "a real change of -0\.14% \(worse\), inside the ±1% margin"
expect_not_in out "regressed"

t_case "--threshold 0 is plain significance"
expect_rc 3 "$NF" compare --json --threshold 0 --fail-on-regression base tiny
json_check 'd["threshold_pct"] == 0 and d["rows"][0]["verdict"] == "regressed"'
expect_rc 2 "$NF" compare --threshold -1 base tiny
expect_one_line_err

t_case "four agents each ran FA and FB: compare pairs by host"
expect_rc 0 "$NF" submit --copies 4 -- ab --rounds 3:3 'FA=pipe -l 1000' 'FB=pipe -l 1000'
for h in hA hB hC hD; do
    NOISEFLOOR_HOSTNAME=$h expect_rc 0 "$NF" agent --allow-commands --once
done
expect_rc 0 "$NF" compare --json -m usecs/op FA FB
json_check 'd["rows"][0]["pairing"] == "hosts" and d["rows"][0]["pairs"] == 4'
json_check 'any("paired by host with FA: 4 hosts ran both (hA, hB, hC, hD)" in n for n in d["rows"][0]["notes"])'
json_check 'd["rows"][0]["sequential"] is None'
pass
