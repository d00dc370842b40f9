# The progress line at a terminal: an ETA from the repetitions done, the
# elapsed time moving during a long repetition, and the expected total up
# front when the workload can say how long a repetition takes.  The line
# goes to stderr only when it is a terminal (a pseudo-terminal here); what
# is asserted is which fields are there and their form, never their values
# (except what the options alone decide).
. "$(dirname "$0")/lib.sh"

PTY="/usr/bin/python3 -I -S $ROOT/tests/e2e/pty_run.py"
# The redraws, one per line: the terminal's text split at each "\r\033[K".
redraws() { /usr/bin/python3 -I -S -c '
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
for part in re.split("[\r\n]*\x1b\\[K", t):
    part = part.strip("\r\n")
    if part:
        print(part)' "$T/tty" >"$T/lines"; }

t_case "a long repetition: the elapsed time moves while it runs"
# A sleep of 1.5 s lasts at least that on any machine: the parent's wait
# wakes at 1 s to redraw, so the warm-up's line is drawn more than once,
# with different elapsed times.
expect_rc 0 $PTY "$T/out" "$T/tty" -- "$NF" run -r 2 --warmup 1 -- sleep 1.5
redraws
n=$(grep -E '^warm-up 1/1  [0-9]+\.[0-9]s' "$T/lines" | sort -u | wc -l)
[ "$n" -ge 2 ] || fail "the warm-up's line was drawn $n time(s): $(head -c 400 "$T/lines")"
expect_in lines '^repetition 1/2  [0-9]+\.[0-9]s  ETA [0-9]+:[0-9]{2}  wall '
# Nothing of it on stdout.
expect_not_in out 'ETA'

t_case "without a terminal: no line at all"
expect_rc 0 "$NF" run -r 2 --warmup 0 -- sleep 0.01
expect_not_in err 'ETA|repetition'

t_case "default netsend says its expected total up front"
# 9 sizes of 5 s, 10 repetitions and a warm-up: 8 minutes 15 s, said
# before the first one starts; interrupted there.
$PTY "$T/out" "$T/tty" --until 'expected [0-9:]+ in all' -- "$NF" run netsend >/dev/null 2>&1
redraws
expect_in lines '^11 repetitions of about 45s: expected 8:15 in all'

t_case "ab rounds show an ETA"
expect_rc 0 $PTY "$T/out" "$T/tty" -- "$NF" ab --rounds 3:3 a='-- true' b='-- true'
redraws
expect_in lines '^round [123]/3  [0-9]+\.[0-9]s  ETA [0-9]+:[0-9]{2}'
pass
