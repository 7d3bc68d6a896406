#!/usr/bin/env bash
# lab_cases.sh BINDIR REFS OUTDIR: the harness's bookkeeping as a new user
# meets it (issue 14's cases), each a check that failed on 7bb5fdd: a full
# disk, a corrupted claims table, bad outputs and references found before
# any work, an honest run folder (re-runs, SIGINT, SIGKILL), one exit-code
# contract and the CLI's quirks. The probe is the subject: a plain run takes
# seconds, so the cases share plain runs where they can, and --increment
# makes it long when a test needs time.
set -uo pipefail
(($# == 3)) || { echo "usage: $0 BINDIR REFS OUTDIR" >&2; exit 2; }
bin="$1" refs="$2" out="$3"
probe="$bin/probe_constitutive"
rm -rf -- "$out"
mkdir -p -- "$out"
fails=0 n=0
ok() { n=$((n + 1)); printf 'ok    %s\n' "$1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); printf 'FAIL  %s\n' "$1"; }
# run NAME EXPECTED_RC CMD...: stdout+stderr in $out/NAME.log
run() {
  local name="$1" want="$2"
  shift 2
  "$@" >"$out/$name.log" 2>&1
  rc=$?
  if ((rc == want)); then return 0; fi
  printf '      %s: exit %d, wanted %d; log:\n' "$name" "$rc" "$want"
  sed 's/^/        /' "$out/$name.log" | tail -n 5
  return 1
}
has() { grep -q -- "$2" "$out/$1.log"; }

# --- 1. a full disk: a file-size limit (no mount needed) ------------------------
d="$out/fsize"
if (ulimit -f 64; run fsize 2 "$probe" --quiet --increment 1e-5 --out "$d") && has fsize "paths.tsv" &&
  has fsize "File too large" && [[ -f "$d/FAILED" && ! -e "$d/RUNNING" && ! -e "$d/paths.tsv" && ! -e "$d/claims.tsv" &&
  ! -e "$d/manifest.json" ]]; then
  ok "a file-size limit: exit 2 naming paths.tsv and strerror, FAILED marker, no file that looks complete"
else bad "a file-size limit (RLIMIT_FSIZE 64 KiB)"; fi

# --- 2. the claims table, parsed strictly -----------------------------------------
table_case() { # NAME WHAT SED-EXPR|@special
  local name="$1" what="$2" expr="$3" t="$out/refs-$1"
  mkdir -p "$t"
  cp "$refs/mutants.tsv" "$t/"
  case "$expr" in
    @empty) : >"$t/claims.tsv" ;;
    @comments) grep '^#' "$refs/claims.tsv" >"$t/claims.tsv" ;;
    @dir) mkdir -p "$t/claims.tsv" ;;
    @dup) cat "$refs/claims.tsv" >"$t/claims.tsv"
          grep '^probe.force_stress_gap' "$refs/claims.tsv" | sed 's/\t0.1\t0.1\t/\t5\t5\t/' >>"$t/claims.tsv" ;;
    *) sed "$expr" "$refs/claims.tsv" >"$t/claims.tsv" ;;
  esac
  if run "table-$name" 2 "$probe" --quiet --references "$t" --out "$out/run-$name" && has "table-$name" "claims.tsv" &&
    [[ ! -e "$out/run-$name" ]]; then
    if [[ "$expr" == @* ]] || has "table-$name" "claims.tsv:[0-9]"; then ok "claims table: $what rejected (exit 2, file:line, before any output)"
    else bad "claims table: $what: no file:line in the error"; fi
  else bad "claims table: $what"; fi
}
table_case dup "a duplicated claim with a looser tolerance" @dup
table_case abc "a tolerance 'abc'" '/^probe.triaxial.phi/s/\t1e-4\t1e-4\t/\tabc\t1e-4\t/'
table_case unit "a tolerance '1.5deg'" '/^probe.triaxial.phi/s/\t1e-4\t1e-4\t/\t1.5deg\t1e-4\t/'
table_case zero "a tolerance 'zero'" '/^probe.triaxial.phi/s/\t1e-4\t1e-4\t/\tzero\t1e-4\t/'
table_case nan "a tolerance 'nan'" '/^probe.triaxial.phi/s/\t1e-4\t1e-4\t/\tnan\t1e-4\t/'
table_case emptyfield "an empty field" '/^probe.triaxial.phi/s/\tklar2016\t/\t\t/'
table_case column "a missing column" '/^probe.triaxial.phi/s/\tanalytic\t/\t/'
table_case empty "an empty file" @empty
table_case nodata "a table of comments only" @comments
table_case dir "a directory named claims.tsv" @dir
# a plain run: its files here, its exit code in section 5 (each probe run costs seconds)
run sha 0 "$probe" --quiet --out "$out/sha"
sha_rc=$rc
if grep -q "\"claims_table_sha256\": \"$(sha256sum "$refs/claims.tsv" | cut -d' ' -f1)\"" "$out/sha/manifest.json" &&
  grep -q '"claims_table": ' "$out/sha/manifest.json" && head -n 1 "$out/sha/claims.tsv" | grep -q sha256; then
  ok "the manifest and claims.tsv record the table's path and SHA-256"
else bad "the manifest records the claims table and its SHA-256"; fi

# --- 3. outputs and references checked before any work ---------------------------
: >"$out/a-file"
SECONDS=0
if run outfile 2 "$probe" --quiet --out "$out/a-file" && has outfile "not a directory" && ((SECONDS < 5)); then
  ok "--out naming a regular file: exit 2 at once"
else bad "--out naming a regular file"; fi
chmod 0555 "$out" 2>/dev/null
if [[ ! -w "$out" ]]; then
  if run readonly 2 "$probe" --quiet --out "$out/ro/x"; then ok "--out that cannot be created: exit 2"; else bad "--out that cannot be created"; fi
else ok "--out that cannot be created: skipped (running as root, every directory is writable)"; fi
chmod 0755 "$out"
if run nocuda 2 "$probe" --quiet --backend cuda --out "$out/nocuda" || [[ $rc == 0 ]]; then
  if ((rc == 2)); then ok "--backend cuda without a usable device: exit 2 before any work"
  else ok "--backend cuda: a device is usable here, nothing to check"; fi
else bad "--backend cuda without a device"; fi

runout="$bin/exp_runout"
if [[ -x "$runout" ]]; then
  SECONDS=0
  if run runout_file 2 "$runout" --quiet --out "$out/a-file" && has runout_file "not a directory" && ((SECONDS < 5)); then
    ok "exp_runout --out FILE: exit 2 at once, not after the sweep"
  else bad "exp_runout --out FILE"; fi
  t="$out/refs-noseed"
  mkdir -p "$t" && cp -r "$refs/." "$t/" && rm -f "$t/seed/seed_results.tsv"
  SECONDS=0
  if run noseed 2 "$runout" --quiet --references "$t" --out "$out/noseed" && has noseed "seed_results.tsv" &&
    ((SECONDS < 5)) && [[ ! -e "$out/noseed/fit.tsv" && ! -e "$out/noseed/sweep.tsv" ]]; then
    ok "a missing references/seed/seed_results.tsv: exit 2 before any simulation, no fit.tsv or sweep.tsv"
  else bad "a missing seed_results.tsv"; fi
fi

# --- 4. an honest run folder -------------------------------------------------------
# a space in the name: section 6 reads the quoting of this folder's manifest
d="$out/re use"
run first 0 "$probe" --quiet --out "$d"
echo stale >"$d/particles.vtk"
# an interrupted contact split's scratch state (bg_contact.h) is a run's file too
echo stale >"$d/.split-shape beta 0 gamma 0 depth 2L.bgck"
if run again 2 "$probe" --quiet --out "$d" && has again "not empty"; then ok "re-running into a used folder is refused"
else bad "re-running into a used folder"; fi
if run force 0 "$probe" --quiet --force --out "$d" && [[ ! -e "$d/particles.vtk" && ! -e "$d/.split-shape beta 0 gamma 0 depth 2L.bgck" && -s "$d/manifest.json" ]]; then
  ok "--force clears the earlier run's files (no stale particles.vtk or contact-split scratch)"
else bad "--force clears the earlier run's files"; fi
if grep -q '"files": \[.*"paths.tsv".*"manifest.json"' "$d/manifest.json"; then ok "the manifest lists the files the run produced"
else bad "the manifest lists its files"; fi
echo mine >"$d/notes.txt"
if run foreign 2 "$probe" --quiet --force --out "$d" && [[ -f "$d/notes.txt" ]]; then
  ok "--force refuses a folder holding files that are not a run's (and leaves them)"
else bad "--force with a foreign file"; fi
for sig in INT TERM KILL; do
  d="$out/sig$sig"
  "$probe" --quiet --increment 1e-6 --out "$d" >"$out/sig$sig.log" 2>&1 &
  pid=$!
  for _ in $(seq 50); do [[ -e "$d/RUNNING" ]] && break; sleep 0.1; done
  sleep 0.5
  kill -s "$sig" "$pid"
  wait "$pid" 2>/dev/null
  rc=$?
  case $sig in
    INT) want=130 marker=INTERRUPTED ;;
    TERM) want=143 marker=INTERRUPTED ;;
    KILL) want=137 marker=RUNNING ;;
  esac
  complete=$(find "$d" -name '*.tsv' -o -name manifest.json | head -n 1)
  if ((rc == want)) && [[ -f "$d/$marker" && -z "$complete" ]]; then
    ok "SIG$sig mid-run: exit $rc, $marker marker, no result file under its own name"
  else bad "SIG$sig mid-run: exit $rc (want $want), files: $(ls "$d" | paste -sd' ')"; fi
done

# --- 5. one exit-code contract ---------------------------------------------------
if ((sha_rc == 0)) && grep -q 'fail.*fail' "$out/sha/claims.tsv"; then
  ok "a run whose only fail is a documented miss exits 0"
else bad "documented miss exits 0"; fi
t="$out/refs-flip"
mkdir -p "$t" && cp "$refs/mutants.tsv" "$t/" && sed '/^probe.hardening/s/\tpass\t/\tfail\t/' "$refs/claims.tsv" >"$t/claims.tsv"
if run contract1 1 "$probe" --quiet --references "$t" --out "$out/contract1"; then ok "an unexpected verdict exits 1"
else bad "an unexpected verdict exits 1"; fi
if run contract2 2 "$probe" --no-such-option; then ok "a bad option exits 2"; else bad "a bad option exits 2"; fi

# --- 6. the CLI ------------------------------------------------------------------------
# no option may show a default outside its own accepted range (the old
# "(default 0)" of scale-dependent settings), in any executable's help
outside=""
for exe in "$bin"/probe_constitutive "$bin"/exp_*; do
  [[ -x "$exe" ]] || continue
  "$exe" --help 2>&1 | awk -v e="$(basename "$exe")" '
    match($0, /in \[[^]]+\] \(default [^)]*\)/) {
      s = substr($0, RSTART, RLENGTH); gsub(/in \[|\]|\(default |\)/, "", s); split(s, f, /, | /)
      if (f[3] != "derived" && (f[3] + 0 < f[1] + 0 || f[3] + 0 > f[2] + 0)) print e ": " $0 }' >>"$out/help-range.log"
done
[[ -s "$out/help-range.log" ]] && outside="$(head -n 3 "$out/help-range.log")"
if run help 0 "$probe" -h && has help "by scale: quick" && [[ -z "$outside" ]]; then
  ok "-h works, scale-dependent defaults are shown per scale, no default lies outside its range"
else bad "-h and per-scale defaults in --help ${outside}"; fi
if run version 0 "$probe" --version && has version "commit"; then ok "--version"; else bad "--version"; fi
if run optval 2 "$probe" --out --quiet && [ ! -e ./--quiet ] && has optval "looks like an option"; then
  ok "--out --quiet is an error, no directory named --quiet"
else bad "--out --quiet"; fi
if run threads 2 "$probe" --threads 512 --out "$out/threads" && has threads "outside the accepted range"; then
  ok "--threads above the core count is refused"
else bad "--threads 512"; fi
long="$out/$(printf 'x%.0s' $(seq 1100))"
if run longout 2 "$probe" --out "$long" && has longout "characters"; then ok "an --out path over the limit is an error, not truncated"
else bad "a long --out path"; fi
# the material registry on the command line: an unknown model is named with
# the list, before any work; --mu-s belongs to mu-i alone; the probe, which
# runs every model itself, takes no --material
density="$bin/exp_density"
if run mat_bad 2 "$density" --material sand --out "$out/mat_bad" && has mat_bad "drucker-prager, mu-i" && [ ! -e "$out/mat_bad" ]; then
  ok "--material sand: exit 2 naming the registered models, before any output"
else bad "--material with an unknown model"; fi
if run mat_mus 2 "$density" --mu-s 0.5 --out "$out/mat_mus" && has mat_mus "only mu-i" && [ ! -e "$out/mat_mus" ]; then
  ok "--mu-s without --material mu-i: exit 2"
else bad "--mu-s without mu-i"; fi
if run mat_bad2 2 "$density" --material sand --out "$out/mat_bad2" && has mat_bad2 "ngf"; then
  ok "--material sand: the list names the nonlocal model too"
else bad "--material's list and ngf"; fi
if run mat_gd 2 "$density" --grain-d 1e-3 --out "$out/mat_gd" && has mat_gd "grain size" && [ ! -e "$out/mat_gd" ]; then
  ok "--grain-d without a model that has a grain: exit 2"
else bad "--grain-d with Drucker-Prager"; fi
if run mat_gd2 2 "$density" --material ngf --grain-d 0.2 --out "$out/mat_gd2" && has mat_gd2 "grain-d" && [ ! -e "$out/mat_gd2" ]; then
  ok "--grain-d 0.2 m: outside its range, exit 2"
else bad "--grain-d out of range"; fi
if run mat_a 2 "$density" --material mu-i --ngf-a 0 --out "$out/mat_a" && has mat_a "only ngf" && [ ! -e "$out/mat_a" ]; then
  ok "--ngf-a with mu-i: exit 2"
else bad "--ngf-a without ngf"; fi
# --youngs: any model's stiffness, range-checked before any output; a sweep's
# plan records it, and a point given another stiffness is refused
if run mat_e 2 "$density" --youngs 10 --out "$out/mat_e" && has mat_e "youngs" && has mat_e "1000" && [ ! -e "$out/mat_e" ]; then
  ok "--youngs 10 Pa: outside its range, exit 2 naming it, before any output"
else bad "--youngs out of range"; fi
if run mat_e_plan 0 "$bin/exp_rft" --plan --quiet --youngs 3.5e6 --out "$out/mat_e_plan" &&
  grep -qx "youngs	3500000" "$out/mat_e_plan/sweep.txt" &&
  run mat_e_point 2 "$bin/exp_rft" --point 0 --quiet --youngs 1e6 --out "$out/mat_e_plan" &&
  has mat_e_point "youngs 3500000 there, youngs 1000000 here"; then
  ok "--youngs is part of a sweep's settings: a point with another is refused"
else bad "--youngs in a sweep's settings"; fi
# --cone: a word from bg_dp_cone, Drucker-Prager only, refused by an
# experiment that sets the cone itself; part of a sweep's settings
if run mat_c 2 "$density" --cone plane --out "$out/mat_c" && has mat_c "compression, extension, plane-strain" &&
  [ ! -e "$out/mat_c" ]; then
  ok "--cone plane: not a cone's name, exit 2 listing them, before any output"
else bad "--cone's names"; fi
if run mat_c2 2 "$density" --material mu-i --cone plane-strain --out "$out/mat_c2" && has mat_c2 "only drucker-prager" &&
  [ ! -e "$out/mat_c2" ]; then
  ok "--cone with mu-i: exit 2"
else bad "--cone without drucker-prager"; fi
if run mat_c3 2 "$bin/exp_wall" --cone extension --out "$out/mat_c3" && has mat_c3 "sets its cone itself" &&
  [ ! -e "$out/mat_c3" ]; then
  ok "exp_wall refuses --cone (its cone is plane strain's by design), before any output"
else bad "exp_wall and --cone"; fi
if run mat_c_plan 0 "$bin/exp_rft" --plan --quiet --cone plane-strain --out "$out/mat_c_plan" &&
  grep -qx "cone	plane-strain" "$out/mat_c_plan/sweep.txt" &&
  run mat_c_point 2 "$bin/exp_rft" --point 0 --quiet --out "$out/mat_c_plan" &&
  has mat_c_point "cone plane-strain there"; then
  ok "--cone is part of a sweep's settings: a point without it is refused"
else bad "--cone in a sweep's settings"; fi
if run mat_probe 2 "$probe" --material mu-i --out "$out/mat_probe" && has mat_probe "takes no --material"; then
  ok "the probe refuses --material"
else bad "the probe and --material"; fi
# a registered model an executable cannot use (bg_lab_accept_materials):
# refused naming what it needs, before any output
if run mat_take 2 "$bin/demo_surrogate" --material mu-i --out "$out/mat_take" &&
  has mat_take "needs Drucker-Prager" && [ ! -e "$out/mat_take" ]; then
  ok "--material mu-i to a Drucker-Prager demo: exit 2 naming what it needs, before any output"
else bad "a demo given a model it cannot use"; fi
for m in water elastic snow von-mises; do
  run "mat_$m" 2 "$density" --material "$m" --out "$out/mat_$m"
  has "mat_$m" "not a registered" && continue # a model this build does not have
  if has "mat_$m" "needs a granular model" && [ ! -e "$out/mat_$m" ]; then
    ok "--material $m to exp_density: exit 2, it needs a granular model, before any output"
  else bad "exp_density given the non-granular $m"; fi
done
# --seeding poisson: only the column experiments seed through bg_column; the others refuse it
if run seed_take 2 "$density" --seeding poisson --out "$out/seed_take" &&
  has seed_take "exp_runout, exp_repose and exp_cohesion" && [ ! -e "$out/seed_take" ]; then
  ok "--seeding poisson to exp_density: exit 2 naming the experiments that take it, before any output"
else bad "an experiment that seeds its own lattice given --seeding poisson"; fi
if run seed_bad 2 "$bin/exp_runout" --seeding hex --out "$out/seed_bad" && has seed_bad "lattice, poisson"; then
  ok "--seeding hex: exit 2 naming lattice, poisson"
else bad "--seeding with an unknown pattern"; fi
if grep -q "'$out/re use'" "$out/re use/manifest.json"; then ok "the manifest's command is shell-quoted"
else bad "the manifest's command is shell-quoted"; fi

# --- 7. progress on long runs ---------------------------------------------------------
density="$bin/exp_density"
if [[ -x "$density" ]]; then
  # a small block that never comes to rest runs a few seconds: many 0.2 s
  # progress intervals; the quiet run has the same interval, so the lines it
  # must not print would be there without --quiet
  small=(--time 0.3 --rest-ke 1e-9 --block 0.08 --block-height 0.04)
  if BAGNOLD_PROGRESS_S=0.2 run progress 0 "$density" "${small[@]}" --out "$out/progress" ||
    [[ $rc == 1 ]]; then
    if grep -q "particle-steps/s, at most .* left" "$out/progress.log"; then
      ok "a long run reports simulated time, particle-steps/s and the time left"
    else bad "progress lines with the time left"; fi
  else bad "progress run"; fi
  if BAGNOLD_PROGRESS_S=0.2 run quiet 0 "$density" --quiet "${small[@]}" --out "$out/quiet" || [[ $rc == 1 ]]; then
    if ! grep -q "left" "$out/quiet.log"; then ok "--quiet silences the progress"; else bad "--quiet still prints progress"; fi
  else bad "quiet run"; fi
  if run paperwarn 2 "$density" --scale paper --backend cpu --out "$out/a-file" && has paperwarn "takes hours"; then
    ok "a paper-scale run on the CPU warns before it starts"
  else bad "the paper-on-CPU warning"; fi
fi

# --- 8. a recorded paper run judges its entry's standard run only ------------------
# exp_wall's paper record (reports/results/h100/wall) refutes the standard quick
# run's passes (exp_wall.quick expects that); a run fed other inputs is another
# experiment, which the record must not judge: its passes are passes, and the
# table's "refuted" (the standard run's) is not held against it (exit 0).
wall="$bin/exp_wall"
if [[ -x "$wall" ]]; then
  tiny=(--cells 6,8 --travel 0.02 --window-lo 0.005 --window-hi 0.015 --settle 0.1 --rest 0.05 --quiet)
  if run wallother 0 "$wall" "${tiny[@]}" --references "$refs" --out "$out/wallother" &&
    grep -q $'^wall.active_rankine\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\tpass\t[^\t]*\tpass\t.*recorded for wall only; here --cells 6,8' \
      "$out/wallother/claims.tsv"; then
    ok "a run at other inputs (--cells 6,8) is not judged by the entry's recorded paper run"
  else bad "the paper record applied to a run at other inputs"; fi
fi

echo "$n cases, $fails failed"
exit $((fails ? 1 : 0))
