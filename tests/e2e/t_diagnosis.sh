# The noise diagnosis end to end: an outlier named, clusters of unpinned
# ping-pong with --pin as the fix and "more repetitions will not help",
# --test yuen and --test shift (its decile table, the clusters compared),
# ab --test shift -m METRIC --decile N, the HTML report, and run's notes.
. "$(dirname "$0")/lib.sh"

# Samples generated once with Python's random (seeded) and written here
# literally, so the checks do not depend on this machine's noise.
# 5 values at CV 0.5% plus one 60% slower, and a clean baseline:
printf '6.20\n6.17\n6.23\n6.21\n6.19\n6.22\n' >clean.txt
printf '6.21\n6.18\n6.24\n9.93\n6.20\n6.23\n' >outlier.txt
# Unpinned `pipe -l 20000` in its two states (random.Random(12)): 14 at
# 6 usecs/op +- 4% (both tasks on one CPU), 6 at 40 +- 12% (across CPUs).
A='6.232 48.273 5.697 43.205 46.526 5.874 6.016 45.467 6.433 5.934 48.891 5.885 5.881 43.305 6.205 6.056 5.653 5.933 6.158 5.670'
B='6.284 51.393 5.731 5.765 5.925 43.405 5.810 6.151 5.903 36.469 5.768 39.171 6.394 5.867 6.494 6.165 43.158 38.654 5.923 5.937'
# A command at two speeds (random.Random(7)): 70% at 1.00 +- 1%, 30% at
# 1.75 +- 10%, n = 50; then the same with the fast cluster 2% slower.
FAST='1.0085 1.0118 0.9977 1.0026 0.9965 1.0015 1.0024 0.9954 1.0124 0.9958 2.0813 1.0057 1.0063 1.8514 0.9876 0.9930 1.0032 1.0013 0.9922 1.0038 0.9945 1.0169 0.9891 1.6537 1.6343 1.0272 1.0003 0.9943 0.9916 0.9852 1.6448 1.0142 0.9816 1.8410 0.9982 1.6969 1.0186 0.9992 0.9990 0.9981 1.0026 1.7909 1.0001 1.9243 0.9880 1.8194 1.8428 0.9939 1.0188 0.9833'
SLOW='1.0208 1.0274 1.0199 1.0209 0.9969 1.0098 1.0087 1.0097 1.8167 1.3998 1.0162 1.0228 1.0264 1.0229 1.0202 1.0201 1.0185 1.7801 1.0246 1.0263 1.0342 1.9873 1.0157 1.0204 1.0182 1.0391 1.0319 1.0162 1.0323 1.7863 1.7048 1.0125 1.0217 1.5362 1.0231 2.0651 1.8615 1.4466 1.0105 1.0189 1.0185 1.0278 1.3609 1.8840 1.6685 1.0254 1.0240 1.9848 1.4975 1.7827'

# A run of workload W (label L, metric M, lower is better) in noisefloor's
# own JSON, unpinned, with the values given.
run_json() { # L W M VALUES...
    l=$1 w=$2 m=$3; shift 3
    vals=$(echo "$@" | tr ' ' ',')
    printf '{"runs":[{"label":"%s","workload":"%s","args":[],"started":"2024-01-01T00:00:00Z","repeat":%d,"warmup":1,"status":"complete","session":null,"note":null,"env":{"pin":null},"metrics":[{"name":"%s","unit":"%s","better":"lower","primary":true,"supported":true,"values":[%s]}]}]}\n' \
        "$l" "$w" $# "$m" "$m" "$vals"
}

t_case "import the samples"
expect_rc 0 "$NF" import clean.txt --format values --label clean --metric usecs/op --better lower
expect_rc 0 "$NF" import outlier.txt --format values --label outlier --metric usecs/op --better lower
run_json unp-a pipe usecs/op $A >a.json
run_json unp-b pipe usecs/op $B >b.json
run_json fast command wall $FAST >fast.json
run_json fast2 command wall $SLOW >fast2.json
for f in a b fast fast2; do
    expect_rc 0 "$NF" import $f.json --format json
done

t_case "an outlier is named and does not drive runs_needed"
expect_rc 0 "$NF" compare clean outlier
expect_in out "note: outlier: 1 outlier: repetition 4 \(9\.93, \+59\.[0-9]%\)"
expect_in out "likely cause: a disturbance"
expect_in out "fix: run doctor"
expect_in out "inconclusive; about [0-9]{1,2} repetitions per side"
expect_rc 0 "$NF" compare --json clean outlier
json_check 'd["rows"][0]["verdict"] == "inconclusive" and 2 <= d["rows"][0]["runs_needed"] < 100'
json_check '[f["kind"] for f in d["rows"][0]["diagnosis"]] == ["outliers"]'
json_check 'd["rows"][0]["diagnosis"][0]["repetitions"][0]["repetition"] == 4 and d["rows"][0]["diagnosis"][0]["label"] == "outlier"'
json_check 'all(k in d["rows"][0]["diagnosis"][0] for k in ("summary", "cause", "fix", "median", "high_fence"))'
json_check 'any("repetition 4" in n for n in d["rows"][0]["notes"])'
json_check 'd["rows"][0]["advice"]["more_repetitions_help"] is True'

t_case "clusters of unpinned ping-pong: --pin, not more repetitions"
expect_rc 0 "$NF" compare unp-a unp-b
expect_in out "note: unp-a: 2 clusters: 14 around [56]\.[0-9]+, 6 around 4[0-9.]+"
expect_in out "likely cause: task placement"
expect_in out "fix: pin them \(--pin 0 for one CPU"
expect_in out "note: unp-b: inconclusive, and the samples of both sides form clusters: pin them .*more repetitions will not help"
expect_not_in out "would settle it"
expect_in out "cluster by cluster"
expect_rc 0 "$NF" compare --json unp-a unp-b
json_check 'd["rows"][0]["runs_needed"] is None and d["rows"][0]["advice"]["more_repetitions_help"] is False'
json_check '"--pin" in d["rows"][0]["advice"]["fix"]'
json_check 'sorted(c["n"] for c in d["rows"][0]["diagnosis"][0]["clusters"]) == [6, 14]'
json_check 'd["rows"][0]["clusters"]["k"] == 2'

t_case "--test yuen: the trimmed means"
expect_rc 0 "$NF" compare --test yuen clean outlier
expect_in out "^TrMean +usecs/op +6\.2050 \(  0\.00%\) +6\.2200 \( *-0\.24%\)"
expect_in out "equivalent"
expect_in out "^yuen test"
expect_rc 0 "$NF" compare --json --test yuen clean outlier
json_check 'd["test"] == "yuen" and d["rows"][0]["location"]["name"] == "TrMean"'
json_check 'abs(d["rows"][0]["test_change_pct"] - 0.2417) < 0.01 and d["rows"][0]["ci_low_pct"] < d["rows"][0]["test_change_pct"] < d["rows"][0]["ci_high_pct"]'

t_case "--test shift: the deciles, decile 1 decides"
expect_rc 0 "$NF" compare --test shift fast fast2
expect_in out "^Decile1 +s|^Decile1 +wall"
expect_in out "regressed"
expect_in out "shift function"
expect_in out "^  1 \(fast\) .*\*-2\.[0-9]+%\*"
expect_in out "^  9 \(slow\) "
expect_in out "cluster by cluster"
expect_rc 0 "$NF" compare --json --test shift fast fast2
json_check 'd["test"] == "shift" and d["rows"][0]["verdict"] == "regressed"'
json_check 'len(d["rows"][0]["shift"]["deciles"]) == 9 and d["rows"][0]["shift"]["deciles"][0]["outside_noise"]'
json_check 'd["rows"][0]["shift"]["deciles"][0]["ci_low_fw"] > 0 and not d["rows"][0]["shift"]["deciles"][8]["outside_noise"]'
json_check 'd["rows"][0]["clusters"]["k"] == 2 and d["rows"][0]["clusters"]["clusters"][0]["ci_low_pct"] > 0'
# the slow end did not move
expect_rc 0 "$NF" compare --json --test shift --decile 9 fast fast2
json_check 'd["rows"][0]["verdict"] != "regressed" and d["rows"][0]["location"]["name"] == "Decile9"'
expect_rc 2 "$NF" compare --test shift --decile 10 fast fast2
expect_one_line_err; expect_in err "decile"

t_case "the HTML report shows the diagnosis"
expect_rc 0 "$NF" report --html page.html unp-a unp-b
grep -q '<ul class="diag">' page.html || fail "no diagnosis list in the page"
grep -q 'likely cause:</i> task placement' page.html || fail "no cause in the page"
grep -q 'Cluster by cluster' page.html || fail "no cluster comparison in the page"
expect_rc 0 "$NF" report --test shift --html shift.html fast fast2
grep -q 'Shift function: fast2 vs fast' shift.html || fail "no shift table in the page"
for f in page.html shift.html; do
    /usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' $f ||
        fail "$f is not well-formed"
done

t_case "ab --test shift -m METRIC --decile N"
expect_rc 0 "$NF" ab --rounds 5:5 --seed 3 --test shift -m wall --decile 1 x='-- true' y='-- true'
expect_in out "^Decile1 "
expect_in out "shift function"
expect_in out "^Verdict: y vs x on command wall:"
expect_rc 0 "$NF" ab --json --rounds 5:5 --seed 3 --test shift -m wall p='-- true' q='-- true'
json_check 'd["test"] == "shift" and [r["metric"] for r in d["rows"]] == ["wall"] and len(d["rows"][0]["shift"]["deciles"]) == 9'
expect_rc 2 "$NF" ab --test shift --decile 0 x='-- true' y='-- true'
expect_one_line_err

t_case "run: the primary metric's notes, and its JSON"
# The 5th execution of the command sleeps: named as an outlier (or, when
# the load here slowed another repetition too, as the slow cluster).  It
# sleeps 0.5 s, or 5 times what the four before it took together if that
# is longer: an outlier however slowly this machine runs the shell.
cat >slow5.sh <<'EOF'
n=$(cat count 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >count
[ "$n" -ne 1 ] || date +%s%N >t1
if [ "$n" -eq 5 ]; then
    ms=$((($(date +%s%N) - $(cat t1)) * 5 / 1000000))
    [ "$ms" -ge 500 ] || ms=500
    sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
fi
EOF
expect_rc 0 "$NF" run -r 8 --warmup 0 -L s5 -- sh slow5.sh
expect_in out "note: wall: ([0-9]+ outliers?: .*repetition 5 \(|[0-9] clusters: )"
expect_in out "likely cause: "
expect_in out "fix: "
rm -f count
expect_rc 0 "$NF" run --json -r 8 --warmup 0 -L s5j -- sh slow5.sh
json_check 'all(f["metric"] == "wall" for f in d["diagnosis"])'
json_check 'any({"run": d["id"], "repetition": 5} in (f["clusters"][-1]["repetitions"] if f["kind"] == "clusters" else f["repetitions"]) for f in d["diagnosis"])'
pass
