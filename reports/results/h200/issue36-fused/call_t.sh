#!/usr/bin/env bash
# device call T: the H200 table at 8M (split default against g2p2g=fused, with and without the 128-register
# bound, interleaved, one call) when the card is an H200; racecheck of g2p2g=fused on the parity column
# (a collapse, run to its end) on any card
set -uo pipefail
O=$OUT; T0=$SECONDS
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cb)"; B=$BAGNOLD_BIN
export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p $O/t; S=$O/t/summary.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $O/t/info.txt 2>&1; cat $O/t/info.txt >> $S
echo "binaries built at $BAGNOLD_COMMIT" >> $S
if grep -q H200 $O/t/info.txt; then
  for v in default g2p2g=fused,g2p_minblocks=4 g2p2g=fused default; do
    if [[ $v == default ]]; then a=(--tag split); else a=(--tag "$v"); for p in ${v//,/ }; do a+=(--property $p); done; fi
    f=$O/t/bench_${v//[^a-z0-9]/_}_$SECONDS.log
    timeout 110 $B/bench_gpu --particles 8M --scene both --steps 50 --warmup 10 --reps 2 --out $O/t "${a[@]}" > $f 2>&1
    echo "bench $v rc=$? ($((SECONDS-T0)) s)" | tee -a $S; grep -E "^ +(freefall|collapse)|stage|ms" $f | head -30 >> $S
  done
fi
timeout 330 compute-sanitizer --error-exitcode 99 --print-limit 20 --tool racecheck $B/test_parity cuda column g2p2g=fused > $O/t/racecheck_fused_column.log 2>&1
echo "racecheck test_parity cuda column g2p2g=fused rc=$? ($((SECONDS-T0)) s)" | tee -a $S
grep -cE "^PASS" $O/t/racecheck_fused_column.log | sed 's/^/PASS lines: /' >> $S; grep -E "^FAIL|ERROR SUMMARY|hazard" $O/t/racecheck_fused_column.log | head -8 >> $S
find $O/t \( -name "*.vtu" -o -name "*.pvd" -o -name "*.bgck" \) -delete
cp $S $O/summary.txt; tar czf /tmp/t.tgz -C $O t; rm -rf $O/t; mv /tmp/t.tgz $O/t.tgz; ls -la $O
