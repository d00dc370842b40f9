# run's measuring options refuse what they cannot mean, with one line and
# exit 2 before anything is stored: a metric name or unit that is not one
# word of printable text.
. "$(dirname "$0")/lib.sh"

# refused WORDS...: run WORDS is refused with one line, nothing stored.
refused() {
    expect_rc 2 "$NF" run -r 1 --warmup 0 "$@"
    expect_one_line_err
    case_failed || [ ! -s "$T/out" ] || fail "stdout not empty"
    case_failed || [ ! -e "$NOISEFLOOR_DB" ] || fail "a refused run made a database"
}

t_case "a --metric name is one word of printable text"
refused --metric "$(printf 'x\ty')=r ([0-9]+)" -- echo r 1
expect_in err "^noisefloor: run: --metric 'x\\\\ty' contains a control character"
refused --metric "x y=r ([0-9]+)" -- echo r 1
expect_in err "'x y' contains a blank"
refused --metric "$(printf 'x\033[2J')=r ([0-9]+)" -- echo r 1
expect_in err "'x\\\\x1b\[2J' contains a control character"
refused --metric "=r ([0-9]+)" -- echo r 1
refused --metric "$(printf 'x\377')=r ([0-9]+)" -- echo r 1
expect_in err "is not UTF-8"

t_case "a --unit is one word of printable text"
refused --unit "$(printf 'm\ns')" --metric "x=r ([0-9]+)" -- echo r 1
expect_in err "^noisefloor: run: --unit 'm\\\\ns' contains a control character"
refused --unit "" --metric "x=r ([0-9]+)" -- echo r 1
expect_in err "a unit cannot be empty"

t_case "a good name and unit are stored as given"
expect_rc 0 "$NF" run -r 1 --warmup 0 --json --unit "µs/op" --metric "café-p99=r ([0-9]+)" -- echo r 7
json_check 'next(m for m in d["metrics"] if m["name"] == "café-p99") == next(m for m in d["metrics"] if m["unit"] == "µs/op") and next(m for m in d["metrics"] if m["name"] == "café-p99")["values"] == [7.0]'

pass
