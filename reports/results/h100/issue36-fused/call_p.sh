#!/usr/bin/env bash
# device call P: g2p2g=fused on a GPU for the first time: parity on every scene, racecheck and
# memcheck, the 8M side-by-side (split default, fused, fused with 128 registers), ncu of the fused kernel
set -uo pipefail
O=$OUT; T0=$SECONDS
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cb)"; B=$BAGNOLD_BIN
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p $O/r; S=$O/r/summary.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $O/r/info.txt 2>&1; cat $O/r/info.txt >> $S
echo "commit $BAGNOLD_COMMIT" >> $S
pv() { # name, timeout, args...
  local n=$1 t=$2; shift 2; local f=$O/r/$n.log
  timeout $t "$@" > $f 2>&1; echo "$n rc=$? $(grep -c '^PASS' $f) pass $(grep -c '^FAIL' $f) fail ($((SECONDS-T0)) s)" | tee -a $S
  grep -E "^FAIL" $f | cut -c1-220 | head -8 | tee -a $S
}
pv parity_fused_fall 60 $B/test_parity cuda fall g2p2g=fused
pv parity_fused_all 200 $B/test_parity cuda all g2p2g=fused
pv parity_fused_global 60 $B/test_parity cuda/global column g2p2g=fused
CS="compute-sanitizer --error-exitcode 99 --print-limit 20"
SM="--particles 32768 --scene both --steps 3 --warmup 1 --reps 1 --sort-interval 2 --property g2p2g=fused"
timeout 90 $CS --tool racecheck $B/bench_gpu $SM > $O/r/racecheck_fused.log 2>&1; echo "racecheck fused rc=$? ($((SECONDS-T0)) s)" | tee -a $S; tail -3 $O/r/racecheck_fused.log >> $S
timeout 90 $CS --tool memcheck $B/bench_gpu $SM > $O/r/memcheck_fused.log 2>&1; echo "memcheck fused rc=$? ($((SECONDS-T0)) s)" | tee -a $S; tail -3 $O/r/memcheck_fused.log >> $S
C="--particles 8M --scene both --steps 50 --warmup 10 --reps 2 --out $O/r"
for v in default g2p2g=fused g2p2g=fused,g2p_minblocks=4; do
  L=$((540 - (SECONDS - T0))); ((L < 30)) && { echo "skip bench $v" | tee -a $S; continue; }
  ((L > 120)) && L=120
  if [[ $v == default ]]; then a=(--tag split); else a=(--tag "$v"); for p in ${v//,/ }; do a+=(--property $p); done; fi
  timeout $L $B/bench_gpu $C "${a[@]}" > $O/r/bench_${v//[^a-z0-9]/_}.log 2>&1
  echo "bench $v rc=$? ($((SECONDS-T0)) s)" | tee -a $S; grep -E "^ +(freefall|collapse)|bytes per|memory" $O/r/bench_${v//[^a-z0-9]/_}.log | tee -a $S
done
NS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats"
L=$((585 - (SECONDS - T0)))
if ((L > 40)); then
  timeout $L ncu --kernel-name regex:"k_g2p2g|k_grid_update" --launch-skip 20 --launch-count 2 $NS $B/bench_gpu --particles 8M --scene freefall --steps 20 --warmup 2 --reps 1 --property g2p2g=fused > $O/r/ncu_fused.txt 2>&1
  echo "ncu fused rc=$? ($((SECONDS-T0)) s)" | tee -a $S
fi
cp $S $O/summary.txt; tar czf /tmp/p.tgz -C $O r; rm -rf $O/r; mv /tmp/p.tgz $O/p.tgz; ls -la $O
