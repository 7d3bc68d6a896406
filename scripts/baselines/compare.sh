#!/usr/bin/env bash
# compare.sh: bagnold against our Taichi and Warp implementations and the
# public code (geotaichi, genesis-world; taichi_elements / warp-mpm checkouts)
# on one scene.
# `scripts/lab bench compare [args]` builds bagnold and calls this with
# BAGNOLD_BUILD_DIR set. It finds a Python with taichi and warp, creating and
# filling a virtual environment of its own (BUILD/venv) when none is given,
# makes BUILD/venv-geotaichi for geotaichi and BUILD/venv-genesis for
# genesis-world, then runs compare.py (see
# `--help`; --taichi-elements DIR and --warp-mpm DIR pass through to it).
#
# Python: --python PATH or BAGNOLD_PYTHON=PATH uses that interpreter as it is
# (an offline machine with pre-installed wheels); otherwise BUILD/venv is
# created with `python3 -m venv` (python3-venv is installed through apt when
# missing) and the pinned versions below are pip-installed into it, from
# BAGNOLD_WHEELS=DIR without the network when that is set.
#
# geotaichi 0.2.6 pins taichi==1.6.0 (and numpy 1.23.5, scipy 1.10.1, trimesh
# 3.20.1, shapely 1.8.0), which cannot share BUILD/venv with taichi 1.7.4, so
# it gets BUILD/venv-geotaichi. It declares Requires-Python <=3.11 (pip reads
# that as <= 3.11.0) and shapely 1.8.0 has no wheel for 3.11 (it builds from
# source against libgeos), so geotaichi goes in with --no-deps
# --ignore-requires-python next to its other pins and shapely 1.8.5.post1 (same
# API, wheels). Where that fails (no network, Python >= 3.12, where taichi
# 1.6.0 has no wheel) compare.py reports geotaichi unavailable and goes on.
# BAGNOLD_NO_GEOTAICHI=1 skips it; --geotaichi-python PATH uses your own.
#
# genesis-world 1.4.5 imports torch without declaring it; PyPI's Linux torch
# (pinned 2.15.0) is the CUDA build with its nvidia-* wheels (PyPI has no
# CPU-only Linux torch), so BUILD/venv-genesis is about 8.5 GB (3 to 6 min to
# install here). It is made only when missing and the disk holding BUILD has
# 20 GB free (a log line says why otherwise, and compare.py reports genesis
# unavailable); BAGNOLD_NO_GENESIS=1 skips it; --genesis-python PATH uses your
# own. `scripts/lab test` and ctest's bench_compare_smoke (smoke.sh) never
# come here, so they never install genesis or torch.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
build="${BAGNOLD_BUILD_DIR:-$root/build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac

TAICHI_VERSION=1.7.4
WARP_VERSION=1.19.0
GEOTAICHI_VERSION=0.2.6
GEOTAICHI_DEPS=(taichi==1.6.0 numpy==1.23.5 scipy==1.10.1 trimesh==3.20.1 shapely==1.8.5.post1 rtree psutil pynvml)
GENESIS_VERSION=1.4.5
GENESIS_TORCH=torch==2.15.0
GENESIS_MIN_FREE_GB=20

log() { printf 'compare: %s\n' "$*" >&2; }
die() {
  local code="$1"
  shift
  printf 'compare: error: %s\n' "$*" >&2
  exit "$code"
}

python="${BAGNOLD_PYTHON:-}"
gt_python=""
gen_python=""
args=()
while (($#)); do
  case "$1" in
    --python) (($# >= 2)) || die 2 "--python needs a path"; python="$2"; shift 2 ;;
    --python=*) python="${1#*=}"; shift ;;
    --geotaichi-python) (($# >= 2)) || die 2 "--geotaichi-python needs a path"; gt_python="$2"; args+=("$1" "$2"); shift 2 ;;
    --geotaichi-python=*) gt_python="${1#*=}"; args+=("$1"); shift ;;
    --genesis-python) (($# >= 2)) || die 2 "--genesis-python needs a path"; gen_python="$2"; args+=("$1" "$2"); shift 2 ;;
    --genesis-python=*) gen_python="${1#*=}"; args+=("$1"); shift ;;
    -h | --help)
      sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      printf '\n'
      # compare.py's own options, from whichever Python can already run it
      for py in "$python" "$build/venv/bin/python" python3; do
        if [[ -n "$py" ]] && "$py" -c 'import numpy' >/dev/null 2>&1; then exec "$py" "$here/compare.py" --help; fi
      done
      exit 0
      ;;
    *) args+=("$1"); shift ;;
  esac
done

# True when the interpreter imports both frameworks.
has_peers() { "$1" -c 'import taichi, warp' >/dev/null 2>&1; }

ensure_venv_package() {
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && return 0
  log "python3 has no venv/ensurepip: installing python3-venv"
  command -v apt-get >/dev/null || die 1 "no apt-get: install python3-venv by other means, or pass --python"
  local -a priv=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || die 1 "not root and no sudo; as root run: apt-get install python3-venv"
    priv=(sudo)
  fi
  "${priv[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${priv[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
}

if [[ -n "$python" ]]; then
  command -v "$python" >/dev/null || die 2 "--python / BAGNOLD_PYTHON: '$python' is not an executable"
  has_peers "$python" ||
    log "warning: $python cannot import both taichi and warp; the missing peer(s) will be reported unavailable"
else
  venv="$build/venv"
  python="$venv/bin/python"
  if [[ ! -x "$python" ]] || ! has_peers "$python"; then
    command -v python3 >/dev/null || die 1 "python3 not found (install python3, or pass --python)"
    ensure_venv_package
    if [[ ! -x "$python" ]]; then
      log "creating $venv"
      python3 -m venv "$venv"
    fi
    pip=("$python" -m pip install --disable-pip-version-check -q)
    if [[ -n "${BAGNOLD_WHEELS:-}" ]]; then pip+=(--no-index --find-links "$BAGNOLD_WHEELS"); fi
    log "installing taichi==$TAICHI_VERSION warp-lang==$WARP_VERSION into $venv"
    "${pip[@]}" "taichi==$TAICHI_VERSION" "warp-lang==$WARP_VERSION" ||
      die 1 "pip could not install taichi==$TAICHI_VERSION warp-lang==$WARP_VERSION (offline? set BAGNOLD_WHEELS=DIR or --python)"
  fi
fi

# geotaichi (the public code) in its own venv; a failure here costs only its line in the table
gt_imports() { (cd / && "$1" -c 'import importlib.metadata as m, taichi; assert m.version("geotaichi") == "'"$GEOTAICHI_VERSION"'"; import src.mpm.mainMPM') >/dev/null 2>&1; }
if [[ -z "$gt_python" && "${BAGNOLD_NO_GEOTAICHI:-0}" != 1 ]]; then
  gvenv="$build/venv-geotaichi"
  if [[ ! -x "$gvenv/bin/python" ]] || ! gt_imports "$gvenv/bin/python"; then
    log "installing geotaichi==$GEOTAICHI_VERSION (with ${GEOTAICHI_DEPS[*]}) into $gvenv"
    gpip=("$gvenv/bin/python" -m pip install --disable-pip-version-check -q)
    if [[ -n "${BAGNOLD_WHEELS:-}" ]]; then gpip+=(--no-index --find-links "$BAGNOLD_WHEELS"); fi
    if { [[ -x "$gvenv/bin/python" ]] || python3 -m venv "$gvenv"; } &&
      "${gpip[@]}" "${GEOTAICHI_DEPS[@]}" &&
      "${gpip[@]}" --no-deps --ignore-requires-python "geotaichi==$GEOTAICHI_VERSION" &&
      gt_imports "$gvenv/bin/python"; then
      log "geotaichi $GEOTAICHI_VERSION ready in $gvenv"
    else
      log "warning: could not install geotaichi into $gvenv; it will be reported unavailable"
    fi
  fi
fi

# genesis-world (the public code) in its own venv, when the disk has room; a failure costs only its line
gen_imports() { (cd / && "$1" -c 'import importlib.metadata as m; assert m.version("genesis-world") == "'"$GENESIS_VERSION"'"; import torch, genesis') >/dev/null 2>&1; }
if [[ -z "$gen_python" && "${BAGNOLD_NO_GENESIS:-0}" != 1 ]]; then
  genv="$build/venv-genesis"
  if [[ ! -x "$genv/bin/python" ]] || ! gen_imports "$genv/bin/python"; then
    free_kb="$(df -Pk "$build" 2>/dev/null | awk 'NR == 2 { print $4 }')"
    if [[ -z "$free_kb" ]] || ((free_kb < GENESIS_MIN_FREE_GB * 1024 * 1024)); then
      log "skipping genesis-world: ${free_kb:+$((free_kb / 1024 / 1024)) GB }free on the disk of $build, under the" \
        "$GENESIS_MIN_FREE_GB GB its venv needs (about 8.5 GB with torch); it will be reported unavailable"
    else
      log "installing genesis-world==$GENESIS_VERSION with $GENESIS_TORCH into $genv (about 8.5 GB, a few minutes;" \
        "BAGNOLD_NO_GENESIS=1 skips it)"
      npip=("$genv/bin/python" -m pip install --disable-pip-version-check -q)
      if [[ -n "${BAGNOLD_WHEELS:-}" ]]; then npip+=(--no-index --find-links "$BAGNOLD_WHEELS"); fi
      t_gen=$SECONDS
      if { [[ -x "$genv/bin/python" ]] || python3 -m venv "$genv"; } &&
        "${npip[@]}" "genesis-world==$GENESIS_VERSION" "$GENESIS_TORCH" &&
        gen_imports "$genv/bin/python"; then
        log "genesis-world $GENESIS_VERSION ready in $genv ($((SECONDS - t_gen)) s, $(du -sh "$genv" | cut -f1))"
      else
        log "warning: could not install genesis-world into $genv; it will be reported unavailable"
      fi
    fi
  fi
fi

export BAGNOLD_BUILD_DIR="$build"
export BAGNOLD_COMPARE_COMMAND="${BAGNOLD_COMPARE_COMMAND:-scripts/lab bench compare${args[*]:+ ${args[*]}}}"
exec "$python" "$here/compare.py" "${args[@]}"
