# run netsend: UDP and TCP streams over loopback, one metric per size, the
# sink's count for UDP; no sink left behind.
. "$(dirname "$0")/lib.sh"

t_case "UDP: send and recv per size"
expect_rc 0 "$NF" run -r 2 --warmup 0 --json netsend -d 0.3 -m 64,1024
json_check 'd["workload"] == "netsend" and d["args"] == ["-d", "0.3", "-m", "64,1024"]'
json_check '[m["name"] for m in d["metrics"]][:4] == ["send-64", "send-1024", "recv-64", "recv-1024"]'
json_check 'all(m["unit"] == "Mbit/s" and m["better"] == "higher" for m in d["metrics"][:4])'
json_check '[m["primary"] for m in d["metrics"][:4]] == [True, False, False, False]'
json_check 'all(m["n"] == 2 and m["min"] > 0 for m in d["metrics"][:4])'
# The sink never receives more than was sent.
json_check 'all(r <= s * (1 + 1e-9) for i in (0, 1) for s, r in zip(d["metrics"][i]["values"], d["metrics"][i + 2]["values"]))'
# Bigger messages carry more bytes per second on loopback by far (not a
# timing assertion: 16x the payload per system call).
json_check 'd["metrics"][1]["mean"] > d["metrics"][0]["mean"]'

t_case "TCP"
expect_rc 0 "$NF" run -r 2 --warmup 0 --json netsend --proto tcp -d 0.3 -m 64,1024
json_check '[m["name"] for m in d["metrics"]][:3] == ["send-64", "send-1024", "user"]'
json_check 'all(m["n"] == 2 and m["min"] > 0 for m in d["metrics"][:2])'

t_case "text output"
expect_rc 0 "$NF" run -r 1 --warmup 0 netsend -d 0.2 -m 8192
expect_in out "Mbit/s send-8192"
expect_in out "Mbit/s recv-8192"

t_case "bad options"
expect_rc 2 "$NF" run netsend -m 64,,1024
expect_one_line_err; expect_in err "netsend: -m wants sizes"
expect_rc 2 "$NF" run netsend --proto sctp
expect_one_line_err; expect_in err "'udp' or 'tcp'"
expect_rc 2 "$NF" run netsend -m 65508
expect_one_line_err; expect_in err "at most 65507"
expect_rc 2 "$NF" run netsend -d 0
expect_one_line_err
# Below a millisecond (a window of 0 ns measured 0/0): refused, nothing stored.
expect_rc 2 "$NF" run -r 2 --warmup 0 netsend -P tcp -m 1024 -d 1e-10
expect_one_line_err; expect_in err "netsend: -d wants seconds in \\[0\\.001, 86400\\]"
[ "$("$NF" list 2>/dev/null | grep -c 1e-10)" -eq 0 ] || fail "a bad command line stored a run"

t_case "--timeout kills sender and sink"
# Past --timeout: sender and sink are killed.
expect_rc 1 "$NF" run -r 1 --warmup 0 --timeout 0.3 netsend -d 99.5 -m 64
expect_in err "exceeded --timeout"
for _ in $(seq 50); do
    pgrep -f "netsend -d 99.5" >/dev/null || break
    sleep 0.1
done
! pgrep -f "netsend -d 99.5" >/dev/null || fail "netsend processes left behind"
pass
