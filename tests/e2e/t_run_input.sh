# run's measuring options refuse what they cannot mean, with one line and
# exit 2 before anything is stored: a metric name or unit that is not one
# word of printable text; two metrics of one name (a --metric given twice,
# or named as an -e counter or as a metric every command has); --better or
# --unit where no --metric takes them (a built-in workload, a command
# without --metric); a --pin list that is not one (',', '0,,1', ' 0').
# And --metric on output past what is kept of it (16 MiB).
. "$(dirname "$0")/lib.sh"

# The store of the refused commands: it must never come to exist.
R="$T/refused.db"
no_store() { case_failed || [ ! -e "$R" ] || fail "a refused command made a database"; }
# refused WORDS...: run WORDS is refused with one line, nothing stored.
refused() {
    expect_rc 2 "$NF" --db "$R" run -r 1 --warmup 0 "$@"
    expect_one_line_err
    case_failed || [ ! -s "$T/out" ] || fail "stdout not empty"
    no_store
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

t_case "a --metric name given twice"
# The two numbers would alternate in one stored metric.
refused --metric 'x=result ([0-9])' --metric 'x=result [0-9]([0-9])' -- echo result 42
expect_in err "^noisefloor: run: --metric: 'x' is given twice"
expect_rc 2 "$NF" --db "$R" ab --rounds 2:2 'a=--metric x=r([0-9]) --metric x=r([0-9]) -- echo r1' 'b=-- true'
expect_one_line_err
expect_in err "'x' is given twice"
expect_rc 2 "$NF" --db "$R" submit -- run --metric 'x=r([0-9])' --metric 'x=r([0-9])' -- echo r1
expect_in err "'x' is given twice"
no_store

t_case "a --metric named as an -e counter, before or after it"
refused -e task-clock,page-faults --metric 'page-faults=result ([0-9]+)' -- echo result 42
expect_in err "^noisefloor: run: --metric: 'page-faults' is the name of a counter of -e task-clock,page-faults"
refused --metric 'task-clock=result ([0-9]+)' -e default -- echo result 42
expect_in err "'task-clock' is the name of a counter of -e default"
refused --metric 'wall=result ([0-9]+)' -- echo result 42
expect_in err "'wall' is already a metric of every command"

t_case "distinct names: each metric holds its own numbers"
expect_rc 0 "$NF" run -r 2 --warmup 0 --json --metric 'x=result ([0-9])' --metric 'y=result [0-9]([0-9])' -- echo result 42
json_check '[(m["name"], m["values"]) for m in d["metrics"] if m["name"] in ("x", "y")] == [("x", [4.0, 4.0]), ("y", [2.0, 2.0])]'

t_case "--better and --unit on a built-in workload"
# As --metric there: a workload's metrics have their own direction and unit.
refused --better higher pipe -l 100
expect_in err "^noisefloor: run: --better is for the numbers --metric captures from a command; 'pipe' is a built-in workload"
refused --unit ms pipe -l 100
expect_in err "^noisefloor: run: --unit is for the numbers --metric captures from a command; 'pipe'"
refused --metric 'x=([0-9])' pipe -l 100
expect_in err "'pipe' is a built-in workload"
expect_rc 2 "$NF" --db "$R" ab --rounds 2:2 'a=--better higher pipe -l 100' 'b=pipe -l 100'
expect_one_line_err
expect_in err "--better is for the numbers --metric captures"
no_store

t_case "--better and --unit on a command without --metric"
refused --better higher -- true
expect_in err "^noisefloor: run: --better is for the numbers --metric captures, and this command has no --metric"
refused --unit ms -- true
expect_in err "^noisefloor: run: --unit is for the numbers"

t_case "--pin: single commas between CPU numbers and ranges"
for p in , ,0 0, 0,,1 ' 0' '0 ' +1 00 0--0 ''; do
    refused --pin "$p" -- true
    case_failed || grep -Fq "noisefloor: run: --pin: '$p' is not a CPU list" "$T/err" ||
        fail "--pin '$p': $(cat "$T/err")"
done
expect_rc 2 "$NF" --db "$R" ab --rounds 2:2 'a=--pin , -- true' 'b=-- true'
expect_one_line_err
expect_in err "^noisefloor: ab: variant 'a': --pin: ',' is not a CPU list"
expect_rc 2 "$NF" --db "$R" submit -- run --pin , -- true
expect_one_line_err
expect_in err "--pin: ',' is not a CPU list"
expect_rc 2 "$NF" --db "$R" submit -- ab 'a=--pin 0,,0 -- true' 'b=-- true'
expect_in err "--pin: '0,,0' is not a CPU list"
no_store

t_case "--pin: a CPU number past the largest a CPU set holds says so"
# A number of the right form is not "not a CPU list": it is too large.
for p in 99999999999 0,1024 1024-1030; do
    refused --pin "$p" -- true
    expect_in err "^noisefloor: run: --pin: CPU (99999999999|1024) is past 1023, the largest CPU number accepted$"
done
refused --pin 0-99999999999999999999999999999999999999999999 -- true
expect_not_in err "not a CPU list"

t_case "--pin: one set of CPUs is stored in one form"
for p in 0 0-0 0,0; do
    expect_rc 0 "$NF" run -r 1 --warmup 0 --json -L "pin$p" --pin "$p" -- true
    json_check 'd["env"]["pin"] == "0"'
done

t_case "--metric past 16 MiB of output: the last lines are searched too"
# 20 MB of filler, then the result, as a harness that prints it last.
expect_rc 0 "$NF" run -r 1 --warmup 0 --json --metric 'r=^result ([0-9]+)$' -- \
    sh -c 'yes xxxxxxxxxxxxxxx | head -c 20000000; echo result 42'
json_check 'next(m for m in d["metrics"] if m["name"] == "r")["values"] == [42.0]'

t_case "--metric past 16 MiB of output: a number in the middle is not seen, and said so"
expect_rc 1 "$NF" run -r 1 --warmup 0 --metric 'r=^result ([0-9]+)$' -- \
    sh -c 'yes xxxxxxxxxxxxxxx | head -c 17000000; echo result 42; yes xxxxxxxxxxxxxxx | head -c 2000000'
expect_in err "found no number in the output of 'sh', which was cut: it wrote 18\.1 MiB, of which the first 16 MiB and the last 1 MiB are searched"

pass
