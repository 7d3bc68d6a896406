#!/usr/bin/env bash
# device call S: the paddle's omega 2 and 4 at paper scale at CFL 0.0375 (against 0.15 and 0.075), racecheck of
# g2p2g=fused on the collapse scene
set -uo pipefail
O=$OUT; T0=$SECONDS
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cb)"; B=$BAGNOLD_BIN
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p $O/r; S=$O/r/summary.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $O/r/info.txt 2>&1; cat $O/r/info.txt >> $S
timeout 210 $B/exp_paddle --scale paper --backend cuda --omegas 2,4 --cfl 0.0375 --out $O/r/pad0375 > $O/r/pad0375.log 2>&1
echo "paddle cfl 0.0375 rc=$? ($((SECONDS-T0)) s)" | tee -a $S; grep -E "torque|claims|rate_ind|alpha" $O/r/pad0375.log | tee -a $S
timeout 75 compute-sanitizer --error-exitcode 99 --print-limit 20 --tool racecheck $B/bench_gpu --particles 4096 --scene collapse --steps 2 --warmup 1 --reps 1 --sort-interval 2 --property g2p2g=fused > $O/r/racecheck_fused_collapse.log 2>&1
echo "racecheck fused collapse rc=$? ($((SECONDS-T0)) s)" | tee -a $S; tail -3 $O/r/racecheck_fused_collapse.log >> $S
find $O/r \( -name "*.vtu" -o -name "*.pvd" -o -name "*.bgck" \) -delete
cp $S $O/summary.txt; tar czf /tmp/s.tgz -C $O r; rm -rf $O/r; mv /tmp/s.tgz $O/s.tgz; ls -la $O
