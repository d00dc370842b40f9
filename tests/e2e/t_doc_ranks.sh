# What the documents say a tail percentile is ("p99.9 of 1,000 events is
# the second slowest") agrees with the nearest-rank definition the
# histograms use (doc/statistics.md: the k-th smallest of n, k = ceil(p*n/100);
# test_hist.c checks the code against it): of n events pN is the
# (n - k + 1)-th slowest.  Every such sentence in doc/, README.md and src/
# is checked, and there must be some (the test cannot pass by finding none).
. "$(dirname "$0")/lib.sh"

t_case "p99.9 of N events is the (n - k + 1)-th slowest"
case_failed || /usr/bin/python3 - "$ROOT" <<'PY' || fail "a document misstates which event a percentile is"
import glob, math, os, re, sys
root = sys.argv[1]
files = (glob.glob(os.path.join(root, "doc", "*")) + [os.path.join(root, "README.md")] +
         glob.glob(os.path.join(root, "src", "**", "*.[ch]"), recursive=True))
ords = {"single": 1, "": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
num = r"(\d[\d,]*)"
ordw = r"(single |second[ -]|third[ -]|fourth[ -]|fifth[ -]|)"
pats = [  # (regex, groups: p, n, ordinal)
    (re.compile(r"p(\d+(?:\.\d+)?) of " + num + r" (?:events|wakeups) (?:is )?the " + ordw
                + r"slowest"), (1, 2, 3)),
    (re.compile(r"p(\d+(?:\.\d+)?) is the " + ordw + r"slowest of " + num), (1, 3, 2)),
]
found = bad = 0
for f in files:
    if not os.path.isfile(f):
        continue
    text = open(f, encoding="utf-8", errors="replace").read()
    # Join lines (and a comment's leading " * "), drop man-page font escapes.
    text = re.sub(r"\\f[BIRP]", "", text)
    text = re.sub(r"\s*\n\s*(?:\*(?!/)\s*)?", " ", text)
    for rx, (gp, gn, go) in pats:
        for m in rx.finditer(text):
            p, n = float(m.group(gp)), int(m.group(gn).replace(",", ""))
            k = math.ceil(p * n / 100 - 1e-9)
            want = n - k + 1
            said = ords[m.group(go).strip(" -")]
            found += 1
            if said != want:
                bad += 1
                print(f"{os.path.relpath(f, root)}: '{m.group(0)}': p{m.group(gp)} of {n} is "
                      f"the {k}th smallest, slowest number {want}, not {said}", file=sys.stderr)
if found < 4:
    print(f"only {found} rank sentences found", file=sys.stderr)
    sys.exit(1)
sys.exit(1 if bad else 0)
PY
pass
