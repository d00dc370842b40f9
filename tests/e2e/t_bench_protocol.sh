# The bench scripts' protocol (bench/lib.sh), checked with stand-ins for
# the tools, so nothing is measured: each reference tool writes its output
# to a file that is parsed after it exits (a parser on a pipe runs beside
# the workload and moves its numbers), and the order of ours and the
# reference alternates each round (so drift favours neither).
. "$(dirname "$0")/lib.sh"

t_case "netsend-vs-iperf3: iperf3 writes to a file; the order alternates"
mkdir -p "$T/bin"
cat >"$T/bin/iperf3" <<'EOF'
#!/bin/sh
# iperf3 -s: the server, killed by the script when it ends.
case " $* " in *" -s "*) exec sleep 60 ;; esac
if [ -p /dev/stdout ]; then out=pipe; elif [ -f /dev/stdout ]; then out=file; else out=other; fi
echo "ref $out" >>"$BENCH_LOG"
echo '{"end": {"sum_sent": {"bits_per_second": 2e9}, "sum_received": {"bits_per_second": 1e9}}}'
EOF
cat >"$T/bin/nf" <<'EOF'
#!/bin/sh
# noisefloor ... run --json ... netsend ... -m SIZE: the run's JSON.
prev= size=
for a; do [ "$prev" = -m ] && size=$a; prev=$a; done
echo "ours" >>"$BENCH_LOG"
printf '{"metrics": [{"name": "send-%s", "mean": 1000.0}, {"name": "recv-%s", "mean": 900.0}]}\n' "$size" "$size"
EOF
chmod +x "$T/bin/iperf3" "$T/bin/nf"
expect_rc 0 env BENCH_LOG="$T/log" PATH="$T/bin:$PATH" NF="$T/bin/nf" ROUNDS=2 DUR=1 \
    bash "$ROOT/bench/netsend-vs-iperf3"
expect_in out 'netsend-vs-iperf3 \(tcp 1024\): send ours 1000, iperf3 2000 Mbit/s, ratio ours/iperf3 = 0\.500'
expect_in out 'netsend-vs-iperf3 \(udp 16384\): .*; recv ours 900, iperf3 1000, ratio 0\.900'
# 2 protocols x 2 sizes, each 2 rounds: ours first, then iperf3 first.
want=$(for _ in 1 2 3 4; do printf 'ours\nref file\nref file\nours\n'; done)
case_failed || [ "$(cat "$T/log")" = "$want" ] ||
    fail "order or output of the tools: $(tr '\n' ' ' <"$T/log")"
pass
