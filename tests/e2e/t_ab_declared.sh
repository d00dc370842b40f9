# ab refuses up front (exit 2, one line, no database) a session whose
# variants could only be compared on rows that would never be decided or
# that would be decided by the order of the variants: without -m, a
# variant whose primary metric the baseline does not measure (or the
# reverse), as doc/ab.md's "Nothing to compare" has it; and a metric
# declared with a different --better or --unit by two variants, whose
# direction would otherwise be the first run's.
. "$(dirname "$0")/lib.sh"

refused() {
    what=$1
    shift
    rm -f "$T/refused.db"
    expect_rc 2 "$NF" --db "$T/refused.db" ab --no-progress --rounds 2:3 "$@"
    expect_one_line_err
    expect_in err "^noisefloor: ab: $what"
    [ -e "$T/refused.db" ] && fail "a database was made for a session refused"
}

V='--metric v=^([0-9]+)$'

t_case "the variants' primary metrics differ: refused before anything runs"
refused "nothing to compare: the primary metric of 'b' \(send-128\) is not measured by 'a'; give -m METRIC$" \
    a='netsend -m 64 -d 0.05' b='netsend -m 128 -d 0.05'

t_case "the baseline's primary metric only: refused"
refused "nothing to compare: the primary metric of 'a' \(send-64\) is not measured by 'b'; give -m METRIC$" \
    a='netsend -m 64,128 -d 0.05' b='netsend -m 128 -d 0.05'

t_case "a third variant with another primary: refused"
refused "nothing to compare: the primary metric of 'c' \(send-128\) is not measured by 'a'" \
    a='netsend -m 64 -d 0.05' b='netsend -m 64 -d 0.05' c='netsend -m 128 -d 0.05'

t_case "-m a metric both measure: runs"
expect_rc 0 "$NF" --db "$T/m.db" ab --no-progress --rounds 2:2 --order sequential -m wall \
    a="$V -- echo 5" b='-- echo 5'
expect_in out "stopped: "

t_case "a metric declared with different --better: refused"
refused "variants 'a' and 'b' declare metric 'v' with different --better \(higher, lower\)$" \
    a="$V --better higher -- echo 5" b="$V -- echo 5"

t_case "... also with -m, and by a later variant"
refused "variants 'a' and 'c' declare metric 'v' with different --better \(lower, higher\)$" \
    -m v a="$V -- echo 5" b="$V -- echo 5" c="$V --better higher -- echo 5"

t_case "a metric declared with different --unit: refused"
refused "variants 'a' and 'b' declare metric 'v' with different --unit \('ms', ''\)$" \
    a="$V --unit ms -- echo 5" b="$V -- echo 5"

t_case "declared alike: runs"
expect_rc 0 "$NF" --db "$T/ok.db" ab --no-progress --rounds 2:2 --order sequential \
    a="$V --better higher --unit ms -- echo 5" b="$V --better higher --unit ms -- echo 6"
expect_in out "stopped: "

pass
