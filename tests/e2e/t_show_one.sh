# One repetition has no spread: run's and show's summary print "-" for the
# standard error, sd and CV (as compare does, and as perf stat -r 1 prints
# no +-), never a spread of 0; two repetitions print them.
. "$(dirname "$0")/lib.sh"

t_case "one value: no spread shown; two values: the spread"
echo 1.25 >one.txt
printf '1.0\n1.5\n' >two.txt
"$NF" import one.txt --format values --label one --metric lat --unit ms >/dev/null || fail "import one"
"$NF" import two.txt --format values --label two --metric lat --unit ms >/dev/null || fail "import two"
expect_rc 0 "$NF" show 1
expect_in out '1\.25000 +ms lat +\( \+- +- +\) +sd - +cv +- +min 1\.25'
expect_not_in out '0\.00%'
expect_rc 0 "$NF" show 2
expect_in out '1\.25000 +ms lat +\( \+- 20\.00% \) +sd 0\.3536 +cv +28\.28% +min 1 '
pass
