#!/usr/bin/env bash
# The cost of one coupled rigid body: bench_scene's two scenes with and
# without --body (a sphere falling onto the sand), interleaved, on one
# backend; writes OUT (default body_cost.tsv) with the commit and the machine.
# Usage: run.sh BIN_DIR [particles] [reps] [backend] [out]
#   backend: cpu (default; 2 threads) or cuda
set -euo pipefail
bin=$1; n=${2:-32768}; reps=${3:-3}; backend=${4:-cpu}; out=${5:-body_cost.tsv}
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo "${BAGNOLD_COMMIT:-unknown}")
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
if [ "$backend" != cpu ]; then
  machine="$machine; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
fi
{
  echo "# bench_scene --particles $n --threads 2 --backend $backend, 'run 5 60'; commit $commit; $machine"
  echo -e "scene\tbody\trep\twall_s\tsteps\tparticle_steps_per_s"
} > "$out"
for rep in $(seq "$reps"); do
  for scene in freefall collapse; do
    for body in 0 1; do
      flag=""; [ "$body" = 1 ] && flag="--body"
      line=$(echo "run 5 60" | "$bin/bench_scene" --scene "$scene" --particles "$n" --threads 2 --backend "$backend" $flag | grep '^result')
      wall=$(sed -n 's/.*wall_s=\([^ ]*\).*/\1/p' <<<"$line")
      echo -e "$scene\t$body\t$rep\t$wall\t60\t$(python3 -c "print(f'{$n*60/$wall:.0f}')")" >> "$out"
    done
  done
done
cat "$out"
