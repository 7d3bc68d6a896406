#!/usr/bin/env bash
# run_pytest.sh PYTHON TEST_FILE [pytest args]: runs one test file with the
# first interpreter that imports numpy and pytest: PYTHON (what CMake found),
# then Debian's /usr/bin/python3, where scripts/lab setup installs
# python3-numpy and python3-pytest (a python3 earlier on PATH, pyenv's say,
# may lack them). Exit 77 (skipped) when none has both.
set -uo pipefail
want="$1"; shift
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# no __pycache__ in the source tree from a test run
export PYTHONDONTWRITEBYTECODE=1
for py in "$want" /usr/bin/python3 python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  if "$py" -c 'import numpy, pytest' 2>/dev/null; then
    # -p no:cacheprovider: no .pytest_cache in the source tree
    exec "$py" -m pytest -q -p no:cacheprovider "$@"
  fi
done
echo "skipped: no Python 3 with numpy and pytest (tried $want, /usr/bin/python3, python3);" \
     "scripts/lab setup installs python3-numpy and python3-pytest" >&2
exit 77
