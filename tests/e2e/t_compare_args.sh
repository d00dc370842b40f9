# compare of labels whose runs of one workload have several argument
# lists: a hyperfine export of three commands per label, and runs of
# `-- true` with and without an argument.  Each argument list is its own
# row, compared with the runs of the same arguments; a list the baseline
# lacks is shown, not compared, with a note; labels with one list each
# stay one row whatever the lists are.
. "$(dirname "$0")/lib.sh"

hf() { # hf FILE SCALE: hyperfine's export of three commands, sleep 0.02's times x SCALE
    cat >"$1" <<EOF
{"results": [
 {"command": "sleep 0.01", "times": [0.01000, 0.01001, 0.00999, 0.01000, 0.01001, 0.00999],
  "exit_codes": [0, 0, 0, 0, 0, 0]},
 {"command": "sleep 0.02", "times": [$(echo "0.02000 0.02002 0.01998 0.02000 0.02002 0.01998" |
     awk -v s="$2" '{for (i = 1; i <= NF; i++) printf "%s%.6f", (i > 1 ? ", " : ""), $i * s}')],
  "exit_codes": [0, 0, 0, 0, 0, 0]},
 {"command": "true", "times": [0.000800, 0.000802, 0.000799, 0.000801, 0.000800, 0.000798],
  "exit_codes": [0, 0, 0, 0, 0, 0]}
]}
EOF
}

t_case "hyperfine exports of three commands: a row per command"
hf before.json 1
hf after.json 1.1 # sleep 0.02 10% slower, the others the same
expect_rc 0 "$NF" import before.json --format hyperfine-json -L before
expect_rc 0 "$NF" import after.json --format hyperfine-json -L after
expect_rc 0 "$NF" compare --json -m wall before after
json_check '[r["args"] for r in d["rows"]] == [["sleep 0.01"], ["sleep 0.02"], ["true"]]'
json_check 'all(r["workload"] == "command" and r["n"] == 6 and r["baseline_n"] == 6 for r in d["rows"])'
json_check '[r["verdict"] for r in d["rows"]] == ["equivalent", "regressed", "equivalent"]'
json_check 'abs(d["rows"][1]["change_pct"] - 10) < 1e-6'
json_check 'not any("runs differ" in n or "clusters" in n for r in d["rows"] for n in r["notes"])'
expect_rc 3 "$NF" compare --fail-on-regression before after
expect_in out "^command 'sleep 0\.02' wall \(lower is better\)"
expect_in out "^command 'true' wall \(lower is better\)"
expect_not_in out 'ANOVA|more repetitions will not help'

t_case "a command the baseline did not run: shown, not compared"
"$NF" import after.json --format hyperfine-json -L three >/dev/null || fail "import"
printf '%s\n' '{"results": [{"command": "sleep 0.03", "times": [0.03, 0.0301, 0.0299]}]}' >more.json
"$NF" import more.json --format hyperfine-json -L three >/dev/null || fail "import"
expect_rc 0 "$NF" compare --json -m wall before three
json_check '[r["args"] for r in d["rows"]] == [["sleep 0.01"], ["sleep 0.02"], ["true"], ["sleep 0.03"]]'
json_check 'd["rows"][3]["baseline_mean"] is None and d["rows"][3]["p_value"] is None'
json_check 'd["rows"][3]["verdict"] == "inconclusive" and d["rows"][3]["runs_needed"] is None'
json_check "any(n.startswith(\"before: not compared: no run of command 'sleep 0.03' (its command runs: 'sleep 0.01', 'sleep 0.02', 'true')\") for n in d['rows'][3]['notes'])"

t_case "runs of a command with and without an argument"
for l in base new; do
    "$NF" run -q -r 3 -L $l -- true >/dev/null || fail "run $l"
done
"$NF" run -q -r 3 -L base -- true x >/dev/null || fail "run base x"
expect_rc 0 "$NF" compare --json -m wall base new
json_check '[r["args"] for r in d["rows"]] == [["true"], ["true", "x"]]'
json_check 'd["rows"][0]["n"] == 3 and d["rows"][0]["baseline_n"] == 3 and d["rows"][0]["p_value"] is not None'
json_check 'd["rows"][1]["mean"] is None and d["rows"][1]["p_value"] is None'
json_check "any(n.startswith(\"new: not compared: no run of command 'true x' (its command runs: 'true')\") for n in d['rows'][1]['notes'])"

t_case "one argument list a label: one row, as before"
"$NF" run -q -r 3 -L other -- true y >/dev/null || fail "run other"
expect_rc 0 "$NF" compare --json -m wall new other
json_check 'len(d["rows"]) == 1 and "args" not in d["rows"][0] and d["rows"][0]["p_value"] is not None'
expect_rc 0 "$NF" compare -m wall new other
expect_in out '^command wall \(lower is better\)'
pass
