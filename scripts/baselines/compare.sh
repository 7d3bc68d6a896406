#!/usr/bin/env bash
# compare.sh: bagnold against Taichi and Warp on one scene in one run.
# `scripts/lab bench compare [args]` builds bagnold and calls this with
# BAGNOLD_BUILD_DIR set. It finds a Python with taichi and warp, creating and
# filling a virtual environment of its own (BUILD/venv) when none is given,
# then runs compare.py (see `--help` for its options).
#
# Python: --python PATH or BAGNOLD_PYTHON=PATH uses that interpreter as it is
# (an offline machine with pre-installed wheels); otherwise BUILD/venv is
# created with `python3 -m venv` (python3-venv is installed through apt when
# missing) and the pinned versions below are pip-installed into it, from
# BAGNOLD_WHEELS=DIR without the network when that is set.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
build="${BAGNOLD_BUILD_DIR:-$root/build}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac

TAICHI_VERSION=1.7.4
WARP_VERSION=1.19.0

log() { printf 'compare: %s\n' "$*" >&2; }
die() {
  local code="$1"
  shift
  printf 'compare: error: %s\n' "$*" >&2
  exit "$code"
}

python="${BAGNOLD_PYTHON:-}"
args=()
while (($#)); do
  case "$1" in
    --python) (($# >= 2)) || die 2 "--python needs a path"; python="$2"; shift 2 ;;
    --python=*) python="${1#*=}"; shift ;;
    -h | --help)
      sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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

export BAGNOLD_BUILD_DIR="$build"
export BAGNOLD_COMPARE_COMMAND="${BAGNOLD_COMPARE_COMMAND:-scripts/lab bench compare${args[*]:+ ${args[*]}}}"
exec "$python" "$here/compare.py" "${args[@]}"
