# Bad input gets one clear line and exit 2; --help works on every command.
. "$(dirname "$0")/lib.sh"

expect_rc 0 "$NF" --help
expect_in out "Commands:"
for c in run compare ab list show rm export import doctor profile profdiff insns report; do
    expect_rc 0 "$NF" "$c" --help
    expect_in out "usage: noisefloor $c"
done
expect_rc 2 "$NF" frobnicate
expect_one_line_err; expect_in err "unknown command 'frobnicate'"
expect_rc 2 "$NF"
expect_rc 2 "$NF" run --bogus pipe
expect_one_line_err; expect_in err "unknown option '--bogus'"
expect_rc 2 "$NF" run nosuchworkload
expect_one_line_err; expect_in err "unknown workload 'nosuchworkload'"
expect_rc 2 "$NF" run -e bogus-event pipe -l 10
expect_one_line_err; expect_in err "unknown event 'bogus-event'"
expect_rc 2 "$NF" run -r 0 pipe
expect_one_line_err; expect_in err "--repeat"
expect_rc 2 "$NF" run pipe -l -5
expect_one_line_err; expect_in err "pipe: -l wants a loop count"
expect_rc 2 "$NF" run --pin 99 pipe -l 10
expect_one_line_err; expect_in err "CPU 99 is not online"
expect_rc 2 "$NF" run --pin 1-0 pipe -l 10
expect_one_line_err; expect_in err "not a CPU list"
expect_rc 2 "$NF" run pipe extra
expect_one_line_err
expect_rc 2 "$NF" run --
expect_one_line_err; expect_in err "no command after"
expect_rc 0 "$NF" run pipe --help
expect_in out "usage: noisefloor run \[OPTIONS\] pipe"
expect_rc 2 "$NF" --db
expect_one_line_err
pass
