#!/usr/bin/env bash
# gpu_variants.sh CARRIED_DIR SECONDS: the next step of this study, for one device call (not run yet:
# no device could be started on 2026-12-07). The paper scene's depth series (beta 90, gamma 0) with one
# setting changed per variant, the variants side by side on one GPU (3 drags each at a time), into
# $OUT/rftv; run from the repository root with exp_rft carried by scripts/gpu/carry_bins.sh pack DIR exp_rft.
# The dx variant answers whether the departure of the paper record is the grid's.
set -u
(($# == 2)) || { echo "usage: $0 CARRIED_DIR SECONDS" >&2; exit 2; }
eval "$(scripts/gpu/carry_bins.sh unpack "$1")" || exit 2
V=$OUT/rftv
mkdir -p "$V"
declare -A var=([dx36]="--cells 36,48" [aspect3]="--aspect 3" [speed01]="--speed 0.1"
                [travel2]="--travel 2 --window 1.2" [ahead5]="--ahead 5")
for n in "${!var[@]}"; do
  # shellcheck disable=SC2086
  timeout "$2" "$BAGNOLD_BIN/exp_rft" --scale paper --backend cuda --betas 90 --gammas 0 --phi-control 0 --jobs 3 \
    ${var[$n]} --references references --out "$V/$n" >"$V/$n.log" 2>&1 &
done
wait
for n in "${!var[@]}"; do
  echo "== $n: $(grep -o '"depth_offset_m": [0-9.e+-]*\|"depth_offset_sigma_over_mean_depth": [0-9.e+-]*' "$V/$n/manifest.json" | paste -sd' ')"
done
(cd "$OUT" && tar czf rftv.tgz --exclude='*.bgck' rftv && rm -rf rftv)
