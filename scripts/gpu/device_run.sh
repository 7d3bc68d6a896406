#!/usr/bin/env bash
# device_run.sh: everything the CUDA backend needs checked on a GPU machine,
# in one call. Configures and builds a fresh CUDA tree (sm_90 only, for a
# short compile), runs the gpu and parity tests, compute-sanitizer on a few
# of them, the GPU benchmark across particle counts, and a sweep of the
# sort interval, the GPU resources (cuda, cuda/global) and their properties
# (g2p_minblocks). Every log and TSV goes under OUTDIR; OUTDIR/summary.txt
# says what passed.
#
# usage: scripts/gpu/device_run.sh OUTDIR [PHASE...]
#   phases (default all, in this order): info build test sanitize bench sweep;
#   p2g (not in the default): the resources side by side (P2G_VARIANTS, P2G_PARTICLES)
# environment:
#   BAGNOLD_GPU_BUILD_DIR  build tree (default <repo>/build-gpu, wiped by 'build')
#   BAGNOLD_CUDA_ARCHS     architectures to build (default 90)
#   PHASE_TIMEOUT_S        limit per long command in seconds (default 300)
#   BUDGET_S               total seconds for the whole run (default 570, under a
#                          10-minute device call): commands that would start past it
#                          are skipped and listed in the summary, never cut silently
# Exit status: 0 if every phase that ran passed, 1 otherwise, 2 bad usage.
set -uo pipefail
# the toolkit's tools (nvcc, compute-sanitizer) where a plain install puts them
export PATH="$PATH:/usr/local/cuda/bin"

(($# >= 1)) || { echo "usage: $0 OUTDIR [info build test sanitize bench sweep p2g]" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
out="$1"
shift
mkdir -p -- "$out" || exit 2
out="$(cd "$out" && pwd -P)"
build="${BAGNOLD_GPU_BUILD_DIR:-$root/build-gpu}"
archs="${BAGNOLD_CUDA_ARCHS:-90}"
limit="${PHASE_TIMEOUT_S:-300}"
budget="${BUDGET_S:-570}"
phases=("$@")
((${#phases[@]})) || phases=(info build test sanitize bench sweep)
summary="$out/summary.txt"
status=0
: >"$summary"

note() { printf '%s\n' "$*" | tee -a "$summary"; }
# run NAME CMD...: output to OUTDIR/NAME.log, verdict to the summary
run() {
  local name="$1"
  shift
  local t0=$SECONDS rc left=$((budget - SECONDS)) lim="$limit"
  if ((left < 15)); then
    note "SKIP  $name (the ${budget} s budget is spent; run this phase again in another call)"
    return 0
  fi
  ((left < lim)) && lim=$left
  timeout "$lim" "$@" >"$out/$name.log" 2>&1
  rc=$?
  if ((rc == 0)); then
    note "PASS  $name ($((SECONDS - t0)) s)"
  else
    note "FAIL  $name (exit $rc$( ((rc == 124)) && echo ", timed out after $lim s"), $((SECONDS - t0)) s): see $name.log"
    status=1
  fi
  return $rc
}

commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
export BAGNOLD_COMMIT="${BAGNOLD_COMMIT:-$commit}"
note "bagnold device run: commit $BAGNOLD_COMMIT, $(date -u +%FT%TZ), phases: ${phases[*]}"

phase_info() {
  { nvidia-smi || true; nvcc --version || true; cmake --version | head -1; nproc; free -g; } >"$out/info.log" 2>&1
  note "info: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"
}

phase_build() {
  rm -rf -- "$build"
  # no GSL is fine: test_svd, the lab and the experiments are then skipped;
  # the backend, its tests and bench_gpu do not need it
  run configure cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBAGNOLD_CUDA=ON \
    "-DCMAKE_CUDA_COMPILER=$(command -v nvcc)" \
    "-DBAGNOLD_CUDA_ARCHS=$archs" -DBAGNOLD_WERROR=ON || return 1
  run build cmake --build "$build" -j "$(nproc)" || return 1
  # registers, stack and spills of the P2G and G2P kernels (their stage files)
  local nvcc_bin f
  nvcc_bin="$(command -v nvcc)"
  : >"$out/ptxas.log"
  for f in cuda_p2g.cu cuda_g2p.cu; do
    "$nvcc_bin" -std=c++17 -O3 "-arch=sm_${archs%%;*}" -I"$root/core/include" -I"$root/core/physics" \
      -I"$root/core/src" -I"$root/core/backends" -I"$build/generated/public" -Xptxas -v -c "$root/core/backends/cuda/$f" -o "$out/ptxas.o" \
      >>"$out/ptxas.log" 2>&1 && rm -f "$out/ptxas.o"
  done
  note "ptxas: $(grep -A2 -E "k_p2gILi2E|k_g2p" "$out/ptxas.log" | grep -E 'Used|spill' | tr -s ' ' | paste -sd ' ')"
}

phase_test() {
  [[ -x "$build/bin/test_api" ]] || { note "FAIL  test: no build in $build"; status=1; return 1; }
  # one GPU test at a time: the parity test also runs the cpu backend on every core
  run ctest_gpu ctest --test-dir "$build" -L gpu --output-on-failure -j 1
  grep -E "tests passed|Skipped|Failed|Passed" "$out/ctest_gpu.log" | tail -n 12 >>"$summary"
  grep -E "cpu vs cpu|parked on|left their sorted block|FAIL" "$build/Testing/Temporary/LastTest.log" \
    >"$out/parity_numbers.log" 2>/dev/null || true
  # the CPU unit tests too, to see the CUDA build left them green
  run ctest_cpu ctest --test-dir "$build" -L unit -LE gpu --output-on-failure -j "$(nproc)"
}

phase_sanitize() {
  command -v compute-sanitizer >/dev/null || { note "SKIP  sanitize: no compute-sanitizer"; return 0; }
  local cs=(compute-sanitizer --error-exitcode 99 --print-limit 20)
  # fall: the tile and the drifted path; silo: colliders, sinks, parking tallies
  run memcheck_api "${cs[@]}" --tool memcheck "$build/bin/test_api" cuda
  run memcheck_parity_fall "${cs[@]}" --tool memcheck "$build/bin/test_parity" cuda fall
  run memcheck_parity_silo "${cs[@]}" --tool memcheck "$build/bin/test_parity" cuda silo
  # reads of device memory nobody wrote (grid clear, tallies, sort buffers)
  run initcheck_parity_fall "${cs[@]}" --tool initcheck "$build/bin/test_parity" cuda fall
  # the shared tile: zeroing, accumulation and flush separated by barriers
  run racecheck_parity_fall "${cs[@]}" --tool racecheck "$build/bin/test_parity" cuda fall
  run synccheck_parity_fall "${cs[@]}" --tool synccheck "$build/bin/test_parity" cuda fall
}

phase_bench() {
  [[ -x "$build/bin/bench_gpu" ]] || { note "FAIL  bench: no bench_gpu"; status=1; return 1; }
  # counts from 1 M doubling to what the card holds, the default resource and properties
  run bench_counts "$build/bin/bench_gpu" --steps 30 --warmup 10 --reps 3 --tag counts --out "$out"
  sed -n '/particles/,$p' "$out/bench_counts.log" | grep -v '^bench_gpu:' >>"$summary"
}

phase_sweep() {
  [[ -x "$build/bin/bench_gpu" ]] || return 1
  local b="$build/bin/bench_gpu" common=(--particles 8M,32M --steps 30 --warmup 10 --reps 3 --out "$out")
  local k
  for k in 1 8 32 128; do
    run "sweep_sort_$k" "$b" "${common[@]}" --sort-interval "$k" --tag "sort_interval=$k"
  done
  # the plain GPU reference: global float atomics, no tile
  run sweep_global "$b" "${common[@]}" --backend cuda/global --tag "backend=cuda/global"
  # the G2P kernel's register bound (default auto: none for local models; 4 or 8 resident blocks per SM)
  for k in 4 8; do
    run "sweep_g2p_minblocks_$k" "$b" "${common[@]}" --property "g2p_minblocks=$k" --tag "g2p_minblocks=$k"
  done
  # the block-sparse grid (memory in proportion to the material) against the dense default
  run sweep_grid_sparse "$b" "${common[@]}" --property grid=sparse --tag "grid=sparse"
  # one line per setting: the median rows of the tables
  for f in "$out"/sweep_*.log; do
    printf '%s\n' "$(basename "$f" .log)" >>"$summary"
    grep -E '^ +[0-9]+ ' "$f" >>"$summary" || true
  done
}

# The GPU resources and properties side by side at P2G_PARTICLES (default
# 8M) on both scenes, one bench_gpu per variant in P2G_VARIANTS (default,
# global, g2p-mb4, or any NAME=VALUE property of cuda; default: the default
# against the P2G properties' other values and the global scatter); first the
# default tile under racecheck and memcheck.
phase_p2g() {
  [[ -x "$build/bin/bench_gpu" ]] || { note "FAIL  p2g: no bench_gpu"; status=1; return 1; }
  local b="$build/bin/bench_gpu" v
  local common=(--particles "${P2G_PARTICLES:-8M}" --scene both --steps 50 --warmup 10 --reps 2 --out "$out")
  if command -v compute-sanitizer >/dev/null; then
    local cs=(compute-sanitizer --error-exitcode 99 --print-limit 20)
    local small=(--particles 32768 --scene freefall --steps 3 --warmup 1 --reps 1 --sort-interval 2)
    run racecheck_tile "${cs[@]}" --tool racecheck "$b" "${small[@]}"
    run memcheck_tile "${cs[@]}" --tool memcheck "$b" "${small[@]}"
  fi
  for v in ${P2G_VARIANTS:-default p2g_bound=pass p2g_words=2 global}; do
    case "$v" in
      default) run p2g_default "$b" "${common[@]}" --tag "backend=cuda" ;;
      global) run p2g_global "$b" "${common[@]}" --backend cuda/global --tag "backend=cuda/global" ;;
      g2p-mb4) run p2g_g2p-mb4 "$b" "${common[@]}" --property g2p_minblocks=4 --tag "g2p_minblocks=4" ;;
      *=*) run "p2g_${v//[^A-Za-z0-9_]/_}" "$b" "${common[@]}" --property "$v" --tag "$v" ;;
      *) note "unknown P2G variant '$v' (default global g2p-mb4 NAME=VALUE)"; status=1 ;;
    esac
  done
  for f in "$out"/p2g_*.log; do
    [[ -f "$f" ]] || continue
    printf '%s\n' "$(basename "$f" .log)" >>"$summary"
    grep -E '^ +(freefall|collapse) ' "$f" >>"$summary" || true
  done
}

for p in "${phases[@]}"; do
  case "$p" in
    info | build | test | sanitize | bench | sweep | p2g) "phase_$p" ;;
    *) note "unknown phase '$p' (info build test sanitize bench sweep p2g)"; exit 2 ;;
  esac
done
note "done: $( ((status == 0)) && echo "every phase passed" || echo "some phase FAILED") ($SECONDS s)"
exit $status
