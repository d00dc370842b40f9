# A run whose store fails under it (here: its run removed by another
# connection between two repetitions; in life, a server that went away)
# says so in one line and exits 1; the failure of the store again when
# the run ends and when it is read back says nothing new.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

# The command removes every run from the store on its second call.
cat >"$T/cmd" <<'SH'
#!/bin/sh
n=$(($(cat "$T/calls" 2>/dev/null || echo 0) + 1))
echo "$n" >"$T/calls"
[ "$n" -eq 2 ] || exit 0
if [ "$BACKEND" = sqlite ]; then
    /usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=60)
c.execute("PRAGMA foreign_keys = ON")
c.execute("DELETE FROM runs")
c.commit()' "$NOISEFLOOR_DB"
else
    psql -X -q -v ON_ERROR_STOP=1 "$NOISEFLOOR_DB" -c "DELETE FROM runs" >/dev/null
fi
SH
chmod +x "$T/cmd"
export T BACKEND

t_case "the store fails mid-run: one line, exit 1"
expect_rc 1 "$NF" run -r 4 --warmup 0 -L lost -- "$T/cmd"
expect_one_line_err
expect_in err "^noisefloor: run: "
expect_not_in err "cannot read the run back"
pass
