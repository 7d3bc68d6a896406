#!/usr/bin/env bash
# peers_gpu.sh: the head-to-head (scripts/baselines/compare.py) on a GPU
# machine in one call: bagnold against our Taichi (dense, pid+BLS) and Warp
# implementations on both scenes. Installs the wheels carried in WHEEL_DIR
# into SITE (the device has no package registry), then runs, in this order:
#   ff4M   free fall, 4,194,304 particles, FF_REPS repetitions
#   ff1M   free fall, 1,048,576 particles, FF_REPS repetitions
#   col4M  collapse,  COL_PARTICLES particles, COL_REPS repetitions
# each into OUTDIR/<name>/ (compare.md, *.tsv, logs/, compare.log), and
# OUTDIR/summary.txt with each run's table rows and cross-check verdicts.
#
# The collapse is the expensive scene: every 'run' (the compile round and
# each repetition) first advances a fresh state to the window start, about
# 2,100 steps at 4M particles, and its cross-check advances to twice that,
# about 4,200 steps, one host round trip per step in the Python workers. A
# Taichi worker at 4M takes about 16 s per run and 30 s for its cross-check
# (the 2026-12-03 run), so with four solvers the collapse costs about
# 80 s (compile round) + 60 s per repetition + 115 s (cross-check):
# COL_REPS=2 (about 4.5 minutes) leaves room for both free falls in the
# budget. It runs last and gets whatever the budget has left.
#
# It uses the binaries already built (bench_scene of a CUDA build, carried
# in the call); it builds nothing. The peers' wheels are larger than one call
# carries: scripts/gpu/carry_wheels.py cuts them into chunks here and stages
# and installs them on the device (taichi, warp, geotaichi into /tmp/site,
# genesis-world into /tmp/gsite with a /tmp/gpy interpreter for GENESIS_PYTHON).
#
# usage: scripts/gpu/peers_gpu.sh OUTDIR [RUN...]
#   runs (default ff4M ff1M col4M, in the order given): ff4M ff1M col4M col1M, and
#   col1M-genesis-dt, col1M-genesis-nofm: the 1M collapse with bagnold and genesis-world alone, one of
#   genesis' listed physics differences removed (its fixed dt scaled by GENESIS_DT_SCALE, default
#   0.925, bagnold's mean over the check; or Quadrants' fast math off), to find which moves its
#   collapse cross-check (needs GENESIS_PYTHON)
# environment:
#   BAGNOLD_BENCH_SCENE  bagnold's worker (default <repo>/build/bin/bench_scene); bglab_query must
#                        lie beside it (or in BAGNOLD_BUILD_DIR/bin)
#   WHEEL_DIR            wheels to install, folders separated by ':' (default <repo>/.whl;
#                        none: use what imports); installed with --ignore-requires-python, as
#                        geotaichi 0.2.6 declares Python <= 3.11 but runs on 3.12 (taichi 1.7.4)
#   SITE                 install target, put on PYTHONPATH (default /tmp/site)
#   PYTHON               interpreter (default python3)
#   SOLVERS              default bagnold,taichi-dense,taichi-bls,warp (a peer that
#                        does not import is reported unavailable in the tables)
#   GEOTAICHI            1: add the public geotaichi (its wheel and trimesh, shapely carried in
#                        WHEEL_DIR), run by this Python (--geotaichi-python)
#   GENESIS_PYTHON       a Python that imports genesis-world 1.4.5 (with the machine's torch): adds
#                        the public genesis-world through --genesis-python. Its import loads libGL
#                        (pygel3d) and pyglet: on a machine without them, carry libgl1, libglx0,
#                        libglvnd0, libegl1, libopengl0 as .deb files in GL_DEBS (default <repo>/.gl,
#                        made here by the device README's apt-get download line): when libGL.so.1 is
#                        missing they are unpacked into / (dpkg -x, that README's recipe); pyglet is
#                        made headless here
#   TAICHI_ELEMENTS      a checkout of the public taichi_elements (carried in an
#                        ignored folder, never committed): adds the solver
#                        taichi_elements, run unmodified through --taichi-elements
#   FF_REPS              free-fall repetitions (default 3)
#   COL_REPS             collapse repetitions (default 2)
#   COL_PARTICLES        collapse particle count (default 4194304)
#   FF_PARTICLES         the two free-fall counts (default "4194304 1048576")
#   DEVICE               compare.py --device (default gpu; cpu with tiny counts
#                        is a dry run of this script on a machine without a GPU)
#   FF_TIMEOUT_S         limit of each free-fall run in seconds (default 150)
#   FIRST_RUN_S          compare.py --first-run-timeout: a solver whose first reset + step
#                        (JIT included) takes longer is stopped and reported failed, and the
#                        others go on (default 120; the public taichi_elements took 57 s at 4M)
#   BUDGET_S             total seconds for the whole script (default 570, under a
#                        10-minute device call): a run that would start with less
#                        than 60 s left is skipped and listed in the summary
# Exit status: 0 if every run finished with a cross-check verdict for bagnold,
# 1 otherwise, 2 bad usage.
set -uo pipefail

(($# >= 1)) || { echo "usage: $0 OUTDIR [ff4M ff1M col4M]" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
out="$1"
shift
mkdir -p -- "$out" || exit 2
out="$(cd "$out" && pwd -P)"
bench="${BAGNOLD_BENCH_SCENE:-$root/build/bin/bench_scene}"
wheels="${WHEEL_DIR:-$root/.whl}"
site="${SITE:-/tmp/site}"
py="${PYTHON:-python3}"
solvers="${SOLVERS:-bagnold,taichi-dense,taichi-bls,warp}"
extra=()
if [[ -n "${TAICHI_ELEMENTS:-}" ]]; then
  solvers="$solvers,taichi_elements"
  extra=(--taichi-elements "$TAICHI_ELEMENTS")
fi
if [[ -n "${GENESIS_PYTHON:-}" ]]; then
  solvers="$solvers,genesis"
  extra+=(--genesis-python "$GENESIS_PYTHON")
  # without a display pyglet looks for X (XRenderFindVisualFormat on None); headless it uses EGL
  export PYGLET_HEADLESS="${PYGLET_HEADLESS:-1}"
  # genesis' pygel3d links libGL, which a bare device image lacks (2026-12-06: genesis unavailable)
  gl_debs="${GL_DEBS:-$root/.gl}"
  if ! ldconfig -p 2>/dev/null | grep -q 'libGL\.so\.1'; then
    if compgen -G "$gl_debs/*.deb" >/dev/null; then
      for f in "$gl_debs"/*.deb; do dpkg -x "$f" / || echo "warning: dpkg -x $f failed" >&2; done
      ldconfig
    else
      echo "warning: libGL.so.1 is missing and $gl_debs holds no .deb: genesis-world will not import" >&2
    fi
  fi
fi
if [[ "${GEOTAICHI:-0}" == 1 ]]; then
  solvers="$solvers,geotaichi"
  extra+=(--geotaichi-python "$(command -v "$py")")
fi
ff_reps="${FF_REPS:-3}"
col_reps="${COL_REPS:-2}"
col_n="${COL_PARTICLES:-4194304}"
read -r ff_big ff_small <<<"${FF_PARTICLES:-4194304 1048576}"
device="${DEVICE:-gpu}"
ff_limit="${FF_TIMEOUT_S:-150}"
budget="${BUDGET_S:-570}"
runs=("$@")
((${#runs[@]})) || runs=(ff4M ff1M col4M)
summary="$out/summary.txt"
status=0
: >"$summary"

note() { printf '%s\n' "$*" | tee -a "$summary"; }

commit="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
export BAGNOLD_COMMIT="${BAGNOLD_COMMIT:-$commit}"
note "bagnold peers run: commit $BAGNOLD_COMMIT, $(date -u +%FT%TZ), runs: ${runs[*]}"
note "gpu: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"

[[ -x "$bench" ]] || { note "FAIL  no bench_scene at $bench (build the CUDA tree and carry build/bin/bench_scene)"; exit 1; }
# compare.py asks the lab's bglab_query (BAGNOLD_BUILD_DIR/bin) for the host: beside bench_scene unless
# set (carried binaries are not in build/bin: the first call of 2026-12-06 failed on that)
export BAGNOLD_BUILD_DIR="${BAGNOLD_BUILD_DIR:-$(dirname "$(dirname "$bench")")}"
[[ -x "$BAGNOLD_BUILD_DIR/bin/bglab_query" ]] ||
  { note "FAIL  no $BAGNOLD_BUILD_DIR/bin/bglab_query (carry it beside bench_scene)"; exit 1; }

# the carried wheels; a package missing from them may still be installed on the machine
whl=()
IFS=: read -r -a wdirs <<<"$wheels"
for w in "${wdirs[@]}"; do
  compgen -G "$w/*.whl" >/dev/null && whl+=("$w"/*.whl)
done
if ((${#whl[@]})); then
  if "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --ignore-requires-python \
    --target "$site" "${whl[@]}" >"$out/install.log" 2>&1; then
    note "installed into $site: $(for f in "${whl[@]}"; do basename "$f"; done | paste -sd ' ')"
  else
    note "FAIL  pip install of ${whl[*]}: see install.log"
    status=1
  fi
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
for mod in numpy taichi warp; do
  v="$("$py" -c "import $mod; print($mod.__version__)" 2>/dev/null | tail -1)"
  note "python: $mod ${v:-(does not import)}"
done
# geotaichi's own package does not import (its __init__ reaches above itself): its metadata says the version
v="$("$py" -c 'import importlib.metadata as m; print(m.version("geotaichi"))' 2>/dev/null | tail -1)"
note "python: geotaichi ${v:-(not installed)}"

# compare NAME LIMIT_S ARGS...: one compare.py run into OUTDIR/NAME
compare() {
  local name="$1" lim="$2" t0=$SECONDS rc left
  shift 2
  left=$((budget - SECONDS))
  if ((left < 60)); then
    note "SKIP  $name (the ${budget} s budget is spent; run it again in another call: $0 OUTDIR $name)"
    status=1
    return 0
  fi
  ((left < lim)) && lim=$left
  mkdir -p -- "$out/$name"
  BAGNOLD_COMPARE_COMMAND="scripts/gpu/peers_gpu.sh ($name): compare.py $*" \
    timeout -k 10 "$lim" "$py" "$root/scripts/baselines/compare.py" --device "$device" --bagnold "$bench" \
    --solvers "$solvers" "${extra[@]}" --first-run-timeout "${FIRST_RUN_S:-120}" --out "$out/$name" "$@" >"$out/$name/compare.log" 2>&1
  rc=$?
  if ((rc == 0)); then
    note "DONE  $name ($((SECONDS - t0)) s)"
  else
    note "FAIL  $name (exit $rc$( ((rc == 124)) && echo ", timed out after $lim s"), $((SECONDS - t0)) s): see $name/compare.log"
    status=1
  fi
  # the rate table and the cross-check verdicts, as compare.md has them
  if [[ -f "$out/$name/compare.md" ]]; then
    grep -E '^\| (bagnold|our|Warp|warp|taichi_elements|the public)' "$out/$name/compare.md" | cut -c1-220 >>"$summary"
    grep -qE '^\| bagnold[^|]*\| [0-9]+ \|.*\| (PASS|FAIL) \|$' "$out/$name/compare.md" ||
      { note "      $name: no cross-check verdict for bagnold"; status=1; }
  else
    grep -E 'rep [0-9]+/|cross-check|unavailable|failed' "$out/$name/compare.log" | tail -n 20 >>"$summary"
  fi
  return 0
}

for r in "${runs[@]}"; do
  case "$r" in
    ff4M) compare ff4M "$ff_limit" --scene freefall --particles "$ff_big" --reps "$ff_reps" ;;
    ff1M) compare ff1M "$ff_limit" --scene freefall --particles "$ff_small" --reps "$ff_reps" ;;
    col4M) compare col4M "$budget" --scene collapse --particles "$col_n" --reps "$col_reps" ;;
    col1M) compare col1M "$budget" --scene collapse --particles "$ff_small" --reps "$col_reps" ;;
    col1M-genesis-dt | col1M-genesis-nofm)
      # genesis alone beside bagnold with one listed physics difference removed (peer_genesis.py)
      [[ -n "${GENESIS_PYTHON:-}" ]] || { note "SKIP  $r (needs GENESIS_PYTHON)"; status=1; continue; }
      keep_solvers="$solvers" keep_extra=("${extra[@]}")
      solvers="bagnold,genesis" extra=(--genesis-python "$GENESIS_PYTHON")
      if [[ "$r" == col1M-genesis-dt ]]; then
        BAGNOLD_CHECK_GENESIS_DT_SCALE="${GENESIS_DT_SCALE:-0.925}" compare "$r" "$budget" --scene collapse --particles "$ff_small" --reps 1
      else
        BAGNOLD_CHECK_GENESIS_NO_FAST_MATH=1 compare "$r" "$budget" --scene collapse --particles "$ff_small" --reps 1
      fi
      solvers="$keep_solvers" extra=("${keep_extra[@]}")
      ;;
    *) note "unknown run '$r' (ff4M ff1M col4M col1M col1M-genesis-dt col1M-genesis-nofm)"; exit 2 ;;
  esac
done
note "done: $( ((status == 0)) && echo "every run finished with a verdict" || echo "some run FAILED or was skipped") ($SECONDS s)"
exit $status
