#!/usr/bin/env bash
# the rft paper record (bed 5 depths ahead), and beside it: the depth series with the bed 7 depths
# ahead (converged in the bed's length?) and the shape set's plates moving down with 3 depths of bed
# on each side (--side 5: is the default 3 far enough?)
set -u
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cr)" || exit 2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
V=$OUT/rftb; mkdir -p $V
S="--scale paper --backend cuda --phi-control 0 --references references"
timeout 540 $BAGNOLD_BIN/exp_rft $S --betas 90 --gammas 0 --jobs 3 --ahead 7 --cells 24,26 --out $V/ahead7 > $V/ahead7.log 2>&1 &
timeout 540 $BAGNOLD_BIN/exp_rft $S --betas -45,0,45,90 --gammas 90 --depths 1.5,2.5 --jobs 4 --side 5 --cells 24,26 --out $V/side5 > $V/side5.log 2>&1 &
scripts/gpu/paper_runs.sh "$OUT" rft:540
wait
for n in ahead7 side5; do echo "== $n: $(grep -o '"depth_offset_m": [0-9.e+-]*\|"depth_offset_sigma_over_mean_depth": [0-9.e+-]*' "$V/$n/manifest.json" | paste -sd' ')"; done
(cd "$OUT" && tar czf rftb.tgz --exclude='*.bgck' --exclude='*.bin' rftb && rm -rf rftb)
grep -v "simulated (" $OUT/rft.log | tail -8
ls -la "$OUT"
