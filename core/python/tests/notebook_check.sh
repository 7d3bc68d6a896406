#!/usr/bin/env bash
# notebook_check.sh BUILD WORK: core/python/examples/first_hour.ipynb run
# top to bottom by nbclient in the renderer's venv (scripts/view-env
# BUILD/pyview: pyvista, matplotlib, nbclient, ipykernel), against this
# build's library; exit 77 (skipped) when the venv cannot be had.
set -euo pipefail
build="$1" work="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../../.." && pwd -P)"
rm -rf -- "$work" && mkdir -p -- "$work"
rc=0
py="$(bash "$root/scripts/view-env" "$build/pyview")" || rc=$?
((rc == 0)) || exit "$rc"
export BAGNOLD_LIBRARY="${BAGNOLD_LIBRARY:-$build/lib/libbagnold.so}"
export PYTHONPATH="$root/core/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$py" "$here/run_notebook.py" "$root/core/python/examples/first_hour.ipynb" "$work/first_hour.ipynb" "$work"
