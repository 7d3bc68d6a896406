#!/usr/bin/env bash
# resume_identical.sh EXPERIMENT OUTDIR NONEMPTY [ARGS...]: a run killed with
# SIGKILL at a random moment after its first checkpoint and continued with
# --resume writes the same TSV files, byte for byte, as a run never stopped
# (the loops' measurement state travels in the checkpoints). ARGS make the
# runs short; NONEMPTY is a TSV that must hold data rows. Compared: every
# *.tsv of the run folder and the set of their names. Not compared, as they
# hold wall times, dates and the command line: manifest.json (wall_s, date,
# particle_steps_per_s, command, resumed_from); the RUNNING/FAILED markers
# are checked to be gone. Also checked: the resumed run says it resumed, a
# finished simulation is not run again, and a --resume with other parameters
# is refused before any work (exit 2, naming the parameter).
set -euo pipefail
(($# >= 3)) || { echo "usage: $0 EXPERIMENT OUTDIR NONEMPTY [ARGS...]" >&2; exit 2; }
bin="$1" out="$2" nonempty="$3"
shift 3
rm -rf -- "$out"
mkdir -p -- "$out"
common=(--backend cpu --threads 1 "$@")
ok_rc() { (($1 == 0 || $1 == 1)); } # 1: a claim failed, as runs this short do

# 1. the reference: one run, never stopped
t0=$(date +%s.%N)
rc=0
"$bin" "${common[@]}" --quiet --out "$out/ref" 2>"$out/ref.log" || rc=$?
ok_rc $rc || { echo "FAIL: the uninterrupted run exited $rc (see $out/ref.log)" >&2; exit 1; }
ref_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')

# 2. the same run with checkpoints, killed at a random moment after the first
run="$out/run"
t0=$(date +%s.%N)
"$bin" "${common[@]}" --quiet --checkpoint-every 0.1 --out "$run" 2>"$out/killed.log" &
pid=$!
for ((i = 0; i < 600; ++i)); do
  compgen -G "$run/checkpoints/*.bgck" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
# anywhere in the first half of what the uninterrupted run says is left
# (RANDOM is seeded per shell; times to the 10 ms, a run lasting seconds)
delay=$(awk -v r="$RANDOM" -v s="$ref_s" -v a="$t0" -v b="$(date +%s.%N)" \
  'BEGIN { left = s - (b - a); printf "%.2f", (r / 32767) * (left > 0 ? left / 2 : 0) }')
sleep "$delay"
if ! kill -9 "$pid" 2>/dev/null; then
  echo "FAIL: the run ended before it could be killed (after ${delay}s past its first checkpoint): make it longer" >&2
  exit 1
fi
wait "$pid" 2>/dev/null || true
n_ck=$(find "$run/checkpoints" -name '*.bgck' | wc -l)
((n_ck >= 1)) || { echo "FAIL: no checkpoint was written before the kill" >&2; exit 1; }
[[ -e "$run/RUNNING" && ! -e "$run/manifest.json" ]] || { echo "FAIL: the killed folder should say RUNNING" >&2; exit 1; }
echo "killed after ${delay}s past the first checkpoint, $n_ck checkpoints on disk"

# 3. a resume with another parameter value is refused, and touches nothing
rc=0
"$bin" "${common[@]}" --quiet --seed 7 --resume "$run" 2>"$out/refused.log" || rc=$?
((rc == 2)) && grep -q "other settings" "$out/refused.log" && grep -q "seed" "$out/refused.log" ||
  { echo "FAIL: --resume with another --seed: exit $rc, wanted 2 naming seed (see $out/refused.log)" >&2; exit 1; }
[[ -e "$run/RUNNING" ]] || { echo "FAIL: the refused resume changed the folder" >&2; exit 1; }

# 4. resume in place, then once more: every simulation is finished by then
rc=0
"$bin" "${common[@]}" --checkpoint-every 0.1 --resume "$run" 2>"$out/resumed.log" || rc=$?
ok_rc $rc || { echo "FAIL: the resumed run exited $rc (see $out/resumed.log)" >&2; exit 1; }
# a simulation restored from its checkpoint says "resumed from"; a sweep's
# points that were complete before the kill are kept, not run again
grep -qE "resumed from|resumed: [1-9][0-9]* of [0-9]+ points complete already" "$out/resumed.log" ||
  { echo "FAIL: the resumed run did not resume (see $out/resumed.log)" >&2; exit 1; }
[[ ! -e "$run/RUNNING" && ! -e "$run/FAILED" && -s "$run/manifest.json" ]] || { echo "FAIL: the resumed folder is not complete" >&2; exit 1; }
SECONDS=0
rc=0
"$bin" "${common[@]}" --resume "$run" --out "$out/again" 2>"$out/again.log" || rc=$?
ok_rc $rc || { echo "FAIL: a resume of the finished run exited $rc (see $out/again.log)" >&2; exit 1; }
grep -q "resumed from" "$out/again.log" && ! grep -v "finished: not run again" "$out/again.log" | grep -q "resumed from" ||
  { echo "FAIL: a resume of the finished run ran a simulation again (see $out/again.log)" >&2; exit 1; }

# 5. the files
cmp_dirs() {
  local a="$1" b="$2" n=0
  diff <(cd "$a" && ls -1 -- *.tsv) <(cd "$b" && ls -1 -- *.tsv) >/dev/null ||
    { echo "FAIL: $b holds other TSV files than $a" >&2; return 1; }
  for f in "$a"/*.tsv; do
    cmp -s "$f" "$b/$(basename "$f")" || { echo "FAIL: $(basename "$f") of $b differs from the uninterrupted run's" >&2; return 1; }
    n=$((n + 1))
  done
  echo "$n"
}
n=$(cmp_dirs "$out/ref" "$run") || exit 1
n2=$(cmp_dirs "$out/ref" "$out/again") || exit 1
# with --vtk-every in ARGS: the series, index and frames, byte for byte too
if [[ -d "$out/ref/vtk" ]]; then
  diff -r "$out/ref/vtk" "$run/vtk" >/dev/null || { echo "FAIL: the resumed run's vtk/ differs: $(diff -rq "$out/ref/vtk" "$run/vtk" | head -n 3)" >&2; exit 1; }
  echo "vtk/: $(ls "$run/vtk" | wc -l) files identical"
fi
awk '!/^#/ && ++n > 1 { found = 1; exit } END { exit !found }' "$out/ref/$nonempty" ||
  { echo "FAIL: $nonempty has no data rows: nothing was compared" >&2; exit 1; }
echo "PASS: $n TSV files identical after SIGKILL + --resume (and $n2 after a resume of the finished run)"
