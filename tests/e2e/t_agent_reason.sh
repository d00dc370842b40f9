# agent records why a job failed as noisefloor's own error line, not the
# tail of the measured command's stderr (which passes through the same
# pipe and is shown on the agent's stderr, but is not the reason).
. "$(dirname "$0")/lib.sh"

t_case "a failed job's reason is the run's error line, not the command's stderr"
expect_rc 0 "$NF" submit -- run -r 2 --warmup 0 -L j3 -- sh -c \
    'for i in 1 2 3 4 5; do echo line $i >&2; done; echo "noisefloor: decoy" >&2; exit 1'
expect_rc 1 "$NF" agent --allow-commands --drain --poll 0.2
expect_in out "^job 1: failed: run: repetition failed: 'sh' exited with status 1$"
expect_in err 'line 5'   # the command's stderr, passed on
expect_rc 0 "$NF" jobs --json
json_check 'd["jobs"][0]["state"] == "failed"'
json_check 'd["jobs"][0]["error"] == "run: repetition failed: '"'"'sh'"'"' exited with status 1"'
expect_rc 0 "$NF" jobs
expect_in out "run: repetition failed: 'sh' exited with status 1$"
expect_not_in out 'stderr\||line 5|decoy'

pass
