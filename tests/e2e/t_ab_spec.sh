# ab NAME=SPEC: the run options ab decides itself (-r, --warmup, -L,
# --json) are refused inside a SPEC with one line naming the option and
# what to use instead, before anything runs or is stored; the options a
# variant keeps (--pin, --timeout, --metric, ...) are taken.
. "$(dirname "$0")/lib.sh"

# refused OPTION HINT SPEC-WORDS...: ab with that first variant is refused.
refused() {
    opt=$1 hint=$2
    shift 2
    expect_rc 2 "$NF" ab --rounds 3 "x=$* -- true" 'y=-- true'
    expect_one_line_err
    expect_in err "^noisefloor: ab: variant 'x': $opt does not apply inside a SPEC \($hint\)$"
    case_failed || [ ! -s "$T/out" ] || fail "stdout not empty"
    case_failed || [ ! -e "$NOISEFLOOR_DB" ] || fail "a refused ab made a database"
}

t_case "-r and --repeat are refused: rounds decide"
refused "-r/--repeat" "ab decides repetitions: --rounds" -r 5
refused "-r/--repeat" "ab decides repetitions: --rounds" --repeat=10
refused "-r/--repeat" "ab decides repetitions: --rounds" --pin 0 -r5

t_case "--warmup is refused: ab runs one warm-up round"
refused "--warmup" "ab runs one warm-up round" --warmup 3
refused "--warmup" "ab runs one warm-up round" --warmup 1

t_case "-L is refused: the label is the NAME"
refused "-L/--label" "the label is the NAME of NAME=SPEC" -L foo
refused "-L/--label" "the label is the NAME of NAME=SPEC" --label=foo

t_case "--json is refused: ab --json prints the session"
refused "--json" "ab --json prints the session" --json

t_case "several: the first of -r, --warmup, -L, --json is named"
refused "-r/--repeat" "ab decides repetitions: --rounds" --warmup 3 -L foo -r 5

t_case "words after the workload are the workload's"
# -r after the command is the command's own argument, not a run option.
expect_rc 0 "$NF" ab --rounds 2:2 --order sequential 'x=-- true -r 5' 'y=-- true --warmup 3'
expect_rc 0 "$NF" list
expect_in out "x"

t_case "the options a variant keeps are taken"
expect_rc 0 "$NF" ab --json --rounds 2:2 --order sequential \
    'px=--pin 0 --timeout 30 --metric v=^([0-9]+)$ --unit u --better higher -- echo 7' \
    'py=--metric v=^([0-9]+)$ --unit u --better higher -- echo 7'
json_check 'next(r for r in d["rows"] if r["metric"] == "v")["better"] == "higher"'
expect_rc 0 "$NF" export --format json -L px
json_check 'd["runs"][0]["env"]["pin"] == "0"'
json_check 'next(m for m in d["runs"][0]["metrics"] if m["name"] == "v")["unit"] == "u"'

t_case "submit refuses the same SPEC"
expect_rc 2 "$NF" submit -- ab 'x=-r 5 -- true' 'y=-- true'
expect_in err "-r/--repeat does not apply inside a SPEC"
t_case "-m naming a counter this machine cannot count"
# Without a PMU, cycles is stored as <not supported>: ab says so, instead
# of claiming the metric is missing.
expect_rc 0 "$NF" run -r 1 --warmup 0 -L probe -e cycles -- true
if ! grep -q "not supported" "$T/out" "$T/err"; then
    echo "  (this machine counts cycles: not checked)"
else
    expect_rc 2 "$NF" ab --rounds 2:3 --seed 1 -m cycles \
        'cx=-e cycles,task-clock -- true' 'cy=-e cycles,task-clock -- true'
    expect_one_line_err
    expect_in err "nothing compared: the baseline 'cx' has no samples of cycles, only <not supported>"
fi
t_case "-m naming no metric of the variants: exit 2 before anything runs"
expect_rc 2 "$NF" --db "$T/nometric.db" ab --rounds 2:3 -m bogus 'x=-- true' 'y=-- true'
expect_one_line_err
expect_in err "no metric 'bogus' in these variants \(x has: wall, user, sys, "
[ ! -e "$T/nometric.db" ] || fail "a database was made for a session refused"
# a captured metric and a workload's own are known before the first round
expect_rc 0 "$NF" ab --rounds 2:2 --order sequential -m v 'x=--metric v=^([0-9]+)$ -- echo 5' \
    'y=--metric v=^([0-9]+)$ -- echo 5'
expect_rc 0 "$NF" ab --rounds 2:2 --order sequential -m ops/sec 'x=pipe -l 500' 'y=pipe -l 500'
pass
