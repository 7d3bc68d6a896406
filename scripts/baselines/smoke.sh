#!/usr/bin/env bash
# smoke.sh BUILD_DIR: a tiny head-to-head run (ctest bench_compare_smoke, label
# bench, never part of `lab test`): 512 particles, one repetition, and the
# cross-check, whose FAIL fails the test. Exit 77 (ctest's skip) when no
# Python with both taichi and warp is at hand: BAGNOLD_PYTHON, else
# BUILD/venv (made by `scripts/lab bench compare`). It installs nothing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
build="${1:?usage: smoke.sh BUILD_DIR}"
py="${BAGNOLD_PYTHON:-$build/venv/bin/python}"
if [[ ! -x "$py" ]] || ! "$py" -c 'import taichi, warp' >/dev/null 2>&1; then
  echo "smoke: skipped: no Python with taichi and warp ($py); scripts/lab bench compare creates one"
  exit 77
fi
export BAGNOLD_BUILD_DIR="$build" BAGNOLD_COMPARE_COMMAND="ctest -R bench_compare_smoke"
exec "$py" "$here/compare.py" --particles 512 --reps 1 --warmup 1 --steps 2 --check-time 0.01 --threads 1 \
  --solvers bagnold,taichi-dense,warp --warm-cache --out "$build/bench/compare-smoke"
