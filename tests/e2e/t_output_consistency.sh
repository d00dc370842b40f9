# One thing said one way wherever it is said: run --json is the run object
# of show --json and export (histograms included, repetitions numbered
# from 1 as show and the diagnosis number them); the HTML report, compare's
# text and compare's JSON give an inconclusive row's advice in the same
# words and the JSON has every note the text has; report exits as compare
# does when nothing could be compared; the messages of insns on a cut-off
# ELF and of submit with a job's --db.
. "$(dirname "$0")/lib.sh"

t_case "run --json is the run object of show --json, histograms included"
expect_rc 0 "$NF" run -q --json -r 2 --warmup 0 -L lat timer -i 200 -l 100
cp "$T/out" run.json
json_check '"histograms" in d and "diagnosis" in d'
expect_rc 0 "$NF" show --json "$(/usr/bin/python3 -c 'import json; print(json.load(open("run.json"))["id"])')"
/usr/bin/python3 - run.json "$T/out" <<'PY' || fail "run --json (less its diagnosis) is not show --json"
import json, sys
r, s = (json.load(open(p)) for p in sys.argv[1:])
r.pop("diagnosis")
sys.exit(r != s)
PY

t_case "histogram repetitions are numbered from 1, as show numbers them"
# run 1 above: repetitions 1 and 2 in show's table and in the JSON
expect_rc 0 "$NF" show --json 1
json_check '[r["rep"] for r in d["histograms"][0]["reps"]] == [1, 2]'
expect_rc 0 "$NF" show 1
expect_in out "^repetitions \(2\):"
expect_in out "^ +1 +[0-9]"
expect_in out "^ +2 +[0-9]"
expect_not_in out "^ +0 +[0-9]"

t_case "an export that numbered them from 0 imports as the same runs"
expect_rc 0 "$NF" export
cp "$T/out" new.json
/usr/bin/python3 - new.json >old.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    for h in r.get("histograms", []):
        for x in h["reps"]:
            x["rep"] -= 1
json.dump(d, sys.stdout)
PY
grep -q '"rep": 0' old.json || fail "old.json has no rep 0"
expect_rc 0 "$NF" --db "$T/old.db" import old.json --format json
expect_rc 0 "$NF" --db "$T/old.db" export
cmp -s new.json "$T/out" || fail "old numbering imports differently: $(diff new.json "$T/out" | head -5)"
expect_rc 0 "$NF" --db "$T/new.db" import new.json --format json
expect_rc 0 "$NF" --db "$T/new.db" export
cmp -s new.json "$T/out" || fail "export, import, export differs: $(diff new.json "$T/out" | head -5)"

t_case "report and compare give an inconclusive row's advice in one sentence"
# three repetitions a side, a spread far wider than the margin: settling it
# would take more than 100 times the data, which is not given as a number
printf '100\n300\n50\n' >w1.txt
printf '101\n301\n51\n' >w2.txt
expect_rc 0 "$NF" import w1.txt --format values -L w1 --metric lat --unit ms
expect_rc 0 "$NF" import w2.txt --format values -L w2 --metric lat --unit ms
SAID="w2: inconclusive; settling it at this noise would take more than 100 times the 3 repetitions per side so far"
expect_rc 0 "$NF" compare w1 w2
expect_in out "^  note: $SAID\$"
expect_rc 0 "$NF" report --html w.html w1 w2
expect_in w.html "<li>$SAID</li>"
expect_in w.html "on values lat \\(ms\\): .*; settling it at this noise would take more than 100 times the 3 repetitions per side so far</li>"
expect_not_in w.html "about [0-9]+ repetitions per side"

t_case "compare --json has every note compare prints"
expect_rc 0 "$NF" compare --json w1 w2
json_check 'd["rows"][0]["runs_needed"] > 300'
json_check '"'"$SAID"'" in d["rows"][0]["notes"]'
# the same for a row that names a number, and generally: every note of the
# text begins a note of the JSON
printf '100.3\n99.1\n101.2\n98.7\n100.9\n99.6\n100.4\n99.8\n101.5\n98.9\n' >n1.txt
printf '101.9\n99.5\n100.9\n101.8\n99.9\n101.6\n100.3\n102.4\n99.8\n101.1\n' >n2.txt
expect_rc 0 "$NF" import n1.txt --format values -L n1 --metric lat --unit ms
expect_rc 0 "$NF" import n2.txt --format values -L n2 --metric lat --unit ms
for pair in "w1 w2" "n1 n2" "n1 w1 n2"; do
    expect_rc 0 "$NF" compare $pair
    cp "$T/out" text.out
    expect_rc 0 "$NF" compare --json $pair
    /usr/bin/python3 - text.out "$T/out" <<'PY' || fail "compare $pair: a note of the text is not in the JSON"
import json, sys
text = open(sys.argv[1]).read().splitlines()
notes = [n for r in json.load(open(sys.argv[2]))["rows"] for n in r["notes"]]
said = [l[len("  note: "):] for l in text if l.startswith("  note: ")]
missing = [s for s in said if not any(n.startswith(s) for n in notes)]
if missing:
    print("\n".join(missing), file=sys.stderr)
sys.exit(1 if missing or not said else 0)
PY
done
expect_rc 0 "$NF" compare --json n1 n2
json_check '"n2: inconclusive; about 68 repetitions per side (58 more) would settle it at this noise" in d["rows"][0]["notes"]'

t_case "report exits 2 when nothing could be compared, as compare does"
expect_rc 0 "$NF" run -q -r 2 --warmup 0 -L one -- true
expect_rc 1 "$NF" run -q -r 2 --warmup 0 -L fail -- false
expect_rc 2 "$NF" compare one fail
expect_one_line_err
sed 's/^noisefloor: compare: /noisefloor: report: /' "$T/err" >compare.err
expect_rc 2 "$NF" report --html none.html one fail
expect_one_line_err
cmp -s compare.err "$T/err" || fail "report's line is not compare's: $(cat "$T/err")"
expect_in err "^noisefloor: report: nothing compared: 'fail' has no samples"
expect_in none.html "not compared"
expect_in none.html "</html>"
# something compared: exit 0 as before
expect_rc 0 "$NF" report --html some.html w1 w2

t_case "insns on an ELF file cut short says so"
head -c 20000 "$NF" >cut.elf
expect_rc 2 "$NF" insns cut.elf
expect_one_line_err
expect_in err "^noisefloor: insns: cut\.elf: truncated or malformed ELF file: its section headers \([0-9]+ bytes at offset [0-9]+\) reach past the end of the file \(20000 bytes\)\$"
expect_not_in err "symbol table"

t_case "submit: a job cannot choose its store"
for words in "run --db other.db -r 2 pipe" "run -r 2 pipe -l 10 --db=other.db" "ab --db other.db a=pipe b=pipe"; do
    expect_rc 2 "$NF" submit -- $words
    expect_one_line_err
    expect_in err "^noisefloor: submit: a job cannot choose its store \(--db\): the agent's --db decides where the job's runs go\$"
done
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"] == []'
[ ! -e other.db ] || fail "other.db was made"
# the words after a command's -- are the command's own
expect_rc 0 "$NF" submit -- run -r 1 -- echo --db x
expect_in out "^queued job [0-9]+: run -r 1 -- echo --db x\$"
# -q and --no-progress are a job's to give, as they are on a command line
expect_rc 0 "$NF" submit -- run -q --no-progress -r 1 pipe -l 10

pass
