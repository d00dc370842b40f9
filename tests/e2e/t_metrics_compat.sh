# Runs stored before the rusage metrics (four perf counters by default)
# compare with runs made now: the metrics both have are compared, the
# others are shown as present on one side only ("no data"); -m naming
# only such a metric leaves nothing to compare: exit 2 (a usage error),
# even with --fail-on-regression, never 3 (a regression).
# tests/data/compat/before-rusage.json is the export of
#   noisefloor run -r 5 --warmup 1 -L before pipe -l 2000
#   noisefloor run -r 3 --warmup 1 -L before messaging -g 1 -l 10
# made by noisefloor bd2eba3 (the last version that counted by default).
. "$(dirname "$0")/lib.sh"

t_case "an old run and a new one compare on what both have"
expect_rc 0 "$NF" import "$ROOT/tests/data/compat/before-rusage.json" --format json
expect_rc 0 "$NF" run -r 5 --warmup 1 -L after pipe -l 2000
expect_rc 0 "$NF" compare -w pipe --json before after
json_check '{r["metric"] for r in d["rows"]} >= {"usecs/op", "ops/sec", "task-clock", "user", "voluntary-context-switches"}'
# Both sides have data: a real comparison, no "no data" note.
json_check 'all(r["p_value"] is not None and not any("no data" in n for n in r["notes"]) for r in d["rows"] if r["metric"] in ("usecs/op", "ops/sec"))'
# One side only: listed, with a note saying which side has none.
json_check 'all(r["p_value"] is None and "this label has no data for this metric" in r["notes"] for r in d["rows"] if r["metric"] in ("task-clock", "context-switches", "cpu-migrations", "page-faults"))'
json_check 'all(r["p_value"] is None and "the baseline has no data for this metric" in r["notes"] for r in d["rows"] if r["metric"] in ("user", "sys", "voluntary-context-switches", "max-rss"))'
expect_rc 0 "$NF" compare -w pipe before after
expect_in out "^pipe usecs/op \\(lower is better\\)"
expect_in out "no data"

t_case "only a metric of one side named: nothing compared, exit 2, not 3"
expect_rc 2 "$NF" compare -w pipe -m task-clock --fail-on-regression before after
expect_in err "nothing compared: 'after' has no samples of task-clock"
expect_rc 2 "$NF" compare -w pipe -m max-rss --fail-on-regression before after
expect_in err "nothing compared: the baseline 'before' has no samples of max-rss"

t_case "rusage counted before the image is not set beside rusage counted from go"
# tests/data/compat/before-image.json is the export of
#   noisefloor run -r 5 --warmup 1 -L before-image pipe -l 2000
# made by noisefloor bbd084e, the last version that ran built-in workloads
# in a fork of itself and counted their rusage from the fork.
expect_rc 0 "$NF" import "$ROOT/tests/data/compat/before-image.json" --format json --renumber
expect_rc 0 "$NF" run -r 5 --warmup 1 --json -L image pipe -l 2000
json_check 'd["env"]["rusage"] == "from-go"'
expect_rc 0 "$NF" compare -w pipe --json before-image image
json_check 'all(r["p_value"] is not None for r in d["rows"] if r["metric"] in ("usecs/op", "ops/sec"))'
json_check 'all(r["p_value"] is None and r["verdict"] != "regressed" and any("not compared: " + r["metric"] + " counted from each repetition" in n for n in r["notes"]) for r in d["rows"] if r["metric"] in ("user", "sys", "minor-page-faults", "max-rss"))'

t_case "only rusage counted two ways named: nothing compared, exit 2, not 3"
expect_rc 2 "$NF" compare -w pipe -m minor-page-faults --fail-on-regression before-image image
expect_in err "nothing compared"
expect_rc 2 "$NF" compare -w pipe -m max-rss --fail-on-regression before-image image
expect_in err "nothing compared"

t_case "two runs of this version compare on the rusage metrics"
# Two runs of this version are compared on them as on anything else.
expect_rc 0 "$NF" run -r 5 --warmup 1 -L image2 pipe -l 2000
expect_rc 0 "$NF" compare -w pipe --json image image2
json_check 'all(r["p_value"] is not None or r["metric"] == "major-page-faults" for r in d["rows"] if r["metric"] in ("user", "minor-page-faults", "max-rss", "major-page-faults"))'

pass
