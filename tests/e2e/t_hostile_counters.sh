# Counters of a command whose exec changes its credentials: the kernel
# detaches every perf event from a task at an exec that makes it undumpable
# (a set-user-ID file of another owner, file capabilities, a file it may
# not read), so a counter holds the first microseconds of the exec only
# (task-clock 0.01 ms, page-faults 0 where rusage counts 49 faults).  Such
# counters are stored without values (unsupported), with a note on the run
# and a warning saying why, never as values; the other metrics are kept.
# Seen before the exec (the file's bits) or after it (the counter's enabled
# time far below the CPU time the command had).
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (to make set-user-ID files and run as nobody)"
id nobody >/dev/null 2>&1 || skip "no user nobody"
command -v setpriv >/dev/null || skip "no setpriv"
! findmnt -n -o OPTIONS -T "$T" 2>/dev/null | grep -Eq '(^|,)nosuid(,|$)' ||
    skip "$T is on a nosuid mount: set-user-ID bits are ignored there"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }

chmod 711 "$T"
mkdir -m 1777 "$T/pub" # nobody's store (SQLite) and files
TRUE=/usr/bin/true
[ -x "$TRUE" ] || TRUE=/bin/true
# counted DB FILE: FILE's last run in DB has task-clock and page-faults
# with a value per repetition (supported).  uncounted DB FILE WHY: it has
# them unsupported and without values, the note saying WHY, and its
# rusage metrics still counted.
last_run() { "$NF" --db "$1" export >"$T/out" || fail "export failed"; }
counted() {
    last_run "$1"
    json_check "[(m['supported'], len(m['values'])) for m in d['runs'][-1]['metrics']
                 if m['name'] in ('task-clock', 'page-faults')] == [(True, 2), (True, 2)]"
    json_check "[m['values'] for m in d['runs'][-1]['metrics'] if m['name'] == 'page-faults'][0][0] > 0"
}
uncounted() {
    last_run "$1"
    json_check "([(m['supported'], m['values']) for m in d['runs'][-1]['metrics']
                  if m['name'] in ('task-clock', 'context-switches', 'page-faults')] ==
                 [(False, [])] * 3)"
    # the flag the store keeps, of each counter (not of the rusage metrics)
    json_check "[m['not_counted'] for m in d['runs'][-1]['metrics']
                 if m['name'] in ('task-clock', 'context-switches', 'page-faults')] == [True] * 3"
    json_check "[len(m['values']) for m in d['runs'][-1]['metrics']
                 if m['name'] == 'minor-page-faults'] == [2]"
    json_check "'counters <not counted>, stored without values' in d['runs'][-1]['note']"
    json_check "'''$2''' in d['runs'][-1]['note']"
}

# No perf_event_open here (a container's seccomp, paranoid 3): the cases
# below would find nothing counted whatever they ran.
"$NF" --db "$T/probe.db" run -r 1 -e task-clock -- "$TRUE" >"$T/out" 2>&1 ||
    fail "run of $TRUE failed: $(head -c 300 "$T/out")"
grep -q '<not supported>' "$T/out" && skip "no counters on this machine (task-clock <not supported>)"

t_case "a command of ours is counted"
expect_rc 0 "$NF" run -r 2 -e default -- "$TRUE"
counted "$NOISEFLOOR_DB"
expect_not_in err "not counted"

t_case "root running a file set-user-ID nobody: <not counted>"
cp "$TRUE" "$T/pub/suid-nobody"
chown nobody "$T/pub/suid-nobody"
chmod 4755 "$T/pub/suid-nobody"
expect_rc 0 "$NF" run -r 2 -e default -- "$T/pub/suid-nobody"
expect_in err "warning: counters <not counted>, stored without values: '$T/pub/suid-nobody' is set-user-ID \(owner uid $(id -u nobody); we run as uid 0\)"
# the summary says so in perf stat's word: they exist, they did not count
expect_in out "^ +<not counted> +msec task-clock *$"
expect_in out "^ +<not counted> +page-faults *$"
expect_not_in out "not supported"
uncounted "$NOISEFLOOR_DB" "is set-user-ID"

t_case "root running a set-user-ID root file is counted (nothing changes)"
cp "$TRUE" "$T/pub/suid-root"
chmod 4755 "$T/pub/suid-root"
expect_rc 0 "$NF" run -r 2 -e default -- "$T/pub/suid-root"
counted "$NOISEFLOOR_DB"

# The rest as nobody, on a SQLite store of nobody's: the test server's
# socket is in a directory only its owner may enter.
[ "$BACKEND" = sqlite ] || {
    t_case "as nobody"
    case_skip "nobody cannot reach the test server's socket; the sqlite pass runs these"
    pass
}
NDB="$T/pub/nobody.db"

t_case "nobody running its own command is counted"
expect_rc 0 as_nobody "$NF" --db "$NDB" run -r 2 -e default -- "$TRUE"
counted "$NDB"

t_case "nobody running a copy of true set-user-ID root: <not counted>"
expect_rc 0 as_nobody "$NF" --db "$NDB" run -r 2 -e default -- "$T/pub/suid-root"
expect_in err "'$T/pub/suid-root' is set-user-ID \(owner uid 0; we run as uid $(id -u nobody)\)"
uncounted "$NDB" "the kernel stops a counter at its exec"

t_case "nobody running a copy of true set-group-ID root: <not counted>"
cp "$TRUE" "$T/pub/sgid-root"
chmod 2755 "$T/pub/sgid-root"
expect_rc 0 as_nobody "$NF" --db "$NDB" run -r 2 -e default -- "$T/pub/sgid-root"
uncounted "$NDB" "is set-group-ID (group gid 0"

t_case "nobody running passwd -S (set-user-ID root): <not counted>"
P=$(command -v passwd)
if [ -z "$P" ] || [ ! -u "$P" ] || [ "$(stat -c %u "$P")" != 0 ]; then
    case_skip "no set-user-ID root passwd here"
fi
expect_rc 0 as_nobody "$NF" --db "$NDB" run -r 2 -e default -- "$P" -S
uncounted "$NDB" "'$P' is set-user-ID"

t_case "nobody running a file it may execute but not read: stopped, seen after the exec"
# Not set-user-ID: the kernel makes the task undumpable all the same (its
# image must not be read through /proc), which only the counter's enabled
# time shows.
cp "$TRUE" "$T/pub/exec-only"
chmod 0711 "$T/pub/exec-only"
expect_rc 0 as_nobody "$NF" --db "$NDB" run -r 2 -e default -- "$T/pub/exec-only"
expect_in err "counting stopped at an exec \(enabled [0-9.e-]+ ms of the [0-9.e-]+ ms of CPU time\)"
expect_in out "^ +<not counted> +msec task-clock *$"
uncounted "$NDB" "counting stopped at an exec"

t_case "with --interleave the counted half is checked too"
expect_rc 0 as_nobody "$NF" --db "$NDB" run -r 2 --interleave -e default -- "$T/pub/exec-only"
uncounted "$NDB" "counting stopped at an exec"

t_case "counters that stop after counting in recorded repetitions fail the repetition"
# Its first repetition execs a burn it may read (counted), the second an
# execute-only copy: 300 ms of CPU time the counter never sees, beside the
# shell's few it saw.
cp "$ROOT/build/tests/burn" "$T/pub/burn" || fail "no build/tests/burn: make build/tests/burn"
cp "$T/pub/burn" "$T/pub/burn-x"
chmod 0755 "$T/pub/burn"
chmod 0711 "$T/pub/burn-x"
cat >"$T/pub/flip.sh" <<EOF
[ -e "$T/pub/flipped" ] && exec "$T/pub/burn-x" 300
: >"$T/pub/flipped"
exec "$T/pub/burn" 300
EOF
chmod 0755 "$T/pub/flip.sh"
expect_rc 1 as_nobody "$NF" --db "$NDB" run -r 2 --warmup 0 -e task-clock -- sh "$T/pub/flip.sh"
expect_in err "'sh': counting stopped at an exec .*, in this repetition and not in those before"
last_run "$NDB"
json_check "d['runs'][-1]['status'] == 'failed'"
json_check "[(m['supported'], len(m['values'])) for m in d['runs'][-1]['metrics'] if m['name'] == 'task-clock'] == [(True, 1)]"
pass
