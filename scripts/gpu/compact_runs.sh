#!/usr/bin/env bash
# compact_runs.sh: issue 36's memory runs on a GPU machine, from binaries
# built elsewhere (scripts/gpu/carry_bins.sh pack DIR test_compact
# test_sparse test_parity bench_gpu test_stress_of_f, then carry DIR):
#   1. layout=compact's checks: test_compact (bytes, refusal, derived
#      stress, checkpoint), test_sparse, and parity with cpu/ref on the
#      free fall, the column (3D and 2D) and the silo with every property
#      value, and with grid=sparse,layout=compact together;
#   2. the four layouts and grids side by side at 128M on the collapse from
#      rest (bench_gpu --collapse-at start): full/dense (the default),
#      compact/sparse, compact/dense, full/sparse;
#   3. the largest count of sand the card holds on compact/sparse: 10^9 on
#      a card of more than 100 GB (else 5.2e8), 9e8 if that fails, with
#      the device memory in use sampled every 2 s (mem_used.txt).
# The checks' logs and the memory samples end up in OUTDIR/logs.tgz.
# usage: scripts/gpu/compact_runs.sh CARRYDIR OUTDIR [SECONDS]
#   SECONDS: the whole run's budget (default 585); the largest-count run
#   takes what is left and is skipped under 60 s.
# Exit status: 0 done (read the logs: a failed test is reported, not fatal),
# 2 bad usage.
set -u
(($# >= 2)) || { echo "usage: $0 CARRYDIR OUTDIR [SECONDS]" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
eval "$("$root/scripts/gpu/carry_bins.sh" unpack "$1")" || exit 2
B=$BAGNOLD_BIN O=$2 L=${3:-585}
mkdir -p "$O" || exit 2
T0=$(date +%s)
left() { echo $((L - ($(date +%s) - T0))); }
slug() { echo "$*" | tr -c 'a-z0-9\n' _; }
nvidia-smi --query-gpu=name,memory.total,memory.free --format=csv >"$O/gpu.txt" 2>&1
{
  for t in "test_stress_of_f" "test_compact cuda" "test_compact cuda/global" "test_sparse cuda"; do
    echo "== $t"; timeout 60 $B/$t; echo "rc $?"
  done
} >"$O/unit.log" 2>&1
{
  for sc in fall column column-2d silo; do echo "== cuda $sc"; timeout 80 $B/test_parity cuda $sc; echo "rc $?"; done
  echo "== cuda fall grid=sparse,layout=compact"; timeout 60 $B/test_parity cuda fall grid=sparse,layout=compact; echo "rc $?"
  echo "== cuda/global fall"; timeout 60 $B/test_parity cuda/global fall; echo "rc $?"
} >"$O/parity.log" 2>&1
echo "checks: $(($(date +%s) - T0)) s; PASS $(cat "$O/unit.log" "$O/parity.log" | grep -c '^PASS') FAIL $(cat "$O/unit.log" "$O/parity.log" | grep -c '^FAIL')"
grep -hE "^(==|rc )" "$O/unit.log" "$O/parity.log" | paste - -
grep -h "^FAIL" "$O/unit.log" "$O/parity.log" | head -20
(while true; do echo "$(date +%s) $(nvidia-smi --query-gpu=memory.used --format=csv,noheader)"; sleep 2; done) >"$O/mem_used.txt" 2>&1 &
mp=$!
for pr in "" "--property grid=sparse --property layout=compact" "--property layout=compact" "--property grid=sparse"; do
  (($(left) > 90)) || break
  timeout 100 $B/bench_gpu --particles 128M --scene collapse --collapse-at start --steps 20 --warmup 5 --reps 2 $pr \
    --out "$O" --tag "128M $pr" >"$O/bench128M_$(slug $pr).txt" 2>&1
done
grep -h "collapse@start\|device memory" "$O"/bench128M_*.txt
mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
counts="1000000000 900000000"
((mem < 100000)) && counts="520000000 480000000"
for n in $counts; do
  (($(left) > 60)) || break
  /usr/bin/time -v timeout $(($(left) - 5)) $B/bench_gpu --particles $n --scene collapse --collapse-at start --steps 10 \
    --warmup 3 --reps 1 --property grid=sparse --property layout=compact --out "$O" --tag "largest" \
    >"$O/bench_$n.txt" 2>"$O/bench_${n}_err.txt"
  rc=$?
  echo "$n particles: rc $rc"; tail -n 6 "$O/bench_$n.txt"; grep -E "Elapsed|Maximum resident" "$O/bench_${n}_err.txt"
  ((rc == 0)) && break
done
kill $mp
echo "peak device memory in use: $(sort -k2 -n "$O/mem_used.txt" | tail -1)"
# the device tool brings back only a few files: the logs travel as one archive
(cd "$O" && tar czf logs.tgz unit.log parity.log mem_used.txt && rm -f unit.log parity.log mem_used.txt)
exit 0
