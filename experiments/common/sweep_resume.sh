#!/usr/bin/env bash
# sweep_resume.sh EXPERIMENT OUTDIR NONEMPTY [ARGS...]: a sweep stopped
# partway (SIGTERM, or a device call's time limit, whose folder comes back
# without its checkpoints) goes on with --resume from its complete points:
#   - the stopped folder is refused as --out with a message that names
#     --resume (before --force, which would remove the finished points);
#   - --resume (with another --jobs: it changes no result) runs only the
#     points that were not complete, and leaves the complete ones' files as
#     they were;
#   - every TSV equals a run never stopped, byte for byte.
# NONEMPTY is a TSV that must hold data rows, so that equal files say something.
set -uo pipefail
(($# >= 3)) || { echo "usage: $0 EXPERIMENT OUTDIR NONEMPTY [ARGS...]" >&2; exit 2; }
bin="$1" out="$2" nonempty="$3"
shift 3
rm -rf -- "$out"
mkdir -p -- "$out"
fails=0
ok() { printf 'ok    %s\n' "$1"; }
bad() { fails=$((fails + 1)); printf 'FAIL  %s\n' "$1"; }
svc=(--backend cpu --threads 1 --quiet)
# the claims are not this test's: runs this short fail them (exit 1)
"$bin" "${svc[@]}" "$@" --jobs 2 --out "$out/ref" >"$out/ref.log" 2>&1
rc=$?
((rc == 0 || rc == 1)) || { echo "FAIL: the uninterrupted run exited $rc (see $out/ref.log)" >&2; exit 1; }
n=$(awk '!/^#/ && ++r > 1' "$out/ref/plan.tsv" | wc -l)
((n >= 3)) || { echo "FAIL: the sweep has $n points; the test needs 3 at least" >&2; exit 1; }

# stopped once two points are complete and before the last is
r="$out/cut"
"$bin" "${svc[@]}" "$@" --jobs 1 --out "$r" >"$out/cut.log" 2>&1 &
pid=$!
for _ in $(seq 3000); do
  (($(compgen -G "$r/points/*/point.txt" | wc -l) >= 2)) && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.01
done
kill -TERM "$pid" 2>/dev/null || echo "      the run ended before it could be stopped: make it longer"
wait "$pid" 2>/dev/null
find "$r" -name '*.bgck' -delete # as a device call's folder comes back
kept=$(compgen -G "$r/points/*/point.txt" | wc -l)
if [[ -e "$r/INTERRUPTED" ]] && ((kept >= 2 && kept < n)); then ok "stopped with $kept of $n points complete"
else bad "the stopped run: $kept of $n points complete, folder: $(ls "$r" | paste -sd' ')"; fi
stamps() { for f in "$r"/points/*/point.txt; do [[ -e "$f" ]] && stat -c '%n %y' "$f"; done; }
before=$(stamps)

"$bin" "${svc[@]}" "$@" --jobs 1 --out "$r" >"$out/again.log" 2>&1
rc=$?
if ((rc == 2)) && grep -q -- "--resume $r" "$out/again.log"; then ok "the stopped folder as --out: exit 2, naming --resume"
else bad "the stopped folder as --out: exit $rc: $(tail -n 1 "$out/again.log")"; fi

# another --jobs than the stopped run's: a service, not part of the identity
"$bin" --backend cpu --threads 1 --jobs 2 --resume "$r" >"$out/resume.log" 2>&1
rc=$?
((rc == 0 || rc == 1)) || bad "--resume exited $rc: $(tail -n 2 "$out/resume.log" | paste -sd' ')"
if grep -q "resumed: $kept of $n points complete already" "$out/resume.log" &&
  grep -q "\"sweep_points_kept\": *$kept\b" "$r/manifest.json"; then
  ok "--resume keeps the $kept complete points (progress line and manifest say so)"
else bad "--resume and the complete points: $(grep resumed "$out/resume.log"; grep -o '"sweep_points_kept": *[0-9]*' "$r/manifest.json")"; fi
# the complete points' records were not written again
while read -r line; do
  [[ -z "$line" ]] && continue
  grep -qxF -- "$line" <<<"$(stamps)" || bad "a complete point was written again: ${line%% *}"
done <<<"$before"
m=0
for f in "$out"/ref/*.tsv; do
  g="$r/$(basename "$f")"
  if cmp -s "$f" "$g"; then m=$((m + 1)); else bad "$(basename "$f") differs from the run never stopped"; fi
done
((m >= 3)) && ok "$m TSV files equal to the run never stopped" || bad "only $m TSV files compared"
awk '!/^#/ && ++k > 1 { found = 1; exit } END { exit !found }' "$out/ref/$nonempty" ||
  bad "$nonempty has no data rows: nothing was compared"
((fails == 0)) && echo "PASS" || { echo "FAIL: $fails checks"; exit 1; }
