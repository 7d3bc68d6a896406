#!/usr/bin/env bash
# jobs_identical.sh EXP_SILO OUTDIR: exp_silo's apertures run side by side
# (--jobs) give the same files, bit for bit, as one after another. Each
# aperture is its own simulation; this checks that nothing is shared between
# them (the lab's progress and work tally, the backend's state). A short run
# (0.4 s simulated per aperture) is enough: every sample of every series is
# compared, not only the fitted rates.
set -euo pipefail
(($# == 2)) || { echo "usage: $0 EXP_SILO OUTDIR" >&2; exit 2; }
bin="$1"
out="$2"
rm -rf -- "$out"
mkdir -p -- "$out"
args=(--scale quick --backend cpu --threads 1 --quiet --t-max 0.4 --apertures 4,5,6,7)
for j in 1 4; do
  rc=0
  # the claims it prints are not this test's: runs this short fail them
  "$bin" "${args[@]}" --jobs "$j" --out "$out/jobs$j" 2>"$out/jobs$j.log" || rc=$?
  # 1: a claim failed; anything else is an error
  ((rc == 0 || rc == 1)) || { echo "FAIL: exp_silo --jobs $j exited $rc (see $out/jobs$j.log)" >&2; exit 1; }
done
n=0
for f in "$out"/jobs1/*.tsv; do
  g="$out/jobs4/$(basename "$f")"
  cmp -s "$f" "$g" || { echo "FAIL: $(basename "$f") differs between --jobs 1 and --jobs 4" >&2; exit 1; }
  n=$((n + 1))
done
((n >= 10)) || { echo "FAIL: only $n TSV files to compare" >&2; exit 1; }
# the series must hold discharge, or identical files would say little
awk -F'\t' '!/^#/ && $2 > 0 {found = 1} END {exit !found}' "$out/jobs1/series_D3.tsv" ||
  { echo "FAIL: no discharge in the 7-cell series: nothing was compared" >&2; exit 1; }
echo "PASS: $n TSV files identical between --jobs 1 and --jobs 4"
