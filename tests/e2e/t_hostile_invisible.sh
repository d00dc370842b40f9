# Characters that change how the text around them shows without being seen
# (bidirectional overrides and isolates, zero-width spaces and joiners,
# U+FEFF) are refused in labels and metric names at run and at import,
# like control bytes, with the character shown escaped; and import
# --format json refuses a field of the wrong type instead of coercing it.
# backends: sqlite postgresql
. "$(dirname "$0")/lib.sh"

RLO=$(printf '\342\200\256')

t_case "setup: an export to edit"
printf '%s\n' 5 6 >v.txt
expect_rc 0 "$NF" import v.txt --format values -L good --metric t
expect_rc 0 "$NF" export
cp "$T/out" good.json
expect_rc 0 "$NF" rm 1

# the UTF-8 bytes (octal for printf) and the escape shown
for ch in '342\200\252:\\u202a' '342\200\256:\\u202e' '342\201\246:\\u2066' \
    '342\201\251:\\u2069' '342\200\213:\\u200b' '342\200\215:\\u200d' '357\273\277:\\ufeff'; do
    c=$(printf "\\${ch%%:*}") esc=${ch#*:}
    t_case "$esc in a label or a metric name is refused"
    expect_rc 2 "$NF" run -r 1 --warmup 0 -L "v6.8-${c}dexif" -- true
    expect_one_line_err; expect_in err "'v6\.8-\\$esc"
    expect_rc 2 "$NF" run -r 1 --warmup 0 -L ok --metric "x${c}y=([0-9]+)" -- echo 5
    expect_one_line_err; expect_in err "'x\\${esc}y'"
    expect_rc 2 "$NF" import v.txt --format values -L "a${c}b" --metric t
    expect_one_line_err; expect_in err "invisible or bidirectional"
    expect_rc 2 "$NF" import v.txt --format values -L a --metric "t${c}"
    expect_one_line_err; expect_in err "invisible or bidirectional"
    sed "s/\"good\"/\"g${c}d\"/" good.json >bad.json
    expect_rc 2 "$NF" import bad.json --format json
    expect_one_line_err; expect_in err "bad.json.*'g\\${esc}d'"
    sed "s/\"name\": *\"t\"/\"name\": \"t${c}\"/" good.json >bad.json
    expect_rc 2 "$NF" import bad.json --format json
    expect_one_line_err; expect_in err "bad.json.*'t\\$esc'"
    expect_rc 0 "$NF" export
    json_check 'd["runs"] == []'
done

# FIELD=JSON: put into the first run (or its first metric) of good.json.
for f in 'run:note:5' 'run:session:[1]' 'metric:primary:"yes"' 'metric:supported:1' \
    'metric:unit:7' 'metric:better:false'; do
    where=${f%%:*} rest=${f#*:}; key=${rest%%:*} val=${rest#*:}
    t_case "import --format json: $where \"$key\": $val is refused"
    /usr/bin/python3 -c '
import json, sys
d = json.load(open("good.json"))
o = d["runs"][0] if sys.argv[1] == "run" else d["runs"][0]["metrics"][0]
o[sys.argv[2]] = json.loads(sys.argv[3])
json.dump(d, open("bad.json", "w"))' "$where" "$key" "$val"
    expect_rc 2 "$NF" import bad.json --format json
    expect_one_line_err; expect_in err "bad.json.*\"$key\""
    expect_rc 0 "$NF" export
    json_check 'd["runs"] == []'
done

t_case "the export itself still imports"
expect_rc 0 "$NF" import good.json --format json
expect_rc 0 "$NF" export
json_check '[r["label"] for r in d["runs"]] == ["good"]'
pass
