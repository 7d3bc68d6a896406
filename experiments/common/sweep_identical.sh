#!/usr/bin/env bash
# sweep_identical.sh NAME EXPERIMENT OUTDIR MIN_FILES [ARGS...]: the sweep NAME
# run point by point (scripts/sweep: --plan, each --point K in its own process,
# two at a time, then --gather) writes the same TSV files, byte for byte, as
# EXPERIMENT run as one process with the same ARGS. ARGS make the runs short.
# At least MIN_FILES files are compared. Also checked: a gather with a point
# missing is refused before any analysis (exit 2, naming the point).
set -euo pipefail
(($# >= 4)) || { echo "usage: $0 NAME EXPERIMENT OUTDIR MIN_FILES [ARGS...]" >&2; exit 2; }
name="$1" bin="$2" out="$3" min="$4"
shift 4
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
rm -rf -- "$out"
mkdir -p -- "$out"
ok_rc() { (($1 == 0 || $1 == 1)); } # 1: a claim failed, as runs this short do

rc=0
"$bin" --backend cpu --threads 1 --quiet "$@" --out "$out/one" 2>"$out/one.log" || rc=$?
ok_rc $rc || { echo "FAIL: the one-process run exited $rc (see $out/one.log)" >&2; exit 1; }
rc=0
BAGNOLD_BUILD_DIR="$(cd "$(dirname "$bin")/.." && pwd -P)" bash "$root/scripts/sweep" "$name" --out "$out/sweep" \
  --jobs 2 -- --backend cpu --quiet "$@" >"$out/sweep.log" 2>&1 || rc=$?
ok_rc $rc || { echo "FAIL: scripts/sweep $name exited $rc (see $out/sweep.log)" >&2; exit 1; }
n=0
for f in "$out"/one/*.tsv; do
  b="$(basename "$f")"
  cmp -s "$f" "$out/sweep/$b" || { echo "FAIL: $b differs between one process and the gathered points" >&2; exit 1; }
  n=$((n + 1))
done
((n >= min)) || { echo "FAIL: only $n files compared (at least $min expected)" >&2; exit 1; }
npts="$(awk -F'\t' '!/^#/ && $1 != "point"' "$out/sweep/plan.tsv" | wc -l)"
((npts >= 2)) || { echo "FAIL: the plan has $npts points" >&2; exit 1; }

# a gather with a point missing: refused, naming it
mv "$out/sweep/points/1" "$out/points-1-aside"
rc=0
"$bin" --backend cpu --quiet "$@" --gather --out "$out/sweep" 2>"$out/refused.log" || rc=$?
((rc == 2)) && grep -q "point 1 " "$out/refused.log" ||
  { echo "FAIL: a gather without point 1 exited $rc, wanted 2 naming point 1 (see $out/refused.log)" >&2; exit 1; }
echo "PASS: $n TSV files identical between one process and $npts points gathered; a missing point is refused"
