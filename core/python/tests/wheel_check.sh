#!/usr/bin/env bash
# wheel_check.sh WORK: the wheel a user installs, end to end: scripts/wheel
# builds and repairs it (CPU backends only, to keep the test short; the CUDA
# backend compiles in the same way when nvcc is there), it must be tagged
# py3-none-manylinux, and installed into a fresh venv with no build tree,
# no BAGNOLD_* variable and no PYTHONPATH it must load its own library and
# run the seed's Usage lines (tests/test_seed_usage.py). Exit 77 (skipped)
# when the build tools cannot be fetched from PyPI.
set -euo pipefail
work="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../../.." && pwd -P)"
rm -rf -- "$work/dist" "$work/venv" "$work/run"
mkdir -p -- "$work"
rc=0
bash "$root/scripts/wheel" --out "$work" --cuda off || rc=$?
((rc == 0)) || exit "$rc"
whl=("$work"/dist/*.whl)
((${#whl[@]} == 1)) || { echo "FAIL: expected one wheel in $work/dist, found ${#whl[@]}" >&2; exit 1; }
name="$(basename "${whl[0]}")"
echo "wheel: $name"
[[ "$name" =~ ^bagnold-[0-9.]+-py3-none-manylinux_[0-9]+_[0-9]+_[a-z0-9_]+\.whl$ ]] ||
  { echo "FAIL: $name is not tagged py3-none-manylinux_X_Y" >&2; exit 1; }

# a fresh venv; numpy and pytest from the system where it has them (no
# network needed), else from PyPI (a host whose python3 lacks numpy)
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
if ! "$work/venv/bin/python" -c "import numpy, pytest" 2>/dev/null; then
  "$work/venv/bin/pip" install -q numpy pytest >"$work/venv-deps.log" 2>&1 ||
    { echo "SKIP: the venv has no numpy/pytest and PyPI cannot be reached (see $work/venv-deps.log)" >&2; exit 77; }
fi
"$work/venv/bin/pip" install -q --no-index --no-deps "${whl[0]}"
mkdir -p "$work/run"
cp "$here/test_seed_usage.py" "$here/conftest.py" "$work/run/"
clean=(env -u BAGNOLD_LIBRARY -u BAGNOLD_BUILD_DIR -u BAGNOLD_PREFIX -u PYTHONPATH)
cd "$work/run"
lib="$("${clean[@]}" "$work/venv/bin/python" -c "import bagnold; print(bagnold.library_path)")"
echo "loaded: $lib"
[[ "$lib" == "$work/venv/"*"/site-packages/bagnold/libbagnold.so" ]] ||
  { echo "FAIL: the installed package loaded $lib, not its own copy" >&2; exit 1; }
"${clean[@]}" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider test_seed_usage.py
