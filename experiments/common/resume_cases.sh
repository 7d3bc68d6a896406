#!/usr/bin/env bash
# resume_cases.sh BINDIR OUTDIR: --resume never loses a result (issue 35).
# Each case failed on 4a52c64:
#   - argument errors are found before the folder is touched (no folder, no
#     RUNNING marker; the next run into it is not refused), in exp_runout and
#     every experiment with checks of its own, and exp_runout's --help says
#     how many aspects it needs;
#   - a folder whose checkpoint is corrupt is refused before anything in it
#     (or in another --out) is cleared, byte for byte;
#   - resume reads its parameters from the folder (checkpoints/run.txt): a
#     flag given again must agree, else a clean refusal (no raw tab) naming it;
#   - --checkpoint-every is inherited: the resumed run's final checkpoints
#     say finished, so a later resume does not simulate again;
#   - a finished run resumed in place is left alone (exit 0, files untouched).
# The subject is exp_density on a small block (about 3 s a run on one
# thread), killed with SIGKILL after its first checkpoint; the resumed run's
# TSVs are compared with an uninterrupted run's given every flag.
set -uo pipefail
(($# == 2)) || { echo "usage: $0 BINDIR OUTDIR" >&2; exit 2; }
bin="$1" out="$2"
density="$bin/exp_density" runout="$bin/exp_runout"
rm -rf -- "$out"
mkdir -p -- "$out"
fails=0 n=0
ok() { n=$((n + 1)); printf 'ok    %s\n' "$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); printf 'FAIL  %s\n' "$1"; }
# run NAME CMD...: stdout+stderr in $out/NAME.log, the exit code in $rc
run() {
  local name="$1"
  shift
  "$@" >"$out/$name.log" 2>&1
  rc=$?
}
has() { grep -q -- "$2" "$out/$1.log"; }
# every file of a folder with its SHA-256 (and mode, size): "untouched" is this, unchanged
digest() { (cd "$1" && find . -type f -printf '%p %s %m\n' | sort && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }
claim_rc() { ((rc == 0 || rc == 1)); } # 1: a claim failed, as runs this short do

# --- 1. argument errors leave nothing behind ------------------------------------------
for args in "--aspects 3,1,2" "--aspects 0.5" "--mu-lo 2 --mu-hi 1"; do
  d="$out/args"
  rm -rf -- "$d"
  # shellcheck disable=SC2086
  run args "$runout" --quiet $args --out "$d"
  if ((rc == 2)) && has args "error: --" && [[ ! -e "$d" ]]; then ok "exp_runout $args: exit 2, no folder made"
  else bad "exp_runout $args: exit $rc, folder: $(ls "$d" 2>&1 | paste -sd' ')"; fi
done
# the same for every experiment's own option checks (bg_lab_check_options)
while IFS='|' read -r exe args; do
  [[ -x "$bin/$exe" ]] || { echo "skip  $exe is not built"; continue; }
  d="$out/args"
  rm -rf -- "$d"
  # shellcheck disable=SC2086
  run args "$bin/$exe" --quiet $args --out "$d"
  if ((rc == 2)) && has args "error: " && [[ ! -e "$d" ]]; then ok "$exe $args: exit 2, no folder made"
  else bad "$exe $args: exit $rc, folder: $(ls "$d" 2>&1 | paste -sd' ')"; fi
done <<'CASES'
exp_density|--ppc 9
exp_density|--block 0.02
exp_silo|--apertures 5,4,6,7
exp_silo|--geometry hex
exp_repose|--cells-coarse 256 --grids 4 --grid-ratio 2
exp_cohesion|--cstars 0,0.1
demo_surrogate|--phi-lo 40 --phi-hi 30
demo_calibrate|--phi-lo 40 --phi-hi 30
demo_hopper|--geometry hex
CASES
# a check an experiment still makes after the folder is prepared (exp_silo's
# --refine against the grid it derives) ends the run with exit(): the folder
# says FAILED, with the command, not RUNNING
if [[ -x "$bin/exp_silo" ]]; then
  run late "$bin/exp_silo" --quiet --refine 0.004 --out "$out/late"
  if ((rc == 2)) && has late "refine" && [[ -f "$out/late/FAILED" && ! -e "$out/late/RUNNING" ]] &&
    grep -q "exited before it finished" "$out/late/FAILED"; then
    ok "exp_silo --refine 0.004 (checked after the folder is made): exit 2, FAILED, no RUNNING"
  else bad "a late exit(2): exit $rc, folder: $(ls "$out/late" 2>&1 | paste -sd' ')"; fi
fi
mkdir -p "$out/args"
run args_empty "$runout" --quiet --aspects 3,1,2 --out "$out/args"
run args_next "$runout" --quiet --plan --out "$out/args"
if [[ -s "$out/args/plan.tsv" ]] && ((rc == 0)); then
  ok "after an argument error in an empty folder, the next run into it is not refused (--plan: exit 0)"
else bad "the run after an argument error: exit $rc ($(tail -n 1 "$out/args_next.log"))"; fi
# the whole text first: grep -q stops reading at its match, and under
# pipefail the writer's SIGPIPE on the rest would fail the case
runout_help=$("$runout" --help)
if grep -q -- "--aspects .*4 to [0-9]* values" <<<"$runout_help"; then ok "exp_runout --help says --aspects needs 4 values at least"
else bad "exp_runout --help and the number of aspects"; fi

# --- 2. a run killed after its first checkpoint --------------------------------------------
# non-default parameters, so that a resume that did not read them from the
# folder would simulate another scene (and differ from the reference)
params=(--block 0.08 --block-height 0.04 --time 0.6 --seed 3)
svc=(--backend cpu --threads 1)
run ref "$density" "${svc[@]}" --quiet "${params[@]}" --out "$out/ref"
claim_rc || bad "the uninterrupted reference run: exit $rc"
r="$out/run"
"$density" "${svc[@]}" --quiet "${params[@]}" --checkpoint-every 0.1 --out "$r" >"$out/killed.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
  compgen -G "$r/checkpoints/*.bgck" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.02
done
# at once: a checkpoint appears whole (written aside and renamed), and the
# run, 0.6 s of simulated time, lasts 0.9 s on one thread (its first
# checkpoint comes 0.1 s after its start)
kill -9 "$pid" 2>/dev/null || echo "      the run ended before it could be killed: make it longer"
wait "$pid" 2>/dev/null
if [[ -e "$r/RUNNING" && -s "$r/checkpoints/drop.bgck" && ! -e "$r/manifest.json" ]]; then
  ok "a run killed after its first checkpoint says RUNNING and holds drop.bgck"
else bad "the killed run's folder: $(ls "$r" | paste -sd' ')"; fi
before=$(digest "$r")

# --- 3. a flag given again must agree ---------------------------------------------------
run disagree "$density" "${svc[@]}" --quiet --block 0.08 --seed 7 --resume "$r"
if ((rc == 2)) && has disagree "other settings" && has disagree "seed 3 there, seed 7 here" &&
  ! grep -q $'\t' "$out/disagree.log" && [[ "$(digest "$r")" == "$before" ]]; then
  ok "--resume with another --seed: exit 2 naming seed 3 and 7, no tab in the message, folder untouched"
else bad "--resume with another --seed: exit $rc: $(head -c 300 "$out/disagree.log")"; fi

# --- 4. a corrupt checkpoint: refused before anything is cleared -------------------------
c="$out/corrupt"
cp -a -- "$r" "$c"
size=$(stat -c %s "$c/checkpoints/drop.bgck")
printf '\x5a' | dd of="$c/checkpoints/drop.bgck" bs=1 seek=$((size / 2)) conv=notrunc status=none
cbefore=$(digest "$c")
run corrupt "$density" "${svc[@]}" --quiet --resume "$c"
if ((rc == 2)) && has corrupt "drop.bgck is corrupt" && has corrupt "nothing in .* was changed" &&
  [[ "$(digest "$c")" == "$cbefore" ]]; then
  ok "a killed run with a corrupt checkpoint: exit 2 naming it, every file untouched"
else bad "resume of a corrupt checkpoint: exit $rc: $(head -c 300 "$out/corrupt.log")"; fi

# --- 5. resume in place, reading the parameters from the folder ------------------------------
# --block given again (it agrees); --block-height, --time, --seed and
# --checkpoint-every come from the folder
run resumed "$density" "${svc[@]}" --block 0.08 --resume "$r"
if claim_rc && has resumed "resumed from" && [[ -s "$r/manifest.json" && ! -e "$r/RUNNING" ]]; then
  ok "--resume DIR with one agreeing flag: resumed and complete (exit $rc)"
else bad "the resume: exit $rc: $(tail -n 3 "$out/resumed.log")"; fi
same=1
for f in "$out/ref"/*.tsv; do
  cmp -s "$f" "$r/$(basename "$f")" || { same=0; echo "      $(basename "$f") differs from the uninterrupted run's"; }
done
if ((same)); then ok "the parameters came from the folder: every TSV as the uninterrupted run given every flag wrote it"
else bad "the resumed run's TSVs differ from the uninterrupted run's"; fi
if grep -q '"checkpoint_every_s": 0.1' "$r/manifest.json"; then ok "--checkpoint-every 0.1 inherited (the manifest says so)"
else bad "--checkpoint-every not inherited: $(grep -o '"checkpoint_every_s": [^,]*' "$r/manifest.json")"; fi

# --- 6. a finished run: left alone in place, not simulated again elsewhere -------------------
done_before=$(digest "$r")
run finished "$density" "${svc[@]}" --resume "$r"
if ((rc == 0)) && has finished "finished" && has finished "left as they are" && [[ "$(digest "$r")" == "$done_before" ]]; then
  ok "--resume of a finished run in place: exit 0, says so, every file untouched"
else bad "--resume of a finished run: exit $rc: $(head -c 300 "$out/finished.log")"; fi
run again "$density" "${svc[@]}" --resume "$r" --out "$out/again"
if claim_rc && has again "finished: not run again" && cmp -s "$out/ref/series.tsv" "$out/again/series.tsv" &&
  [[ "$(digest "$r")" == "$done_before" ]]; then
  ok "--resume of the finished run into another folder: its final checkpoint (inherited --checkpoint-every) is not run again"
else bad "--resume of the finished run elsewhere: exit $rc: $(grep -c 'not run again' "$out/again.log") finished sims"; fi

# --- 7. results beside a corrupt checkpoint: untouched --------------------------------------
# a run whose last write failed keeps its TSVs and claims.tsv beside FAILED
# (no manifest); a resume of it with a corrupt checkpoint must keep them all
f="$out/failed"
cp -a -- "$r" "$f"
rm -f -- "$f/manifest.json"
echo "error: writing manifest.json: No space left on device" >"$f/FAILED"
size=$(stat -c %s "$f/checkpoints/drop.bgck")
printf '\x5a' | dd of="$f/checkpoints/drop.bgck" bs=1 seek=$((size / 3)) conv=notrunc status=none
fbefore=$(digest "$f")
run failed "$density" "${svc[@]}" --quiet --resume "$f"
run failed_out "$density" "${svc[@]}" --quiet --resume "$f" --out "$out/failed_new"
if ((rc == 2)) && has failed "drop.bgck is corrupt" && [[ -s "$f/claims.tsv" && -s "$f/series.tsv" ]] &&
  [[ "$(digest "$f")" == "$fbefore" && ! -e "$out/failed_new" ]]; then
  ok "a corrupt checkpoint beside claims.tsv and the TSVs: exit 2, in place and with --out, nothing cleared or made"
else bad "a corrupt checkpoint beside results: exit $rc, files: $(ls "$f" | paste -sd' ')"; fi

echo "$n cases, $fails failed"
exit $((fails ? 1 : 0))
