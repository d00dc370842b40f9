# compare over imported `values` files: verdicts by direction, equivalence of
# the same data, inconclusive with runs_needed, Holm, exit codes.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# Samples generated once with numpy (seeded) and written here literally:
# base ~ N(100, 1), slow = base * 1.10 (CV 1%), fast = base * 0.90.
gen() {  # gen FILE FACTOR: ten values with CV ~1%
    for v in 100.3 99.1 101.2 98.7 100.9 99.6 100.4 99.8 101.5 98.9; do
        echo "$v * $2" | awk '{ printf "%.6f\n", $1 * $3 }'
    done >"$1"
}
gen base.txt 1.0
gen slow.txt 1.10
gen fast.txt 0.90
printf '# same data, other label\n' >same.txt; cat base.txt >>same.txt
printf '100\n108\n95\n104\n' >noisy1.txt
printf '101\n109\n96\n105\n' >noisy2.txt

t_case "import the samples"
for l in base slow fast same noisy1 noisy2; do
    expect_rc 0 "$NF" import "$l.txt" --format values --label "$l" --metric latency --unit ms --better lower
done
expect_rc 0 "$NF" import base.txt --format values --label tput-base --metric tput --unit MB/s --better higher
expect_rc 0 "$NF" import slow.txt --format values --label tput-more --metric tput --unit MB/s --better higher

t_case "text: verdicts by direction"
expect_rc 0 "$NF" compare base slow fast same
expect_in out "latency \(lower is better\)"
expect_in out "Amean"
expect_in out "regressed"
expect_in out "improved"
expect_in out "equivalent"
# + is better: slow shows a negative change between stars.
expect_in out '\* *-10\.00%\*'
expect_in out '\* *10\.00%\*'
expect_in out "^welch test, alpha 0\.05, equivalence within ±1%"

t_case "JSON: verdicts, CI, Holm"
expect_rc 0 "$NF" compare --json base slow fast same
json_check 'd["baseline"] == "base" and d["test"] == "welch" and d["alpha"] == 0.05 and d["threshold_pct"] == 1'
json_check '[r["verdict"] for r in d["rows"]] == ["regressed", "improved", "equivalent"]'
json_check 'abs(d["rows"][0]["change_pct"] - 10) < 1e-6 and d["rows"][0]["ci_low_pct"] > 8'
json_check 'all(r["p_adjusted"] >= r["p_value"] for r in d["rows"])'
json_check 'd["rows"][2]["change_pct"] == 0 and d["rows"][2]["significant"] is False'

t_case "higher is better"
# Higher is better: 10% more throughput is an improvement.
expect_rc 0 "$NF" compare --json tput-base tput-more
json_check 'd["rows"][0]["verdict"] == "improved" and d["rows"][0]["better"] == "higher"'

t_case "inconclusive says how many would settle it"
# Noisy, small, 1% apart: inconclusive, and it says how many would settle it.
expect_rc 0 "$NF" compare --json noisy1 noisy2
json_check 'd["rows"][0]["verdict"] == "inconclusive" and d["rows"][0]["runs_needed"] > 4'
expect_rc 0 "$NF" compare noisy1 noisy2
expect_in out "inconclusive"
expect_in out "repetitions per side"

t_case "-b, utest, bootstrap"
# -b picks the baseline; the other tests run too.
expect_rc 0 "$NF" compare --json -b slow base
json_check 'd["baseline"] == "slow" and d["rows"][0]["verdict"] == "improved"'
for t in utest bootstrap; do
    expect_rc 0 "$NF" compare --json --test $t base slow
    json_check 'd["rows"][0]["verdict"] == "regressed" and d["test"] == "'$t'"'
done

t_case "--fail-on-regression exit codes"
# --fail-on-regression: 3 when a row regressed, 0 otherwise.
expect_rc 3 "$NF" compare --fail-on-regression base slow
expect_rc 0 "$NF" compare --fail-on-regression base fast

t_case "--brief"
# --brief: one line per metric, the verdict after the change.
expect_rc 0 "$NF" compare --brief base slow fast
expect_in out "^Amean +latency +[0-9.]+ \(  0\.00%\) +[0-9.]+ \* *-10\.00%\* regressed +[0-9.]+ \* *10\.00%\* improved"

t_case "drift needs more than three repetitions"
# Three repetitions in perfect order are no evidence of drift; twelve are.
printf '1\n2\n3\n' >up3.txt
expect_rc 0 "$NF" import up3.txt --format values --label up3 --metric latency --better lower
expect_rc 0 "$NF" compare --json base up3
json_check 'not any("drift" in n for n in d["rows"][0]["notes"])'
seq 100 111 >up12.txt
expect_rc 0 "$NF" import up12.txt --format values --label up12 --metric latency --better lower
expect_rc 0 "$NF" compare --json base up12
json_check 'any("drift" in n for n in d["rows"][0]["notes"])'

t_case "secondary metrics: one line each, notes counted, full under -m or --all"
# Two runs of three metrics: the primary's block and notes in full, each
# other metric one line of a compact table and its notes counted; --all
# shows every block with its notes counted, -m in full.  "spread" is so
# noisy that settling it would take more than 100 times the repetitions
# so far.
/usr/bin/python3 - "$ROOT/tests/data/import/noisefloor-export.json" >three.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
runs = []
vals = {"x": ([100, 110, 90, 105, 95, 112], [120, 132, 108, 126, 114, 134]),
        "noisy": ([100, 130, 80, 120, 90, 110], [101, 131, 81, 121, 91, 111]),
        "spread": ([100, 300, 50, 200, 10, 150], [101, 301, 50.5, 202, 10.1, 151])}
for i, label in enumerate(["m-base", "m-var"]):
    r = dict(d["runs"][0], id=i + 1, label=label, repeat=6)
    r["metrics"] = [{"name": n, "unit": "ms", "better": "lower", "primary": n == "x",
                     "supported": True, "values": v[i]} for n, v in vals.items()]
    runs.append(r)
json.dump({"runs": runs}, sys.stdout)
PY
expect_rc 0 "$NF" import three.json --format json --renumber
expect_rc 0 "$NF" compare m-base m-var
expect_in out "^  note: m-var: "
expect_in out "^pipe, other metrics +m-base +m-var$"
expect_in out "^Amean noisy +105\.00 \(  0\.00%\) +106\.00 \( -0\.95%\) inconclusive$"
expect_in out "^Amean spread +"
[ "$(grep -c '^CI ' "$T/out")" -eq 1 ] || fail "more than the primary metric's block in full"
expect_in out "^  notes under these metrics: noisy [0-9]+, spread [0-9]+; compare -m METRIC or --all shows them$"
expect_rc 0 "$NF" compare --all m-base m-var
expect_in out "^  note: m-var: "
expect_not_in out "^pipe, other metrics"
expect_in out "^  [0-9]+ notes?: compare -m noisy shows (it|them)$"
expect_in out "^  [0-9]+ notes?: compare -m spread shows (it|them)$"
expect_rc 0 "$NF" compare --brief m-base m-var
expect_in out "^  note: pipe x: m-base: noisy"
expect_in out "^  notes under the other metrics: noisy [0-9]+, spread [0-9]+; compare -m METRIC shows them$"
expect_not_in out "note: pipe noisy"
expect_rc 0 "$NF" compare -m spread m-base m-var
expect_in out "^  note: m-var: inconclusive; settling it at this noise would take more than 100 times the 6 repetitions per side so far$"
expect_not_in out "about [0-9]+ repetitions"

t_case "bad input: one line, exit 2"
# Bad input: one line, exit 2.
expect_rc 2 "$NF" compare base
expect_one_line_err; expect_in err "at least two labels"
expect_rc 2 "$NF" compare base nosuchlabel
expect_one_line_err; expect_in err "nosuchlabel"
expect_rc 2 "$NF" compare --alpha 0.7 base slow
expect_one_line_err; expect_in err "alpha"
expect_rc 2 "$NF" compare --alpha 0 base slow
expect_rc 2 "$NF" compare -m nosuchmetric base slow
expect_one_line_err; expect_in err "no metric 'nosuchmetric'"
expect_rc 2 "$NF" compare --test ttest base slow
expect_one_line_err
expect_rc 2 "$NF" --db "$T/missing.db" compare base slow
expect_one_line_err
pass
