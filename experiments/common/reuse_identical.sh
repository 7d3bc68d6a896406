#!/usr/bin/env bash
# reuse_identical.sh: a run that copies the points another run already
# simulated (--reuse DIR) writes the same files, bit for bit, as one that
# simulates every point itself; it copies at least one point; and it refuses
# its own folder as DIR. CI's mutants and entries that share scenes with a
# plain run copy them this way (CMakeLists.txt), so their verdicts are only
# as good as this identity.
#
#   reuse_identical.sh BIN OUT MIN_FILES VARIANT... -- ARGS...
#
# ARGS make a short plain run of BIN (the source of the copies); each VARIANT
# (a quoted list of extra arguments, e.g. "--mutant slick-floor") is run twice
# with ARGS, without and with --reuse, and every TSV of the two compared.
set -euo pipefail
(($# >= 5)) || { echo "usage: $0 BIN OUT MIN_FILES VARIANT... -- ARGS..." >&2; exit 2; }
bin="$1" out="$2" min="$3"
shift 3
variants=()
while (($#)) && [[ "$1" != -- ]]; do
  variants+=("$1")
  shift
done
(($#)) || { echo "usage: $0 BIN OUT MIN_FILES VARIANT... -- ARGS..." >&2; exit 2; }
shift
rm -rf -- "$out"
mkdir -p -- "$out"
ok_rc() { (($1 == 0 || $1 == 1)); } # 1: a claim failed, as runs this short do

run() { # NAME ARGS...: a run into OUT/NAME, its log beside it
  local name="$1" rc=0
  shift
  "$bin" --backend cpu --threads 1 --quiet "$@" --out "$out/$name" 2>"$out/$name.log" || rc=$?
  ok_rc $rc || { echo "FAIL: the run $name exited $rc (see $out/$name.log)" >&2; exit 1; }
}

run plain "$@"
i=0
for v in "${variants[@]}"; do
  read -r -a va <<<"$v"
  run "fresh$i" "$@" "${va[@]}"
  run "reused$i" "$@" "${va[@]}" --reuse "$out/plain"
  n=0
  for f in "$out/fresh$i"/*.tsv; do
    b="$(basename "$f")"
    cmp -s "$f" "$out/reused$i/$b" ||
      { echo "FAIL: $v: $b differs between the run that simulated every point and the one that copied" >&2; exit 1; }
    n=$((n + 1))
  done
  ((n >= min)) || { echo "FAIL: $v: only $n files compared (at least $min expected)" >&2; exit 1; }
  copied="$(sed -n 's/.*"sweep_points_reused": *\([0-9]*\).*/\1/p' "$out/reused$i/manifest.json")"
  ((${copied:-0} >= 1)) || { echo "FAIL: $v: the run with --reuse copied ${copied:-no} points" >&2; exit 1; }
  echo "$v: $n TSV files identical, $copied points copied"
  i=$((i + 1))
done

# its own folder as the source: refused before anything is cleared
rc=0
"$bin" --backend cpu --quiet "$@" --out "$out/plain" --force --reuse "$out/plain" 2>"$out/self.log" || rc=$?
((rc == 2)) && grep -q "this run's own folder" "$out/self.log" ||
  { echo "FAIL: --reuse of the run's own folder exited $rc, wanted 2 (see $out/self.log)" >&2; exit 1; }
echo "PASS: ${#variants[@]} runs with --reuse identical to their runs without; the own folder refused"
