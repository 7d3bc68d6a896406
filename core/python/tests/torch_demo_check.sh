#!/usr/bin/env bash
# torch_demo_check.sh OUTDIR: the torch surrogate demo (examples/torch_surrogate.py)
# at a small scale, with the first python3 that imports torch and numpy. The
# demo exits 1 when its inverse misses the true angle by more than its own
# 2 sd, 77 (skipped) where torch, a CUDA device or the cuda backend is missing.
set -uo pipefail
out="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
export PYTHONPATH="$here/..${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
for py in python3 /usr/bin/python3; do
  command -v "$py" >/dev/null 2>&1 || continue
  if "$py" -c 'import torch, numpy' 2>/dev/null; then
    rm -rf -- "$out"
    exec "$py" "$here/../examples/torch_surrogate.py" --out "$out" --cells 8 --design 6 --replicates 2 \
      --ensemble 4 --epochs 1500
  fi
done
echo "skipped: no python3 with torch and numpy" >&2
exit 77
