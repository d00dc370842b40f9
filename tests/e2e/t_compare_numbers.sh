# Every number of compare's table is what its row says
# (doc/noisefloor-compare.1): the change beside a mean is the change of
# the means shown, also on a row paired by ab round, whose paired change
# (of the per-round log-ratios) has a row of its own, "Paired", which
# the CI row's interval is of; a CI at another level than 1 - alpha says
# its level; the "Holm" p of a row in no Holm family is "-"; a count's
# ratio CI that spans orders of magnitude is not shown ("too wide"), and
# the JSON's change_pct is that of baseline_mean and mean with
# change_better_pct beside it.  The values are fixed (a command prints
# the k-th of a list at its k-th call): every number is known by hand.
. "$(dirname "$0")/lib.sh"

cat >"$T/vals.sh" <<'SH'
#!/bin/sh
st=$1
shift
k=$(cat "$st" 2>/dev/null || echo 0)
k=$((k + 1))
echo "$k" >"$st"
eval "v=\${$k}"
echo "v $v"
SH
chmod +x "$T/vals.sh"
M='--metric v=^v\ ([0-9.eE+-]+)$ --unit s'

t_case "setup: an ab session whose means are equal and whose rounds are not"
# A: 10 20 10 20 10 20, B: 12 18 12 18 12 18 (a warm-up value first):
# the means are both 15 (a change of 0%), the per-round ratios 1.2 and
# 0.9, whose geometric mean is sqrt(1.08) = 1.03923 (3.92% worse)
expect_rc 0 "$NF" ab --rounds 3:6 --order abba -m v "A=$M -- ./vals.sh st.a 99 10 20 10 20 10 20" \
    "B=$M -- ./vals.sh st.b 99 12 18 12 18 12 18"

t_case "the change beside the means is theirs; the paired change has its own row"
expect_rc 0 "$NF" compare -m v A B
expect_in out "^Amean +s +15\.0000 \(  0\.00%\) +15\.0000 [(*]  0\.00%[)*]$"
expect_in out "^Paired +change +[(*] *-3\.92%[)*]$"
expect_in out "^Paired change: the change of the pairs"
expect_rc 0 "$NF" compare --json -m v A B
json_check 'd["rows"][0]["change_pct"] == 0 and d["rows"][0]["change_better_pct"] == 0'
json_check 'abs(d["rows"][0]["test_change_pct"] - (1.08 ** 0.5 - 1) * 100) < 1e-9 and d["rows"][0]["change_of"] == "pairs"'
json_check 'd["rows"][0]["ci_low_pct"] < d["rows"][0]["test_change_pct"] < d["rows"][0]["ci_high_pct"]'

t_case "a CI not at 1 - alpha says its level; no Holm p for a row in no family"
expect_rc 0 "$NF" compare --json -m v A B
json_check 'd["rows"][0]["sequential"] is not None and d["rows"][0]["family"] is None'
level=$(/usr/bin/python3 -c 'import json,sys; print("%.4g" % json.load(open(sys.argv[1]))["rows"][0]["ci_level_pct"])' "$T/out")
[ "$level" != 95 ] || fail "the session's CI is at 95%: nothing to label"
expect_rc 0 "$NF" compare -m v A B
expect_in out "^CI +change +\[[-+][0-9.]+%, [-+][0-9.]+%\] at $level%$"
expect_in out "^p +raw / Holm +[0-9.e-]+ / -$"
expect_in out "^A CI \"at N%\" is an ab session's repeated CI"
expect_rc 0 "$NF" compare -m v --brief A B
expect_in out "^Amean +v +15\.0000 \(  0\.00%\) +15\.0000 [(*]  0\.00%[)*]"

t_case "the HTML report says it as the text table: Paired change, its CI with level"
expect_rc 0 "$NF" report --html "$T/r.html" -m v A B
tr -d '\n' <"$T/r.html" | sed 's/<tr/\n<tr/g' >"$T/rows"
expect_in rows '<th>change</th><th>Paired change</th><th>CI</th><th>p raw / Holm</th>'
# B's row: the means' change 0.00%, the pairs' -3.92%, the CI at the
# session's level, no Holm p (in no family)
expect_in rows "<td class=\"l\">B</td><td class=\"num\">[0-9]+</td><td class=\"num\">15\.0000</td><td class=\"num (sig|ns)\">[(*]0\.00%[)*]</td><td class=\"num (sig|ns)\">[(*]-3\.92%[)*]</td><td class=\"num\">\[[-+][0-9.]+%, [-+][0-9.]+%\] at $level%</td><td class=\"num\">[0-9.e-]+ / -</td>"
expect_in rows "no change, paired change 3\.92% worse \(CI \[[-+][0-9.]+%, [-+][0-9.]+%\] at $level%, \+ is better\)"
expect_in rows "its own <b>Paired change</b>"

t_case "an unpaired comparison's CI is at 1 - alpha, unlabelled"
expect_rc 0 "$NF" run -L C -r 4 --metric 'v=^v ([0-9.eE+-]+)$' --unit s -- ./vals.sh st.c 10 10 20 10 20
expect_rc 0 "$NF" compare -m v A C
expect_in out "^CI +change +\[[-+][0-9.]+%, [-+][0-9.]+%\]$"
expect_not_in out "^A CI \"at N%\""
expect_not_in out "^Paired"
# yuen: the change is the trimmed means', on their own column, as the
# text's TrMean row; the plain mean has none beside it
expect_rc 0 "$NF" report --test yuen --html "$T/y.html" -m v A C
tr -d '\n' <"$T/y.html" | sed 's/<tr/\n<tr/g' >"$T/rows"
expect_in rows '<th>Amean</th><th>change</th><th>TrMean</th><th>TrMean change</th><th>CI</th>'
expect_in rows '<td class="l">C</td><td class="num">[0-9]+</td><td class="num">[0-9.]+</td><td></td><td class="num">[0-9.]+</td><td class="num (sig|ns)">[(*][-0-9.]+%[)*]</td>'
expect_not_in rows '<th>Paired change</th>'

t_case "a count's paired CI across orders of magnitude is not shown, and why"
# per-round ratios 50, 1/50, 45, 1/80, 23.3, 1/30: a geometric mean near
# 1 with a CI over a factor of hundreds
expect_rc 0 "$NF" ab --rounds 6:6 --order abba -m n \
    "X=--metric n=^v\ ([0-9]+)$ -- ./vals.sh st.x 9 1 100 2 80 3 90" \
    "Y=--metric n=^v\ ([0-9]+)$ -- ./vals.sh st.y 9 50 2 90 1 70 3"
expect_rc 0 "$NF" compare -m n X Y
expect_in out "^CI +change +too wide$"
expect_in out "^\"too wide\": a count's CI spanning more than a factor of 10"
expect_rc 0 "$NF" report --html "$T/x.html" -m n X Y
expect_rc 0 grep -q '<td class="num">too wide</td>' "$T/x.html"
expect_rc 0 "$NF" compare --json -m n X Y
json_check 'd["rows"][0]["ci_high_pct"] / 100 + 1 > 10 * (d["rows"][0]["ci_low_pct"] / 100 + 1)'
# 46 -> 36: the means' change
json_check 'abs(d["rows"][0]["change_pct"] - (216 / 6 / (276 / 6) - 1) * 100) < 1e-9'

t_case "numbers of a million and more: whole, grouped, never 1.2e+06"
expect_rc 0 "$NF" run -L big1 -r 3 --metric 'v=^v ([0-9.eE+-]+)$' --unit s -- ./vals.sh st.b1 1 333812345 333812000 333813000
expect_rc 0 "$NF" run -L big2 -r 3 --metric 'v=^v ([0-9.eE+-]+)$' --unit s -- ./vals.sh st.b2 1 1234567.4 1234560 1234570
expect_rc 0 "$NF" compare -m v big1 big2
expect_in out "^Amean +s +333,812,448 \(  0\.00%\) +1,234,566"
expect_not_in out "e\+0"

t_case "each note once: runs that differ are said once per label"
/usr/bin/python3 - >"$T/an.json" <<'PY'
import json
runs = []
for lab, shift in (("RA", 0), ("RB", 0.1)):
    for k, base in enumerate((10, 12, 11)):
        runs.append({"label": lab, "workload": "messaging", "args": [], "repeat": 5, "warmup": 1,
                     "started": "2026-01-0%dT12:00:00Z" % (k + 1), "status": "complete",
                     "env": {"hostname": "h", "kernel": "6.1"},
                     "metrics": [{"name": "seconds", "unit": "seconds", "better": "lower", "primary": True,
                                  "supported": True, "values": [base + shift + e for e in (0.01, -0.01, 0.02, -0.02, 0)]}]})
print(json.dumps({"runs": runs}))
PY
expect_rc 0 "$NF" import "$T/an.json" --format json
expect_rc 0 "$NF" compare RA RB
[ "$(grep -c 'runs differ more than their repetitions' "$T/out")" -eq 2 ] ||
    fail "the runs-differ note not once per label: $(grep -c 'runs differ more than their repetitions' "$T/out")"
expect_in out "^N +3 runs +3 runs$"
# the JSON keeps both
expect_rc 0 "$NF" compare --json RA RB
json_check 'sum("runs differ more than their repetitions" in n for n in d["rows"][0]["notes"]) == 4'

pass
