#!/usr/bin/env bash
# gpu_stiff.sh CARRIED_DIR SECONDS: exp_rft's quick scene at four stiffnesses of the sand (--youngs:
# Klar's E, 10, 30 and 100 times it) side by side on one GPU, and the shape set's plates moving down
# with 8 depths of bed beside them at 10 and 30 times, into $OUT/rfte. Question: do the plates' forces,
# and the shape misfit, stop depending on E and on the bed's width once the sand is stiff?
# Run from the repository root with exp_rft carried by scripts/gpu/carry_bins.sh pack DIR exp_rft.
set -u
(($# == 2)) || { echo "usage: $0 CARRIED_DIR SECONDS" >&2; exit 2; }
eval "$(scripts/gpu/carry_bins.sh unpack "$1")" || exit 2
V=$OUT/rfte
mkdir -p "$V"
S="--backend cuda --references references --checkpoint-every 60"
declare -A var=([e1]="--youngs 3.537e5 --jobs 4" [e10]="--youngs 3.537e6 --jobs 4"
                [e30]="--youngs 1.061e7 --jobs 4"
                [e100]="--youngs 3.537e7 --betas 0,90 --gammas 0,90 --phi-control 0 --jobs 4"
                [e10s8]="--youngs 3.537e6 --side 8 --gammas 90 --depths 1.5,2.5 --phi-control 0 --jobs 2"
                [e30s8]="--youngs 1.061e7 --side 8 --gammas 90 --depths 1.5,2.5 --phi-control 0 --jobs 2")
for n in "${!var[@]}"; do
  # shellcheck disable=SC2086
  timeout "$2" "$BAGNOLD_BIN/exp_rft" $S ${var[$n]} --out "$V/$n" >"$V/$n.log" 2>&1 &
done
wait
for n in "${!var[@]}"; do
  echo "== $n: $(grep -o '"misfit[a-z_]*": [0-9.e+-]*\|"zeta_over_rho0_g": [0-9.e+-]*\|"depth_offset_sigma_over_mean_depth": [0-9.e+-]*' "$V/$n/manifest.json" 2>/dev/null | paste -sd' ')"
  grep -h "alpha_z" "$V/$n.log" | sed 's/.*\] /   /' | grep -v "simulated ("
done
(cd "$OUT" && tar czf rfte.tgz --exclude='*.bgck' --exclude='*.bin' rfte && rm -rf rfte)
