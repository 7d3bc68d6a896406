#!/usr/bin/env bash
# one H100 call: test_compact (the stress-of-own-F check), then the counts sweeps of both grids
O=$OUT/h100s; mkdir -p $O; T0=$(date +%s); L=${1:-300}
left() { echo $((L - ($(date +%s) - T0))); }
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cb)"; B=$BAGNOLD_BIN
nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version --format=csv > $O/gpu.txt
(timeout 60 $B/test_compact cuda; echo "rc $?") > $O/test_compact.log 2>&1; grep -E "^after|FAIL|^rc|passed|checks" $O/test_compact.log | tail -5
(timeout 60 $B/test_compact cuda/global; echo "rc $?") > $O/test_compact_global.log 2>&1; tail -2 $O/test_compact_global.log
for v in compact-sparse full-dense; do
  (( $(left) > 40 )) || break
  pr=""; [ $v = compact-sparse ] && pr="--property grid=sparse --property layout=compact"
  dv=1; [ $v = compact-sparse ] && dv=2
  timeout $(( ($(left) - 10) / dv )) $B/bench_gpu --scene collapse --collapse-at start --steps 10 --warmup 3 --reps 1 $pr --out $O --tag counts:$v > $O/sweep_$v.txt 2>&1
  echo "sweep $v rc $?"; grep -E "^collapse@start|device memory|particles" $O/sweep_$v.txt | tail -12
done
cd $O && tar czf ../h100s.tgz . && cd .. && rm -rf h100s
