# Bad input gets one clear line and exit 2; --help works on every command;
# the option words mean what getopt_long made them mean (--opt=value, -r5,
# bundles, unique prefixes, options ending at a workload or "--"); the
# global options stand anywhere among a command's words.
. "$(dirname "$0")/lib.sh"

t_case "--help of noisefloor and of every command"
expect_rc 0 "$NF" --help
expect_in out "Commands:"
for c in run compare ab list show rm export import doctor profile profdiff insns history report \
         submit agent jobs bisect; do
    expect_rc 0 "$NF" "$c" --help
    expect_in out "usage: noisefloor $c"
    expect_in out "^Global options: --db PATH\\|URI, -q/--quiet, --no-progress"
done

t_case "unknown commands and options"
expect_rc 2 "$NF" frobnicate
expect_one_line_err; expect_in err "unknown command 'frobnicate'"
expect_rc 2 "$NF"
expect_rc 2 "$NF" run --bogus pipe
expect_one_line_err; expect_in err "unknown option '--bogus'"
expect_rc 2 "$NF" run nosuchworkload
expect_one_line_err; expect_in err "unknown workload 'nosuchworkload'"
expect_rc 2 "$NF" run -e bogus-event pipe -l 10
expect_one_line_err; expect_in err "unknown event 'bogus-event'"

t_case "values out of range"
expect_rc 2 "$NF" run -r 0 pipe
expect_one_line_err; expect_in err "--repeat"
expect_rc 2 "$NF" run pipe -l -5
expect_one_line_err; expect_in err "pipe: -l wants a loop count"
expect_rc 2 "$NF" run --pin 99 pipe -l 10
expect_one_line_err; expect_in err "CPU 99 is not online"
expect_rc 2 "$NF" run --pin 1-0 pipe -l 10
expect_one_line_err; expect_in err "not a CPU list"

t_case "a workload's words, '--' with nothing after"
expect_rc 2 "$NF" run pipe extra
expect_one_line_err
expect_rc 2 "$NF" run --
expect_one_line_err; expect_in err "no command after"
expect_rc 0 "$NF" run pipe --help
expect_in out "usage: noisefloor run \[OPTIONS\] pipe"
expect_rc 2 "$NF" --db
expect_one_line_err

t_case "messages say the option, its range and what was given"
expect_rc 2 "$NF" run -r 0 pipe
expect_in err "^noisefloor: run: --repeat wants a count from 1 to 1000000, not '0'$"
expect_rc 2 "$NF" run --timeout=-1 pipe
expect_in err "^noisefloor: run: --timeout wants seconds in \\[0, 31536000\\], not '-1'$"
expect_rc 2 "$NF" compare --alpha 0.7 a b
expect_in err "^noisefloor: compare: --alpha wants a significance level in \(0, 0.5\), not '0.7'$"
expect_rc 2 "$NF" export --format xml
expect_in err "^noisefloor: export: --format wants 'json' or 'csv', not 'xml'$"
expect_rc 2 "$NF" ab --order zigzag a=pipe b=pipe
expect_in err "^noisefloor: ab: --order wants 'random', 'abba' or 'sequential', not 'zigzag'$"
expect_rc 2 "$NF" run -r
expect_in err "^noisefloor: run: option '-r' needs a value$"
expect_rc 2 "$NF" profdiff --top
expect_in err "^noisefloor: profdiff: option '--top' needs a value$"
expect_rc 2 "$NF" compare --json=1 a b
expect_in err "^noisefloor: compare: option '--json' takes no value$"
expect_rc 2 "$NF" doctor --r
expect_in err "^noisefloor: doctor: option '--r' is ambiguous \(--restore, --root\)$"
expect_rc 2 "$NF" run messaging -g 0
expect_in err "^noisefloor: run: messaging: -g wants a group count from 1 to 10000, not '0'$"

t_case "--opt=value, -rN, bundles and unique prefixes"
expect_rc 0 "$NF" run -r1 --warmup=0 -Lwords --json pipe -Tl100
json_check 'd["repeat"] == 1 and d["warmup"] == 0 and d["label"] == "words"'
json_check 'd["args"] == ["-Tl100"]'
expect_rc 0 "$NF" run --rep 1 --warm 0 --lab=prefix --json messaging -g 1 -f 2 -l 2 -pt
json_check 'd["repeat"] == 1 and d["label"] == "prefix" and d["args"][-1] == "-pt"'

t_case "options end at the workload's name and at '--'"
expect_rc 2 "$NF" run pipe -r 5
expect_one_line_err; expect_in err "pipe: unknown option '-r'"
expect_rc 0 "$NF" run -r 1 --warmup 0 --json -- echo -r --json
json_check 'd["args"] == ["echo", "-r", "--json"]'
expect_rc 0 "$NF" run pipe -l 10 --help
expect_in out "usage: noisefloor run \[OPTIONS\] pipe"

t_case "global options among a command's words"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L g pipe -l 100 --db "$T/g.db"
[ -s "$T/g.db" ] || fail "--db after the workload's options was not taken"
expect_rc 0 "$NF" list --db="$T/g.db" -L g
expect_in out " g "
expect_rc 0 "$NF" -q list -L g --no-progress --db "$T/g.db"
expect_in out " g "
expect_rc 0 "$NF" show 1 --db "$T/g.db" --json
json_check 'd["label"] == "g"'

t_case "generated help lists what the synopsis once forgot"
expect_rc 0 "$NF" compare --help
expect_in out "^      --brief "
expect_in out "^      --seed N "
expect_in out "^      --test welch\|utest\|bootstrap"
expect_rc 0 "$NF" run --help
expect_in out "^      --root DIR "

t_case "one version: --version, the stored environment, the HTML report"
# The version is compiled into one object, rebuilt when it changes, so no
# part of a binary built over several commits reports another.
expect_rc 0 "$NF" --version
v=$(awk '{print $2}' "$T/out")
[ -n "$v" ] || fail "--version printed no version"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L ver --db "$T/v.db" --json -- true
json_check "d['env']['noisefloor_version'] == '$v'"
expect_rc 0 "$NF" run -r 1 --warmup 0 -L ver2 --db "$T/v.db" -- true
expect_rc 0 "$NF" report --db "$T/v.db" --html - ver ver2
expect_in out "content=\"noisefloor $v\""
objs=$(dirname "$NF")/obj
if [ -d "$objs" ]; then
    n=$(grep -rlF -- "$v" "$objs" | grep -c '\.o$' || :)
    [ "$n" -eq 1 ] || fail "the version is in $n objects under $objs, not one"
fi
t_case "input quoted in a message cannot break its line or reach the terminal"
# A workload name, a variant and an option value holding a newline, an
# escape sequence and a C1 control (U+009B, CSI in UTF-8).
esc=$(printf 'pi\033[31mpe\nx\302\233y')
no_control() {
    if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]\|\302[\200-\237]')" "$T/err"; then
        fail "a control byte reached stderr: $(od -c "$T/err" | head -3)"
    fi
}
expect_rc 2 "$NF" run "$esc"
expect_one_line_err
no_control
expect_rc 2 "$NF" ab a=pipe "$esc"
expect_one_line_err
no_control
expect_rc 2 "$NF" run pipe -l "$esc"
expect_one_line_err
no_control

pass
