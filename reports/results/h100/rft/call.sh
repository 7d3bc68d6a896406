#!/usr/bin/env bash
# the rft paper record: exp_rft --scale paper --backend cuda through paper_runs.sh, from carried
# binaries; where .devc/prev/rft.tar.gz holds a cut call's folder, it goes on from its complete points
set -u
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cr)" || exit 2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
if [[ -f .devc/prev/rft.tar.gz ]]; then
  mkdir -p "$OUT" && tar xzf .devc/prev/rft.tar.gz -C "$OUT" && export EXTRA_RFT="--resume $OUT/rft"
  echo "resuming: $(ls $OUT/rft/points/*/point.txt | wc -l) points complete"
fi
scripts/gpu/paper_runs.sh "$OUT" rft:${1:-540}
grep -v "simulated (" $OUT/rft.log | tail -14
ls -la "$OUT"
