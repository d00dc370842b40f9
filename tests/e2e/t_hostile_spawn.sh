# Hostile commands and signals: nothing a repetition starts outlives it
# (a daemon after setsid, a double fork, one that ignores SIGTERM; on
# success, failure and --timeout); a SIGKILL of noisefloor takes the
# child's process group with it; SIGHUP and SIGQUIT restore --sysctl as
# SIGINT does; --timeout's range; a --metric regex that would crash or hang
# regcomp.  Each process under test writes its own pid (through a fifo the
# command reads, so the command cannot end before it is written); the
# checks look at those pids once the run has returned.
. "$(dirname "$0")/lib.sh"

# alive PID: a process that is neither gone nor a zombie.
alive() {
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
    [ -n "$st" ] && [ "$st" != Z ]
}
# none_alive FILE: every pid in FILE (one a line, at least one) is gone.
none_alive() {
    [ -s "$1" ] || { fail "no pid was written to $1"; return; }
    for p in $(cat "$1"); do
        ! alive "$p" || fail "pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline")) outlived the run"
    done
}
# gone_within FILE: as none_alive, allowing 10 s for SIGKILLs sent by
# another process to land.
gone_within() {
    for _ in $(seq 100); do
        left=""
        for p in $(cat "$1"); do alive "$p" && left=1; done
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    none_alive "$1"
}

# A command that starts LAUNCHER (a shell snippet that runs `$1` in the
# background in some way) of a process that writes its pid to the fifo and
# sleeps for ever; the command reads the pid, appends it to pids, then
# does what REST says.
hostile() {
    # shellcheck disable=SC2016
    printf 'rm -f fifo; mkfifo fifo\n%s\nread p <fifo; echo "$p" >>pids\n%s' "$1" "$2"
}
DAEMON='setsid sh -c "echo \$\$ >fifo; exec sleep 1000" &'
# The grandchild of a double fork, in a process group of its own.
cat >leave.sh <<'EOF'
exec /usr/bin/python3 -c 'import os
os.setpgid(0, 0)
with open("fifo", "w") as f:
    f.write("%d\n" % os.getpid())
os.execvp("sleep", ["sleep", "1000"])'
EOF
DOUBLE='( sh leave.sh & ) '
NOTERM='setsid sh -c "trap \"\" TERM HUP INT; echo \$\$ >fifo; while :; do sleep 1; done" &'

t_case "a daemon (setsid) is gone when the repetition ends"
rm -f pids
expect_rc 0 "$NF" run -r 2 --warmup 1 -- sh -c "$(hostile "$DAEMON" 'exit 0')"
[ "$(wc -l <pids)" -eq 3 ] || fail "expected 3 pids, got $(wc -l <pids)"
none_alive pids

t_case "a double fork that left the group is gone when the repetition ends"
rm -f pids
expect_rc 0 "$NF" run -r 2 --warmup 0 -- sh -c "$(hostile "$DOUBLE" 'exit 0')"
none_alive pids

t_case "one that ignores SIGTERM is gone too"
rm -f pids
expect_rc 0 "$NF" run -r 1 --warmup 0 -- sh -c "$(hostile "$NOTERM" 'exit 0')"
none_alive pids

t_case "on failure"
rm -f pids
expect_rc 1 "$NF" run -r 2 --warmup 0 -- sh -c "$(hostile "$DAEMON" 'exit 3')"
expect_in err "exited with status 3"
none_alive pids

t_case "on --timeout"
rm -f pids
expect_rc 1 "$NF" run -r 1 --warmup 0 --timeout 3 -- sh -c "$(hostile "$NOTERM" 'exec sleep 1000')"
expect_in err "exceeded --timeout 3s"
none_alive pids

t_case "a built-in workload's tasks on --timeout"
expect_rc 1 "$NF" run -r 1 --warmup 0 --timeout 0.5 messaging -g 1 -f 2 -l 999999999
pgrep -f "messaging -g 1 -f 2 -l 999999999" >/dev/null && fail "messaging tasks left behind"

t_case "kill -9 of noisefloor takes the child's group with it"
# The command's child is in the command's process group; the command
# (the group's leader) dies by PR_SET_PDEATHSIG, the rest by the guardian.
rm -f pids
"$NF" run -r 1 --warmup 0 -- sh -c "$(hostile 'sh -c "echo \$\$ >fifo; exec sleep 1000" &' 'echo $$ >>pids; exec sleep 1000')" >"$T/out" 2>"$T/err" &
main=$!
for _ in $(seq 100); do [ "$(cat pids 2>/dev/null | wc -l)" = 2 ] && break; sleep 0.1; done
[ "$(cat pids 2>/dev/null | wc -l)" = 2 ] || fail "the command did not start"
kill -KILL "$main"
{ wait "$main"; } 2>/dev/null
gone_within pids

t_case "SIGHUP and SIGQUIT restore --sysctl like SIGINT"
export NOISEFLOOR_STATE="$T/tune.state"
mkdir -p "$T/fk/proc/sys/kernel"
F="$T/fk/proc/sys/kernel/sched_foo"
echo 1 >"$F"
for sig in HUP:1 QUIT:3; do
    num=${sig#*:}
    sig=${sig%:*}
    # The command says through a fifo that it runs, with its pid and the
    # value it sees: the signal comes while the value is set, mid-repetition.
    rm -f fifo; mkfifo fifo
    "$NF" run -r 1000 --warmup 0 --root "$T/fk" --sysctl kernel.sched_foo=7 -- \
        sh -c "echo \$\$ \$(cat $F) >fifo; exec sleep 1000" >"$T/out" 2>"$T/err" &
    main=$!
    read -r cmd seen <fifo
    echo "$cmd" >pids
    [ "$seen" = 7 ] || fail "SIG$sig: the command saw '$seen', not 7"
    kill -"$sig" "$main"
    wait "$main"
    rc=$?
    want=$((128 + num))
    [ "$rc" -eq "$want" ] || fail "SIG$sig: expected exit $want, got $rc ($(cat "$T/err"))"
    [ "$(cat "$F")" = 1 ] || fail "SIG$sig: not restored: $(cat "$F")"
    [ ! -e "$NOISEFLOOR_STATE" ] || fail "SIG$sig: state file left"
    expect_in err "interrupted by signal $num"
    none_alive pids
done
unset NOISEFLOOR_STATE

t_case "--timeout up to its maximum, no overflow"
expect_rc 0 "$NF" run -r 1 --warmup 0 --timeout 31536000 -- true
expect_rc 0 "$NF" run -r 1 --warmup 0 --timeout 2147484 -- true
expect_rc 2 "$NF" run --timeout 1.9e10 -- true
expect_one_line_err
expect_in err "--timeout wants seconds in \\[0, 31536000\\], not '1.9e10'"

t_case "a --metric regex nested 20000 deep"
deep=$(printf '%20000s' '' | tr ' ' '(')
expect_rc 2 "$NF" run --metric "x=$deep" -- true
expect_one_line_err
expect_in err "^noisefloor: run: --metric x: the regular expression nests groups 20000 deep \\(at most 64\\)$"
deep=$(printf '%5000s' '' | tr ' ' '(')a$(printf '%5000s' '' | tr ' ' ')')
expect_rc 2 "$NF" run --metric "x=$deep" -- true
expect_one_line_err

t_case "a --metric regex too long or too costly for regcomp"
long=$(printf '%5000s' '' | tr ' ' 'a')
expect_rc 2 "$NF" run --metric "x=($long)" -- true
expect_one_line_err; expect_in err "5002 bytes long \\(at most 4096\\)"
# A run of '*' makes glibc's regcomp take minutes: the check's child runs
# out of CPU time.
stars=$(printf '%4000s' '' | tr ' ' '*')
expect_rc 2 "$NF" run --db "$T/none.db" --metric "x=(a$stars)" -- true
expect_one_line_err; expect_in err "too complex to compile"
[ ! -e "$T/none.db" ] || fail "a refused run made a database"
pass
