#!/usr/bin/env bash
# jobs_identical.sh EXPERIMENT OUTDIR MIN_FILES NONEMPTY [ARGS...]: an
# experiment whose runs go side by side (--jobs 4) writes the same TSV files,
# bit for bit, as with its runs one after another (--jobs 1). Each run is its
# own simulation; this checks that nothing is shared between them (the lab's
# progress and work tally, the backend's state). ARGS make the runs short:
# every row of every TSV is compared, not only the fitted values. At least
# MIN_FILES files are compared, and the file NONEMPTY must hold data rows, so
# that identical files say something.
set -euo pipefail
(($# >= 4)) || { echo "usage: $0 EXPERIMENT OUTDIR MIN_FILES NONEMPTY [ARGS...]" >&2; exit 2; }
bin="$1"
out="$2"
min="$3"
nonempty="$4"
shift 4
rm -rf -- "$out"
mkdir -p -- "$out"
for j in 1 4; do
  rc=0
  # the claims it prints are not this test's: runs this short fail them
  "$bin" --backend cpu --threads 1 --quiet "$@" --jobs "$j" --out "$out/jobs$j" 2>"$out/jobs$j.log" || rc=$?
  # 1: a claim failed; anything else is an error
  ((rc == 0 || rc == 1)) || { echo "FAIL: $(basename "$bin") --jobs $j exited $rc (see $out/jobs$j.log)" >&2; exit 1; }
done
n=0
for f in "$out"/jobs1/*.tsv; do
  g="$out/jobs4/$(basename "$f")"
  cmp -s "$f" "$g" || { echo "FAIL: $(basename "$f") differs between --jobs 1 and --jobs 4" >&2; exit 1; }
  n=$((n + 1))
done
((n >= min)) || { echo "FAIL: only $n TSV files to compare (want >= $min)" >&2; exit 1; }
# data rows: the lines after the '#' comments and the plain header line
awk '!/^#/ && ++n > 1 { found = 1; exit } END { exit !found }' "$out/jobs1/$nonempty" || { echo "FAIL: $nonempty has no data rows: nothing was compared" >&2; exit 1; }
echo "PASS: $n TSV files identical between --jobs 1 and --jobs 4"
