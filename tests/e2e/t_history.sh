# history: runs imported with known steps (noisefloor's own JSON, whose
# runs carry their start times and environments) give the expected table,
# JSON and exit codes; --tip exits 3 only when the newest runs moved; a
# series too short for one segment says so; mixed units are refused.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# gen SEED SPEC...: a noisefloor export on stdout.  SPEC is KEY=VALUE;...
# with label, wl, args (words, blank-separated), metric, unit, better,
# host, levels (COUNTxMEAN+COUNTxMEAN...: runs at each level), cv (% of
# each repetition's noise), t0 (hours after 2026-01-01 of the first run),
# commits (a file of SHAs: run i records line i), shuffle (1: the start
# times in a fixed random order), out (I: run I gets an outlier, +30%),
# ar (RHO,SD: each run's level moves by an AR(1) series of coefficient
# RHO and SD % from run to run, as a machine's state drifts by the day).
# Deterministic: Python's Mersenne Twister from SEED.
gen() {
    /usr/bin/python3 -I -S - "$@" <<'PY'
import json, random, sys, datetime
random.seed(int(sys.argv[1]))
runs = []
for spec in sys.argv[2:]:
    o = dict(kv.split("=", 1) for kv in spec.split(";"))
    means = []
    for part in o["levels"].split("+"):
        n, lvl = part.split("x")
        means += [float(lvl)] * int(n)
    commits = open(o["commits"]).read().split() if "commits" in o else None
    hours = list(range(len(means)))
    if o.get("shuffle") == "1":
        random.shuffle(hours)
    cv = float(o.get("cv", "1")) / 100
    if "ar" in o:
        rho, sd = (float(v) for v in o["ar"].split(","))
        e = random.gauss(0, 1)
        for i in range(len(means)):
            means[i] *= 1 + sd / 100 * e
            e = rho * e + (1 - rho * rho) ** 0.5 * random.gauss(0, 1)
    base = datetime.datetime(2026, 1, 1) + datetime.timedelta(hours=int(o.get("t0", "0")))
    for i, m in enumerate(means):
        if str(i) == o.get("out"):
            m *= 1.3
        vals = [m * (1 + cv * random.gauss(0, 1)) for _ in range(5)]
        env = {"hostname": o.get("host", "h1")}
        if commits:
            env["commit"] = commits[i]
        start = base + datetime.timedelta(hours=hours[i])
        runs.append({"id": None, "label": o.get("label", "nightly"), "workload": o["wl"],
            "args": o.get("args", "").split(), "started": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "repeat": 5, "warmup": 0, "status": o.get("status", "complete"), "session": None,
            "note": None, "env": env,
            "metrics": [{"name": o.get("metric", "ms"), "unit": o.get("unit", "ms"),
                         "better": o.get("better", "lower"), "primary": True,
                         "supported": True, "values": vals}]})
json.dump({"runs": runs}, sys.stdout)
PY
}

t_case "a step of +5% in one series, none in another: the table and the summary"
gen 1 'wl=stepbench;args=-n 3;levels=30x10+30x10.5' \
    'wl=stepbench;args=-n 3;host=h2;levels=40x10' >"$T/steps.json" || fail "gen"
expect_rc 0 "$NF" import "$T/steps.json" --format json
expect_rc 0 "$NF" history -w stepbench
expect_in out "^stepbench '-n 3' ms on h1 \\(ms, lower is better\\): 60 runs by time$"
expect_in out "^ +SEG +FROM +TO +RUNS +MEAN +CHANGE +CI +VERDICT$"
expect_in out "^ +1 +run 1 +run 30 +30 +(9\\.9|10\\.0)[0-9]* +- +- +-$"
expect_in out "^ +2 +run 31 +run 60 +30 +10\\.[45][0-9]* +\\+[45]\\.[0-9]+% +\\[\\+[0-9.]+, \\+[0-9.]+\\] +regressed$"
expect_in out "^  change at run 31 started 2026-01-02T06:00:00Z, after run 30: \\+[45]\\.[0-9]+% .* beyond \\+-1%$"
expect_in out "^stepbench '-n 3' ms on h2 .*: 40 runs by time$"
expect_in out "^summary: stepbench '-n 3' ms on h1: 60 runs, 2 segments: \\+[45]\\.[0-9]+% at run 31 \\(regressed\\)$"
expect_in out "^summary: stepbench '-n 3' ms on h2: 40 runs, 1 segment$"
expect_not_in out "bisect start" # these runs record no commit

t_case "the same as JSON"
expect_rc 0 "$NF" history -w stepbench --json
json_check 'd["by"] == "time" and d["alpha"] == 0.01 and d["min_segment"] == 4'
json_check '[(s["host"], len(s["points"])) for s in d["series"]] == [("h1", 60), ("h2", 40)]'
json_check 'd["series"][0]["workload"] == "stepbench" and d["series"][0]["args"] == ["-n", "3"]'
json_check 'd["series"][0]["metric"] == "ms" and d["series"][0]["unit"] == "ms"'
json_check 'sorted(d["series"][0]["points"][0]) == ["commit", "label", "mean", "n", "run", "sd", "started"]'
json_check 'd["series"][0]["points"][0]["n"] == 5 and d["series"][0]["points"][0]["commit"] is None'
json_check '[c["index"] for c in d["series"][0]["change_points"]] == [30]'
json_check 'd["series"][1]["change_points"] == []'
json_check 'all(sorted(c) == sorted(["index", "before_run", "after_run", "before_mean", "after_mean", "change_pct", "change_better_pct", "test_change_pct", "ci_low_pct", "ci_high_pct", "ci_level_pct", "p", "q", "beyond_threshold", "verdict", "bisect"]) for c in d["series"][0]["change_points"])'
# compare's convention: change_pct the means' change on the metric's own
# scale, change_better_pct oriented (+ is better: a rise of ms is worse)
json_check '(lambda c: c["change_better_pct"] == -c["change_pct"] and c["test_change_pct"] == c["change_pct"] and c["ci_level_pct"] == 99)(d["series"][0]["change_points"][0])'
json_check 'abs(d["series"][0]["change_points"][0]["change_pct"] - (d["series"][0]["change_points"][0]["after_mean"] / d["series"][0]["change_points"][0]["before_mean"] - 1) * 100) < 1e-9'
json_check '(lambda s, c: c["before_run"] == s["points"][29]["run"] and c["after_run"] == s["points"][30]["run"])(d["series"][0], d["series"][0]["change_points"][0])'
json_check '(lambda c: 4 < c["change_pct"] < 6 and c["ci_low_pct"] < c["change_pct"] < c["ci_high_pct"] and c["ci_low_pct"] > 1)(d["series"][0]["change_points"][0])'
json_check '(lambda c: c["p"] < 1e-6 and c["p"] <= c["q"] < 1e-6 and c["beyond_threshold"] is True and c["bisect"] is None)(d["series"][0]["change_points"][0])'
json_check '[s["verdict"] for s in d["series"][0]["segments"]] == ["-", "regressed"]'

t_case "--threshold above the step: not beyond the margin"
expect_rc 0 "$NF" history -w stepbench --threshold 20 --json
json_check '(lambda c: c["beyond_threshold"] is False and c["verdict"] == "equivalent")(d["series"][0]["change_points"][0])'

t_case "--tip: the last 4 runs moved (exit 3); a flat series passes (exit 0)"
gen 2 'wl=tipbench;label=moved;levels=30x10+4x10.4;t0=1000' \
    'wl=tipbench;label=flat;levels=34x10;t0=2000' \
    'wl=tipbench;label=spike;levels=34x10;out=20;t0=3000' >"$T/tip.json" || fail "gen"
expect_rc 0 "$NF" import "$T/tip.json" --format json
expect_rc 3 "$NF" history -w tipbench -L moved --tip
expect_in out "^tipbench ms on h1: the last 4 runs moved \\+[345]\\.[0-9]+% \\[\\+[0-9.]+, \\+[0-9.]+\\] since run [0-9]+ \\(p .* q .*\\): beyond the margin, the gate fails$"
expect_rc 0 "$NF" history -w tipbench -L flat --tip
expect_in out "^tipbench ms on h1: the last 34 runs are one segment: no change point$"
expect_rc 3 "$NF" history -w tipbench -L moved --tip --json
json_check '(lambda t: t["moved"] is True and t["runs"] == 4 and 3 < t["change_pct"] < 5)(d["series"][0]["tip"])'
json_check '(lambda t: t["change_better_pct"] == -t["change_pct"] and t["ci_level_pct"] == 99)(d["series"][0]["tip"])'
json_check 'd["series"][0]["tip"]["since_run"] == d["series"][0]["points"][29]["run"]'
expect_rc 0 "$NF" history -w tipbench -L flat --tip --json
json_check '(lambda t: t["change_pct"] is None and t["change_better_pct"] is None and t["ci_level_pct"] is None)(d["series"][0]["tip"])'
expect_rc 0 "$NF" history -w tipbench -L moved # without --tip the exit is 0

t_case "a wild run is an outlier, not a change"
expect_rc 0 "$NF" history -w tipbench -L spike --tip
expect_rc 0 "$NF" history -w tipbench -L spike --json
json_check 'd["series"][0]["change_points"] == []'
json_check 'd["series"][0]["outliers"] == [d["series"][0]["points"][20]["run"]]'
expect_rc 0 "$NF" history -w tipbench -L spike
expect_in out "^  outlier: run [0-9]+ \\(1[23]\\.[0-9]+\\), far from its neighbours on both sides: not a change$"

t_case "a series too short for one segment says so (exit 0, no point)"
gen 3 'wl=shortbench;levels=4x10+3x12' >"$T/short.json" || fail "gen"
expect_rc 0 "$NF" import "$T/short.json" --format json
expect_rc 0 "$NF" history -w shortbench
expect_in out "^  too short for one segment: 7 runs, a change point needs 8 \\(two segments of --min-segment 4\\); no change point claimed$"
expect_in out "^summary: shortbench ms on h1: 7 runs, too short for one segment$"
expect_not_in out "SEG|change at"
expect_rc 0 "$NF" history -w shortbench --tip
expect_in out "too short for one segment"
expect_rc 0 "$NF" history -w shortbench --json
json_check 'd["series"][0]["too_short"] is True and d["series"][0]["change_points"] == []'
expect_rc 0 "$NF" history -w shortbench --min-segment 2 --json
json_check 'd["series"][0]["too_short"] is False'

t_case "mixed units in one series are refused (exit 2)"
gen 4 'wl=unitbench;levels=10x10' 'wl=unitbench;unit=s;levels=10x0.01;t0=500' >"$T/units.json" || fail "gen"
expect_rc 0 "$NF" import "$T/units.json" --format json
expect_rc 2 "$NF" history -w unitbench
expect_one_line_err
expect_in err "^noisefloor: history: unitbench ms: run [0-9]+ stores it in 'ms', run [0-9]+ in 's'; one series has one unit"

t_case "a rate is tested on its reciprocals and shown on its own scale"
gen 5 'wl=ratebench;metric=ops;unit=ops/s;better=higher;levels=25x1000+25x950' >"$T/rate.json" || fail "gen"
expect_rc 0 "$NF" import "$T/rate.json" --format json
expect_rc 0 "$NF" history -w ratebench --json
json_check '[c["index"] for c in d["series"][0]["change_points"]] == [25]'
json_check '(lambda c: -6 < c["change_pct"] < -4 and c["ci_low_pct"] < c["change_pct"] < c["ci_high_pct"] < -1 and c["verdict"] == "regressed")(d["series"][0]["change_points"][0])'
# higher is better: the fall of the rate is worse, with the same sign
json_check '(lambda c: c["change_better_pct"] == c["change_pct"] < 0)(d["series"][0]["change_points"][0])'
json_check 'abs(d["series"][0]["points"][0]["mean"] - 1000) < 40'

t_case "runs that did not complete are left out, with a note"
gen 6 'wl=failbench;levels=12x10;status=failed' >"$T/failed.json" || fail "gen"
gen 7 'wl=failbench;levels=12x10;t0=100' >"$T/ok.json" || fail "gen"
expect_rc 0 "$NF" import "$T/failed.json" --format json
expect_rc 0 "$NF" import "$T/ok.json" --format json
expect_rc 0 "$NF" history -w failbench
expect_in out "^failbench ms on h1 \\(ms, lower is better\\): 12 runs by time$"
expect_in out "^  note: run [0-9]+ left out: failed$"

t_case "--by commit in a repository's order, and the bisect line"
if ! git --version >/dev/null 2>&1; then
    case_skip "git is not installed"
else
    git init -q "$T/repo" && for i in $(seq 1 24); do
        git -C "$T/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m "c$i" || break
    done
    git -C "$T/repo" rev-list --reverse HEAD >"$T/shas" || fail "git rev-list"
    # Measured in a shuffled order of time: only the commits' order has the step.
    gen 8 "wl=gitbench;levels=12x10+12x10.6;commits=$T/shas;shuffle=1;t0=4000" >"$T/git.json" ||
        fail "gen"
    expect_rc 0 "$NF" import "$T/git.json" --format json
    good=$(sed -n 12p "$T/shas") bad=$(sed -n 13p "$T/shas")
    expect_rc 0 "$NF" history -w gitbench --by commit --repo "$T/repo"
    expect_in out "^gitbench ms on h1 \\(ms, lower is better\\): 24 runs by commit$"
    expect_in out "^    noisefloor bisect start --good $good --bad $bad --repo $T/repo -m ms -- gitbench$"
    expect_rc 0 "$NF" history -w gitbench --by commit --repo "$T/repo" --json
    json_check 'd["by"] == "commit"'
    json_check '[c["index"] for c in d["series"][0]["change_points"]] == [12]'
    json_check "d['series'][0]['change_points'][0]['bisect'].startswith('noisefloor bisect start --good $good --bad $bad ')"
    json_check "[p['commit'] for p in d['series'][0]['points']] == open('$T/shas').read().split()"
    # by time the same runs are in another order
    expect_rc 0 "$NF" history -w gitbench --json
    json_check "[p['commit'] for p in d['series'][0]['points']] != open('$T/shas').read().split()"
    json_check '[c["index"] for c in d["series"][0]["change_points"]] != [12]'
    # a repository that lacks the commits: exit 2, one line
    git init -q "$T/other"
    git -C "$T/other" -c user.name=t -c user.email=t@t commit -q --allow-empty -m x
    expect_rc 2 "$NF" history -w gitbench --by commit --repo "$T/other"
    expect_one_line_err
    expect_in err "^noisefloor: history: --repo $T/other: git rev-parse: "
fi

t_case "--by commit without a repository: each commit's first run; --by label in -L order"
printf '%s\n' a1 a1 a1 a1 a1 a2 a2 a2 a2 a2 a3 a3 a3 a3 a3 a4 a4 a4 a4 a4 >"$T/names"
gen 9 "wl=labelbench;label=v1;levels=5x10;t0=6000;commits=$T/names" \
    "wl=labelbench;label=v3;levels=5x11;t0=6010" \
    "wl=labelbench;label=v2;levels=5x10;t0=6020" >"$T/labels.json" || fail "gen"
expect_rc 0 "$NF" import "$T/labels.json" --format json
expect_rc 0 "$NF" history -w labelbench --by label -L v1 -L v2 -L v3 --min-segment 3 --json
json_check '[p["label"] for p in d["series"][0]["points"]] == ["v1"] * 5 + ["v2"] * 5 + ["v3"] * 5'
json_check '[c["index"] for c in d["series"][0]["change_points"]] == [10]'
expect_rc 0 "$NF" history -w labelbench --by commit --min-segment 2 --json
expect_in err "^noisefloor: warning: history: 10 of 15 runs record no commit: left out$"
json_check '[p["commit"] for p in d["series"][0]["points"]] == ["a1"] * 5'

t_case "report --history: a plot per series, change points marked, hover titles"
expect_rc 0 "$NF" report --history --html "$T/h.html" -w stepbench
[ -s "$T/h.html" ] || fail "no page"
cp "$T/h.html" "$T/out"
expect_in out '^<!DOCTYPE html>'
expect_in out "<h2>stepbench '-n 3' ms \\(ms\\) on h1</h2>"
[ "$(grep -c '<svg ' "$T/h.html")" -eq 2 ] || fail "expected 2 plots"
[ "$(grep -o 'class="cp"' "$T/h.html" | wc -l)" -eq 1 ] || fail "expected one change point marked"
[ "$(grep -o 'class="seg"' "$T/h.html" | wc -l)" -eq 3 ] || fail "expected 3 segment means"
[ "$(grep -o '<circle' "$T/h.html" | wc -l)" -eq 100 ] || fail "expected 100 points"
expect_in out '<title>run 1, label nightly, 2026-01-01T00:00:00Z: [0-9.]+ \+- [0-9.]+ \(5 repetitions\)</title>'
expect_in out '<title>change after run 30: \+[45]\.[0-9]+% '
/usr/bin/python3 -c '
import re, sys, xml.etree.ElementTree as ET
for m in re.findall(r"<svg.*?</svg>", open(sys.argv[1]).read(), re.S):
    ET.fromstring(m)' "$T/h.html" || fail "an SVG is not well-formed"
expect_rc 2 "$NF" report --history -w stepbench
expect_one_line_err; expect_in err "--html FILE"
expect_rc 2 "$NF" report --history --html "$T/x.html" -w stepbench -m nosuch
expect_one_line_err

t_case "serially correlated runs: no change point, and a note that says what was assumed"
# 80 runs around one level that wanders as AR(1), coefficient 0.6, 2% a
# run: taken as independent such runs give false change points (one in
# five series at 0.3, doc/statistics.md); the detection allows for the
# correlation it measures, and says so.  Beside it 80 independent runs.
gen 1 'wl=drifty;levels=80x10;ar=0.6,2;cv=1' 'wl=steady;levels=80x10;cv=1' >"$T/ar.json" ||
    fail "gen"
expect_rc 0 "$NF" import "$T/ar.json" --format json
expect_rc 0 "$NF" history --json -w drifty
json_check 'len(d["series"]) == 1 and len(d["series"][0]["change_points"]) == 0'
json_check 'd["series"][0]["serial"]["rho"] > 0.3 and d["series"][0]["serial"]["p"] < 0.01'
json_check 'any(n.startswith("the tests allow for serial correlation") for n in d["series"][0]["notes"])'
# Independent runs: the rule assumes a correlation only where their r
# leans that way (p < 0.3), and says so exactly then.
expect_rc 0 "$NF" history --json -w steady
json_check 'len(d["series"]) == 1 and len(d["series"][0]["change_points"]) == 0'
json_check 'd["series"][0]["serial"]["rho"] < 0.3'
json_check '(d["series"][0]["serial"]["rho"] > 0) == any(n.startswith("the tests allow for serial correlation") for n in d["series"][0]["notes"])'
expect_rc 0 "$NF" history -w drifty
expect_in out "^  note: the tests allow for serial correlation of the runs \\(lag-1 r 0\\.[0-9]+ around the segments, p [0-9.e-]+\\): AR\\(1\\) with coefficient 0\\.[0-9]+ \\(doc/statistics\\.md\\)$"

t_case "bad input: one line, exit 2"
expect_rc 2 "$NF" history --repo "$T" --by time
expect_one_line_err; expect_in err "--repo goes with --by commit"
expect_rc 2 "$NF" history -w stepbench -m nosuch
expect_one_line_err; expect_in err "no runs with metric 'nosuch'"
expect_rc 2 "$NF" history -L nosuchlabel
expect_one_line_err
expect_rc 2 "$NF" history stray
expect_one_line_err; expect_in err "unexpected argument 'stray'"
expect_rc 2 "$NF" history --by date
expect_one_line_err
expect_rc 2 "$NF" history --min-segment 1
expect_one_line_err

pass
