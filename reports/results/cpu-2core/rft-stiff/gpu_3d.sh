#!/usr/bin/env bash
# gpu_3d.sh CARRIED_DIR SECONDS [EXP_RFT_OPTION...]: the quick shape set (points 0-7 of the sweep: beta -45, 0, 45, 90 x
# gamma 0, 90 at depth 2 L) in a 3D bed, Li et al.'s plate 2.54 / 3.81 = 0.667 L wide with 2 centre
# depths of bed beside it (--across, the default), four drags at a time on one GPU, into $OUT/rft3d;
# then shape_fit.py over their logs. Not run yet: no device was lent on 2026-12-07. Each drag is about
# 8 million particles; a point not done by SECONDS keeps its checkpoint, and the same command with
# the folder carried back goes on from it.
set -u
(($# >= 2)) || { echo "usage: $0 CARRIED_DIR SECONDS [EXP_RFT_OPTION...]" >&2; exit 2; }
eval "$(scripts/gpu/carry_bins.sh unpack "$1")" || exit 2
V=$OUT/rft3d
mkdir -p "$V"
A=(--backend cuda --references references --width 0.667 --checkpoint-every 60 "${@:3}")
"$BAGNOLD_BIN/exp_rft" --plan --quiet --out "$V" "${A[@]}" || exit 1
seq 0 7 | timeout "$2" xargs -P 4 -I{} sh -c "\"$BAGNOLD_BIN/exp_rft\" --point {} --out \"$V\" ${A[*]} > \"$V/point{}.log\" 2>&1"
python3 reports/results/cpu-2core/rft-stiff/shape_fit.py "$V"/point*.log
(cd "$OUT" && tar czf rft3d.tgz --exclude='*.bgck' rft3d)
