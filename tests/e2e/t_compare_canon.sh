# compare tells a built-in workload's argument lists apart by the
# configuration they ask for, not by how they were typed: `pipe -l 20000
# -T`, `pipe -T -l 20000` and `pipe --loop=20000 --threaded` are one row,
# and `pipe -l 1000000` (the default) is `pipe`'s.  A command's words are
# compared as given (order included), and so are a workload's words that
# no longer parse.  The grouping is the analysis's, over runs loaded the
# same way from either store: SQLite is enough.
. "$(dirname "$0")/lib.sh"

t_case "three spellings of one pipe configuration are one row"
# x and y also ran pipe with 2000 loops, so their runs are split by
# arguments; z ran one configuration, spelt its own way.
expect_rc 0 "$NF" run -q -r 3 -L x pipe -l 20000 -T
expect_rc 0 "$NF" run -q -r 3 -L y pipe -T -l 20000
expect_rc 0 "$NF" run -q -r 3 -L z pipe --loop=20000 --threaded
expect_rc 0 "$NF" run -q -r 3 -L x pipe -l 2000
expect_rc 0 "$NF" run -q -r 3 -L y pipe --loop 2000
expect_rc 0 "$NF" compare --json -m usecs/op x y z
json_check '[(r["args"], r["label"]) for r in d["rows"]] == [(["-l", "20000", "-T"], "y"), (["-l", "20000", "-T"], "z"), (["-l", "2000"], "y"), (["-l", "2000"], "z")]'
json_check 'all(r["n"] == 3 and r["baseline_n"] == 3 and r["p_value"] is not None for r in d["rows"][:3])'
json_check 'd["rows"][3]["n"] == 0 and d["rows"][3]["p_value"] is None'
json_check "any(n.startswith(\"z: not compared: no run of pipe '-l 2000' (its pipe runs: '-l 20000 -T')\") for n in d['rows'][3]['notes'])"
json_check 'not any("not compared" in n for r in d["rows"][:3] for n in r["notes"])'
expect_rc 0 "$NF" compare -m usecs/op x y z
expect_in out "^pipe '-l 20000 -T' usecs/op \(lower is better\)"
expect_in out "^pipe '-l 2000' usecs/op \(lower is better\)"
expect_not_in out "'-T -l 20000'|--loop|--threaded"
# The report's rows are compare's.
expect_rc 0 "$NF" report --html page.html -m usecs/op x y z
grep -q "pipe &#39;-l 20000 -T&#39; &#8212; usecs/op" page.html || fail "report: no row '-l 20000 -T'"
! grep -Eq "&#39;(-T -l 20000|--loop=20000 --threaded)&#39; &#8212;" page.html ||
    fail "report: a row per spelling"
# list still shows each run as it was typed.
expect_rc 0 "$NF" list
expect_in out 'pipe --loop=20000 --threaded'
expect_in out 'pipe -T -l 20000'

# Runs as another machine (or an older noisefloor) stored them, imported:
# the values are fixed, so the verdicts are known.
run_json() { # LABEL ARGS-JSON VALUES
    printf '{"id": null, "label": "%s", "workload": "pipe", "args": %s,
      "started": "2026-01-01T00:00:00Z", "repeat": 5, "warmup": 0, "status": "complete",
      "metrics": [{"name": "usecs/op", "unit": "usecs/op", "better": "lower", "primary": true,
                   "supported": true, "values": [%s]}]}' "$1" "$2" "$3"
}

t_case "an option at its default is the default"
{
    echo '{"runs": ['
    run_json A '[]' '5.0, 5.1, 4.9, 5.0, 5.05'
    echo ,
    run_json A '["-l", "20000"]' '2.0, 2.02, 1.98, 2.0, 2.01'
    echo ,
    run_json B '["-l", "1000000"]' '5.0, 5.1, 4.9, 5.0, 5.05'
    echo ,
    run_json B '["--loop=20000"]' '2.2, 2.22, 2.18, 2.2, 2.21'
    echo ']}'
} >defaults.json
expect_rc 0 "$NF" import defaults.json --format json
expect_rc 0 "$NF" compare --json A B
json_check '[r["args"] for r in d["rows"]] == [[], ["-l", "20000"]]'
json_check '[r["verdict"] for r in d["rows"]] == ["inconclusive", "regressed"]'
json_check 'd["rows"][0]["change_pct"] == 0 and abs(d["rows"][1]["change_pct"] - 9.99000999) < 1e-6'
json_check 'not any("not compared" in n for r in d["rows"] for n in r["notes"])'
expect_rc 0 "$NF" compare A B
expect_in out '^pipe \(defaults\) usecs/op'
expect_in out "^pipe '-l 20000' usecs/op"

t_case "words that no longer parse are compared as text"
{
    echo '{"runs": ['
    run_json C '["--gone"]' '3.0, 3.1, 2.9, 3.0, 3.05'
    echo ,
    run_json C '[]' '5.0, 5.1, 4.9, 5.0, 5.05'
    echo ,
    run_json D '["--gone"]' '3.0, 3.1, 2.9, 3.0, 3.05'
    echo ,
    run_json D '["-l", "1000000"]' '5.0, 5.1, 4.9, 5.0, 5.05'
    echo ']}'
} >gone.json
expect_rc 0 "$NF" import gone.json --format json
expect_rc 0 "$NF" compare --json C D
json_check '[r["args"] for r in d["rows"]] == [["--gone"], []]'
json_check 'all(r["n"] == 5 and r["baseline_n"] == 5 and r["change_pct"] == 0 for r in d["rows"])'

t_case "a command's words differing only in order are two rows"
expect_rc 0 "$NF" run -q -r 3 -L base -- true -a -b
expect_rc 0 "$NF" run -q -r 3 -L base -- true -b -a
expect_rc 0 "$NF" run -q -r 3 -L new -- true -b -a
expect_rc 0 "$NF" compare --json -m wall base new
json_check '[r["args"] for r in d["rows"]] == [["true", "-a", "-b"], ["true", "-b", "-a"]]'
json_check 'd["rows"][0]["n"] == 0 and d["rows"][0]["p_value"] is None'
json_check "any(n.startswith(\"new: not compared: no run of command 'true -a -b' (its command runs: 'true -b -a')\") for n in d['rows'][0]['notes'])"
json_check 'd["rows"][1]["n"] == 3 and d["rows"][1]["baseline_n"] == 3 and d["rows"][1]["p_value"] is not None'
pass
