# ab when nothing would be compared, as compare's rule has it (exit 2,
# one line): variants that share no workload, or a -m metric one side does
# not measure, are refused before anything runs or is stored (each
# variant's metrics are known from what its run declares); a session whose
# shared metrics come out with no samples (-m naming a counter this
# machine cannot count) stops at its first look, prints what it has, and
# ends with "ab: nothing compared: WHY", its runs kept.
. "$(dirname "$0")/lib.sh"

# refused WHAT ARGS...: ab ARGS exits 2 with one line naming WHAT, and
# makes no database.
refused() {
    what=$1
    shift
    rm -f "$T/refused.db"
    expect_rc 2 "$NF" --db "$T/refused.db" ab --rounds 2:3 "$@"
    expect_one_line_err
    expect_in err "^noisefloor: ab: nothing to compare: $what"
    [ -e "$T/refused.db" ] && fail "a database was made for a session refused"
}

t_case "a built-in workload and a command: refused before anything runs"
refused "variant 'b' runs workload 'command' and the baseline 'a' runs 'pipe': they have no workload and metric in common$" \
    a='pipe -l 100' b='-- true'

t_case "-m a captured metric only the baseline has: refused"
refused "-m: variant 'b' has no metric 'v' \(it has: wall, user, " \
    -m v a='--metric v=^([0-9]+)$ -- echo 5' b='-- echo 5'

t_case "-m a captured metric only the variant has: refused"
refused "-m: the baseline 'a' has no metric 'v' \(it has: wall, user, " \
    -m v a='-- echo 5' b='--metric v=^([0-9]+)$ -- echo 5'

t_case "-m a workload metric, a variant running another workload: refused"
refused "variant 'b' runs workload 'command'" -m ops/sec a='pipe -l 100' b='-- true'

t_case "a third variant sharing nothing with the baseline: refused"
# The others could be compared, but c could not be decided: without the
# refusal the session would wait for it until MAX rounds.
refused "variant 'c' runs workload 'command' and the baseline 'a' runs 'pipe'" \
    a='pipe -l 100' b='pipe -l 200' c='-- true'

t_case "submit refuses the same"
expect_rc 2 "$NF" --db "$T/submit.db" submit -- ab a='pipe -l 100' b='-- true'
expect_one_line_err
expect_in err "ab: nothing to compare: variant 'b' runs workload 'command'"
[ -e "$T/submit.db" ] && fail "a job was queued for a session refused"

t_case "variants sharing the workload and -m metric still run"
expect_rc 0 "$NF" ab --rounds 2:2 --order sequential -m v \
    x='--metric v=^([0-9]+)$ -- echo 5' y='--metric v=^([0-9]+)$ -- echo 6'
expect_in out "stopped: "

# Without a PMU, cycles is stored as <not supported>: the variants declare
# it, so they are not refused, but no round gives a sample of it.
"$NF" --db "$T/probe.db" run -r 1 --warmup 0 -e cycles -- true >"$T/probe" 2>&1
if ! grep -q "not supported" "$T/probe"; then
    echo "  (this machine counts cycles: the cases of a metric with no samples are not checked)"
    pass
fi

t_case "-m a counter with no samples: stops at the first look, exit 2, runs kept"
expect_rc 2 "$NF" ab --rounds 2:40 --seed 1 -m cycles \
    cx='-e cycles -- true' cy='-e cycles -- true'
expect_one_line_err
expect_in err "^noisefloor: ab: nothing compared: the baseline 'cx' has no samples of cycles, only <not supported> .*; the 2 rounds of session ab-[^ ]+ are stored$"
expect_in out "^ab session ab-[^ ]+: 2 rounds \(\+1 warm-up\) .*stopped: nothing compared$"
expect_in out "command cycles"
expect_rc 0 "$NF" list -L cx -L cy
expect_in out "cx +command true .* 2 .* complete$"
expect_in out "cy +command true .* 2 .* complete$"

t_case "--json: the session printed, exit 2"
expect_rc 2 "$NF" ab --json --rounds 2:40 --seed 1 -m cycles \
    jx='-e cycles -- true' jy='-e cycles -- true'
expect_one_line_err
expect_in err "ab: nothing compared: "
json_check 'd["stopped"] == "nothing compared" and d["rounds"] == 2'

t_case "sequential order (no stop rule): the same line at the end"
expect_rc 2 "$NF" ab --order sequential --rounds 2 -m cycles \
    sx='-e cycles -- true' sy='-e cycles -- true'
expect_one_line_err
expect_in err "^noisefloor: ab: nothing compared: the baseline 'sx' has no samples of cycles"
expect_in out "stopped: "
pass
