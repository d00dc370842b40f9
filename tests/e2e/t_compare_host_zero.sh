# compare of labels run on several hosts, where a rate (higher is better)
# has a value of 0: the rule of the rest of compare (doc/statistics.md,
# "Comparing one metric") holds for the per-host means too.  A host's
# harmonic mean is then 0 (its limit), a note names the host, and the row
# gets no test, also when the 0 is on a host left out of the pairs (which
# used to be paired over the other hosts and called "regressed").  The
# runs come from import (four simulated hosts) and from `run` under
# NOISEFLOOR_HOSTNAME, as a fleet's agents record them.
. "$(dirname "$0")/lib.sh"

# fleet NAME ZERO_LABEL ZERO_HOST B_HOSTS: runs of A (h1-h4) and B (the
# hosts B_HOSTS, comma-separated), ops/sec, B 2% slower on every host;
# the run of ZERO_LABEL on ZERO_HOST has a 0 in its fourth repetition.
fleet() {
    /usr/bin/python3 - "$@" >"$T/$1.json" <<'PY'
import json, sys
_, name, zlabel, zhost, bhosts = sys.argv
levels = {"h1": 10.0, "h2": 11.0, "h3": 9.0, "h4": 10.5, "h5": 12.0}
wiggle = [0.004, -0.003, 0.005, -0.005, 0.001, -0.002, 0.003, -0.004]
runs = []
for label, factor, hosts in (("A", 1.0, ["h1", "h2", "h3", "h4"]),
                             ("B", 0.98, bhosts.split(","))):
    for i, h in enumerate(hosts):
        vals = [levels[h] * factor * (1 + w) for w in wiggle]
        if label == zlabel and h == zhost:
            vals[3] = 0.0
        runs.append({"label": name + label, "workload": "pipe", "repeat": 8, "warmup": 1,
                     "started": "2026-01-0%dT12:00:00Z" % (i + 1), "status": "complete",
                     "env": {"hostname": h, "kernel": "6.1"},
                     "metrics": [{"name": "ops/sec", "unit": "ops/sec", "better": "higher",
                                  "primary": True, "values": vals}]})
print(json.dumps({"runs": runs}))
PY
    expect_rc 0 "$NF" import "$T/$1.json" --format json
}

t_case "no 0: paired by host, regressed (the set-up pairs)"
fleet p - - h1,h2,h3,h4
expect_rc 3 "$NF" compare --json --fail-on-regression pA pB
json_check 'd["rows"][0]["pairing"] == "hosts" and d["rows"][0]["verdict"] == "regressed"'

t_case "a 0 on a host both ran: the host's mean is 0, no test"
fleet z B h2 h1,h2,h3,h4
expect_rc 0 "$NF" compare --json --fail-on-regression zA zB
json_check 'd["rows"][0]["pairing"] == "none" and d["rows"][0]["verdict"] == "inconclusive"'
json_check 'd["rows"][0]["p_value"] is None and d["rows"][0]["mean"] == 0'
json_check '"zB: not paired by host: the mean of zB on h2 is 0 (a rate with a value of 0), and such a rate gets no test" in d["rows"][0]["notes"]'
json_check 'any(n.startswith("zB: a value of 0 in a rate (higher is better): the harmonic mean is 0, and no test runs on it") for n in d["rows"][0]["notes"])'
expect_rc 0 "$NF" compare zA zB
expect_in out "note: zB: not paired by host: the mean of zB on h2 is 0 \(a rate with a value of 0\)"
expect_in out "^Verdict +inconclusive$"

t_case "the baseline's 0"
fleet y A h3 h1,h2,h3,h4
expect_rc 0 "$NF" compare --json yA yB
json_check 'd["rows"][0]["pairing"] == "none" and d["rows"][0]["p_value"] is None'
json_check '"yB: not paired by host: the mean of yA on h3 is 0 (a rate with a value of 0), and such a rate gets no test" in d["rows"][0]["notes"]'

t_case "a 0 on a host left out of the pairs: still no test"
fleet x B h5 h1,h2,h3,h4,h5
expect_rc 0 "$NF" compare --json --fail-on-regression xA xB
json_check 'd["rows"][0]["pairing"] == "none" and d["rows"][0]["verdict"] == "inconclusive"'
json_check '"xB: not paired by host: the mean of xB on h5 is 0 (a rate with a value of 0), and such a rate gets no test" in d["rows"][0]["notes"]'

t_case "runs recorded on four hosts (NOISEFLOOR_HOSTNAME), one with a 0"
m='--metric v=^([0-9]+)$ --better higher --unit ops'
# One command for both labels (compare's rows are a command's words):
# what it prints is the file's.
for h in r1 r2 r3 r4; do
    echo 10 >"$T/val"
    NOISEFLOOR_HOSTNAME=$h expect_rc 0 "$NF" run -L RA -r 3 $m -- cat "$T/val"
    if [ "$h" = r3 ]; then echo 0; else echo 9; fi >"$T/val"
    NOISEFLOOR_HOSTNAME=$h expect_rc 0 "$NF" run -L RB -r 3 $m -- cat "$T/val"
done
expect_rc 0 "$NF" compare --json -m v RA RB
json_check 'd["rows"][0]["pairing"] == "none" and d["rows"][0]["p_value"] is None'
json_check '"RB: not paired by host: the mean of RB on r3 is 0 (a rate with a value of 0), and such a rate gets no test" in d["rows"][0]["notes"]'
pass
