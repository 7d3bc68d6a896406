#!/usr/bin/env bash
# The cost of one coupled rigid body: bench_scene's two scenes with and
# without --body (a sphere falling onto the sand), interleaved, on the cpu
# backend; writes body_cost.tsv with the commit and the machine.
# Usage: run.sh BIN_DIR [particles] [reps]
set -euo pipefail
bin=$1; n=${2:-32768}; reps=${3:-3}
out=body_cost.tsv
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD)
{
  echo "# bench_scene --particles $n --threads 2 --backend cpu, 'run 5 60'; commit $commit; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo -e "scene\tbody\trep\twall_s\tsteps\tparticle_steps_per_s"
} > "$out"
for rep in $(seq "$reps"); do
  for scene in freefall collapse; do
    for body in 0 1; do
      flag=""; [ "$body" = 1 ] && flag="--body"
      line=$(echo "run 5 60" | "$bin/bench_scene" --scene "$scene" --particles "$n" --threads 2 --backend cpu $flag | grep '^result')
      wall=$(sed -n 's/.*wall_s=\([^ ]*\).*/\1/p' <<<"$line")
      echo -e "$scene\t$body\t$rep\t$wall\t60\t$(python3 -c "print(f'{$n*60/$wall:.0f}')")" >> "$out"
    done
  done
done
cat "$out"
