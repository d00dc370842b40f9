# list summarises a rate as run and compare do (harmonic mean; 0 when a
# value is 0, none when one is below 0), and the HTML report shows the
# --sysctl settings of a run as key=value, not just their values; each of
# ab's variants records its own --sysctl settings.
. "$(dirname "$0")/lib.sh"

t_case "list: a rate with a 0 is 0, with a negative none"
printf '%s\n' 1 2 0 4 >"$T/zero"
printf '%s\n' -1 1 -2 2 >"$T/neg"
printf '%s\n' 1 2 1 4 >"$T/pos"
expect_rc 0 "$NF" import "$T/zero" --format values --metric s --unit op/s --better higher -L zero
expect_rc 0 "$NF" import "$T/neg" --format values --metric s --unit op/s --better higher -L neg
expect_rc 0 "$NF" import "$T/pos" --format values --metric s --unit op/s --better higher -L pos
expect_rc 0 "$NF" list -L zero
expect_in out ' zero +values .* 0 s( |$)'
expect_rc 0 "$NF" list -L neg
expect_in out ' neg +values .* - s( |$)'
expect_rc 0 "$NF" list -L pos
expect_in out ' pos +values .* 1\.45455 s \+- '

t_case "report: --sysctl settings as key=value"
mkdir -p "$T/fk/proc/sys/kernel"
echo 8192 >"$T/fk/proc/sys/kernel/msgmax"
export NOISEFLOOR_STATE="$T/tune.state"
expect_rc 0 "$NF" run -r 2 --warmup 0 -L plain --root "$T/fk" -- true
expect_rc 0 "$NF" run -r 2 --warmup 0 -L tuned --root "$T/fk" --sysctl kernel.msgmax=9000 -- true
expect_rc 0 "$NF" report --html - plain tuned
expect_in out 'kernel\.msgmax=9000'

t_case "ab: each variant records its own --sysctl"
expect_rc 0 "$NF" ab --rounds 2 -m wall \
    lo="--root $T/fk --sysctl kernel.msgmax=8000 -- true" \
    hi="--root $T/fk --sysctl kernel.msgmax=9500 -- true"
[ "$(cat "$T/fk/proc/sys/kernel/msgmax")" = 8192 ] || fail "kernel.msgmax not restored"
expect_rc 0 "$NF" export -L lo -L hi
json_check '{r["label"]: r["env"]["sysctl"] for r in d["runs"]} == {"lo": {"kernel.msgmax": "8000"}, "hi": {"kernel.msgmax": "9500"}}'
pass
