#!/usr/bin/env bash
# paper_runs.sh: the paper-scale experiment runs and the parity check on a GPU
# machine, from binaries built elsewhere (a device call is too short to spend
# minutes compiling). Each step's output goes to OUTDIR/STEP.log, and each
# experiment's result folder is packed into OUTDIR/STEP.tar.gz, so that a run
# cut short by the call's limit still brings back what it wrote.
#
# usage: scripts/gpu/paper_runs.sh OUTDIR STEP[:SECONDS]...
#   steps: parity    test_parity on "cuda" and "cuda/global" (free fall, column, silo)
#          gputests  the other cuda unit tests (api, conservation, boundary, elastic, index64,
#                    multi, checkpoint, source, 2d)
#          matcost   bench_gpu --material-table both: the one-material throughput through
#                    the material table against the one-material path, as a ratio (issue 33)
#          NAME      every experiments/registry.tsv entry with paper_args: BINARY PAPER_ARGS,
#                    e.g. silo: exp_silo --scale paper --backend cuda --jobs 6
#                    (scripts/gpu/paper_runs.sh --list prints them)
#   SECONDS: the step's time limit (default 300)
# environment:
#   BAGNOLD_BIN      the binaries (default <repo>/build-dev/bin; scripts/gpu/carry_bins.sh packs them
#                    here and unpacks them there, setting this, GSL_LIB and BAGNOLD_COMMIT)
#   GSL_LIB          a folder holding libgsl.so.* when the machine has none
#   KEEP_FRAMES      1: the step's tarball keeps the VTU frames (default: left out, as are the
#                    checkpoints, always: too large to come back from a device call)
#   EXTRA_<STEP>     further options for that step's command, e.g. EXTRA_REPOSE="--grids 5"
#                    ('-' in a step's name becomes '_': EXTRA_RUNOUT_MUI)
# No environment tunes a backend: an experiment's --backend (and the properties
# it passes) is what runs, and each manifest records what the sim reports.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
registry="$root/experiments/registry.tsv"
# the experiment steps: name -> "binary paper_args args" from the registry (name binary
# sources timeout jobs figures paper_args args gate; "-" for none)
declare -A step_cmd=()
step_names=()
while IFS=$'\t' read -r r_name r_bin _ _ _ _ r_paper r_args _; do
  [[ -z "$r_name" || "$r_name" == \#* || "$r_name" == name || "$r_paper" == - || -z "$r_paper" ]] && continue
  [[ "$r_args" == - ]] && r_args=""
  step_cmd[$r_name]="$r_bin $r_paper${r_args:+ $r_args}"
  step_names+=("$r_name")
done <"$registry" || { echo "error: cannot read $registry" >&2; exit 2; }
if [[ "${1:-}" == --list ]]; then
  for s in "${step_names[@]}"; do printf '%s\t%s\n' "$s" "${step_cmd[$s]}"; done
  exit 0
fi
(($# >= 2)) || { echo "usage: $0 OUTDIR STEP[:SECONDS]... (steps: parity gputests ${step_names[*]})" >&2; exit 2; }
out="$1"
shift
mkdir -p -- "$out" && out="$(cd "$out" && pwd -P)" || exit 2
bin="${BAGNOLD_BIN:-$root/build-dev/bin}"
[[ -d "$bin" ]] || { echo "error: no binaries in $bin (set BAGNOLD_BIN)" >&2; exit 2; }
[[ -n "${GSL_LIB:-}" ]] && export LD_LIBRARY_PATH="$GSL_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
summary="$out/summary.txt"
: >>"$summary"
note() { printf '%s\n' "$*" | tee -a "$summary"; }
note "paper_runs: commit ${BAGNOLD_COMMIT:-unknown}, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
status=0
for spec in "$@"; do
  step="${spec%%:*}"
  lim=300
  [[ "$spec" == *:* ]] && lim="${spec#*:}"
  extra_var="EXTRA_${step^^}"
  extra_var="${extra_var//-/_}" # EXTRA_RUNOUT_MUI for the step runout-mui
  read -r -a extra <<<"${!extra_var:-}"
  res="$out/$step"
  case "$step" in
    parity) cmd=(bash -c "\"$bin/test_parity\" cuda && \"$bin/test_parity\" cuda/global") ;;
    matcost) cmd=("$bin/bench_gpu" --material-table both --scene both --reps 5 --out "$res") ;;
    gputests) cmd=(bash -c "for t in api conservation boundary elastic index64 multi checkpoint source 2d; do echo \"== test_\$t\"; \"$bin/test_\$t\" cuda || exit \$?; done; echo \"== test_2d parity\"; \"$bin/test_2d\" cuda parity") ;;
    *)
      if [[ -z "${step_cmd[$step]:-}" ]]; then
        note "SKIP  $step (unknown step; steps: parity gputests ${step_names[*]})"
        status=1
        continue
      fi
      read -r -a cmd <<<"${step_cmd[$step]}"
      cmd[0]="$bin/${cmd[0]}"
      ;;
  esac
  # a step whose binary was not carried is refused here, not halfway
  if [[ ! -x "${cmd[0]}" && "$step" != gputests && "$step" != parity ]]; then
    note "FAIL  $step (no executable ${cmd[0]}: build it into BAGNOLD_BIN)"
    status=1
    continue
  fi
  [[ "$step" == parity || "$step" == gputests || "$step" == matcost ]] || cmd+=(--references "$root/references" --out "$res")
  cmd+=("${extra[@]}")
  t0=$SECONDS
  note "run   $step (limit $lim s): ${cmd[*]}"
  timeout "$lim" "${cmd[@]}" >"$out/$step.log" 2>&1
  rc=$?
  case $rc in
    0) note "PASS  $step ($((SECONDS - t0)) s)" ;;
    1) note "DONE  $step ($((SECONDS - t0)) s): exit 1 (an unexpected verdict; before the exit-code contract, any failed claim: see the log)" ;;
    124) note "CUT   $step (timed out after $lim s)"; status=1 ;;
    *) note "FAIL  $step (exit $rc, $((SECONDS - t0)) s)"; status=1 ;;
  esac
  # checkpoints are for resuming on this machine, which goes back after the
  # call; they and the VTU frames (hundreds of MB at paper scale) would not
  # come back through the call's file limits, and packing them took a whole
  # call's limit twice (2026-12-06), so they stay out unless KEEP_FRAMES=1
  excl=(--exclude='*.bgck')
  [[ "${KEEP_FRAMES:-0}" == 1 ]] || excl+=(--exclude='*.vtu' --exclude='*.pvd' --exclude='*.vtk')
  [[ -d "$res" ]] && tar -czf "$out/$step.tar.gz" "${excl[@]}" -C "$out" "$step" && rm -rf -- "$res"
done
exit $status
