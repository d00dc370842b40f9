# Bad input on the command line is refused in one line with exit 2 before
# anything runs or is stored: an empty --db; import's --metric and --unit
# that are not one word of printable text; a --source that is not a
# directory (one that is not a git work tree is a warning); a --decile out
# of its range, said once; a doctor --root that is not a directory.
. "$(dirname "$0")/lib.sh"

printf '1\n2\n3\n' >v.txt

t_case "--db '' is refused, not ./noisefloor.db"
for args in "--db= list" "list --db=" "--db= run -r 1 --warmup 0 -- true" "--db= import v.txt --format values"; do
    # shellcheck disable=SC2086
    expect_rc 2 env -u NOISEFLOOR_DB "$NF" $args
    expect_one_line_err
    expect_in err "^noisefloor: --db '': give a database path or a PostgreSQL URI$"
done
expect_rc 2 "$NF" --db '' list
expect_rc 2 "$NF" list --db ''
[ ! -e noisefloor.db ] || fail "an empty --db made ./noisefloor.db"
t_case "an empty NOISEFLOOR_DB is as unset: ./noisefloor.db"
expect_rc 0 env NOISEFLOOR_DB= "$NF" import v.txt --format values -L v
[ -e noisefloor.db ] || fail "no ./noisefloor.db"
expect_rc 0 env NOISEFLOOR_DB= "$NF" list
expect_in out '^ +1 +v +values '

t_case "import --metric and --unit: one word of printable text, or exit 2"
expect_rc 0 "$NF" import v.txt --format values -L ok
expect_rc 2 "$NF" import v.txt --format values -L v --metric "$(printf 'p\nq')" --unit "$(printf '\033[31mred')"
expect_one_line_err
expect_in err "^noisefloor: import: --metric 'p\\\\nq' contains a control character: a metric name is one word of printable text$"
expect_rc 2 "$NF" import v.txt --format values -L v --metric x --unit "$(printf '\033[31mred')"
expect_one_line_err
expect_in err "^noisefloor: import: --unit '\\\\x1b\\[31mred' contains a control character: a unit is one word of printable text$"
expect_rc 2 "$NF" import v.txt --format values -L v --metric ''
expect_one_line_err
expect_in err "^noisefloor: import: --metric: a metric name cannot be empty$"
expect_rc 2 "$NF" import v.txt --format values -L v --metric 'a b'
expect_in err "contains a blank"
expect_rc 2 "$NF" import v.txt --format values -L v --metric "$(printf 'a\302\205b')"
expect_in err "'a\\\\u0085b' contains a control character"
expect_rc 2 "$NF" import v.txt --format values -L v -w "$(printf 'a\nb')"
expect_one_line_err
expect_in err "^noisefloor: import: -w 'a\\\\nb' contains a control character: a workload name is one word of printable text$"
expect_rc 2 "$NF" import v.txt --format values -L v --metric "$(printf 'a\377b')"
expect_in err "is not UTF-8"
expect_rc 0 "$NF" list
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "a refused import stored a run: $(cat "$T/out")"
expect_rc 0 "$NF" import v.txt --format values -L v2 --metric µs-lat --unit µs --better lower
expect_rc 0 "$NF" export -L v2
json_check 'd["runs"][0]["metrics"][0]["name"] == "µs-lat" and d["runs"][0]["metrics"][0]["unit"] == "µs"'
expect_rc 0 "$NF" import v.txt --format values -L v3 --metric m --unit ''

t_case "--source: missing or not a directory is exit 2 before anything runs"
rm -f "$NOISEFLOOR_DB"
for src in "$T/nonexistent" "$T/v.txt" ""; do
    expect_rc 2 "$NF" run --json -r 1 --warmup 0 --source "$src" -- touch ran
    expect_one_line_err
    expect_in err "^noisefloor: run: --source '$src'(: No such file or directory| is not a directory)$"
    expect_rc 2 "$NF" ab --rounds 2:2 "a=--source '$src' -- touch ran" "b=-- touch ran"
    expect_one_line_err
    expect_in err "^noisefloor: ab: --source '$src'"
    expect_rc 2 "$NF" profile -r 1 --warmup 0 --source "$src" -- touch ran
    expect_one_line_err
done
[ ! -e ran ] || fail "the command ran"
[ ! -e "$NOISEFLOOR_DB" ] || fail "a run was stored"
t_case "--source: a directory that is not a git work tree is one warning"
# (git looks no further up than $T)
export GIT_CEILING_DIRECTORIES="$T"
mkdir plain
expect_rc 0 "$NF" run --json -r 1 --warmup 0 --source plain -- true
expect_one_line_err
expect_in err "^noisefloor: warning: run: --source 'plain' is not a git work tree \\(or git cannot be run\\): its git_describe is stored as null$"
json_check 'd["env"]["source"] == "plain" and d["env"]["git_describe"] is None'
if command -v git >/dev/null; then
    mkdir repo && git -C repo init -q &&
        git -C repo -c user.name=t -c user.email=t@t commit -q --allow-empty -m x ||
        fail "git init"
    expect_rc 0 "$NF" run --json -r 1 --warmup 0 --source repo -- true
    expect_not_in err 'source'
    json_check 'd["env"]["git_describe"] is not None'
fi

t_case "--decile out of range: the range said once"
for cmd in "compare --test shift --decile 0 a b" "ab --decile 10 a=x b=y" \
           "report --test shift --decile 0 a b --html -"; do
    # shellcheck disable=SC2086
    expect_rc 2 "$NF" $cmd
    expect_one_line_err
    expect_in err "^noisefloor: ${cmd%% *}: --decile wants a decile from 1 to 9, not '(0|10)'$"
done

t_case "doctor's and run's --root: missing or not a directory is exit 2"
for r in "$T/nonexistent" "$T/v.txt" ""; do
    for opt in "" --json --tune; do
        # shellcheck disable=SC2086
        expect_rc 2 "$NF" doctor $opt --root "$r"
        expect_one_line_err
        expect_in err "^noisefloor: doctor: --root '$r'(: No such file or directory| is not a directory)$"
        [ ! -s "$T/out" ] || fail "doctor $opt printed: $(head -c 200 "$T/out")"
    done
done
mkdir -p empty
expect_rc 0 "$NF" doctor --root empty
# run's --root too: one line, exit 2, nothing run or stored
expect_rc 2 "$NF" run -L rootbad -r 1 --warmup 0 --root /nonexistent -- true
expect_one_line_err
expect_in err "^noisefloor: run: --root '/nonexistent': No such file or directory$"
expect_rc 2 "$NF" run -L rootbad -r 1 --warmup 0 --root v.txt -- true
expect_in err "^noisefloor: run: --root 'v.txt' is not a directory$"
expect_rc 0 "$NF" list
expect_not_in out rootbad
expect_rc 0 "$NF" run -r 1 --warmup 0 --root empty -- true

pass
