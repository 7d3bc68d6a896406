#!/usr/bin/env bash
# ngf_length.sh: the resolved-length study of issue 31 on a GPU machine.
# repose-ngf with a coarse grain (d = 5 mm, so the cooperativity length
# xi = 2.4-24 mm lies on the grids) on four grids of 64/81/102/128 cells per
# R0 (ratio 1.26), once per fluidity relaxation time t0. The runs are
# checkpointed; a device call is at most 10 minutes, so 'start' launches them
# in their own process sessions (they outlive the call while the machine is
# held) and 'wait' follows them, a later call after another. Each run resumes
# in place from its checkpoints if started again.
#
# usage: scripts/gpu/ngf_length.sh start WORKDIR [T0...]   (default t0: 1e-3 2e-3)
#        scripts/gpu/ngf_length.sh wait WORKDIR SECONDS OUTDIR
#          waits up to SECONDS for the runs, then copies what they wrote
#          (logs, TSV, claims, manifests, no checkpoints) to OUTDIR/ngf-t0-*.tar.gz
# environment: BAGNOLD_BIN (default <repo>/build-dev/bin), GSL_LIB, CELLS (64),
#              GRIDS (4), RATIO (1.26)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
bin="${BAGNOLD_BIN:-$root/build-dev/bin}"
[[ -n "${GSL_LIB:-}" ]] && export LD_LIBRARY_PATH="$GSL_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmd="${1:-}" work="${2:-}"
[[ -n "$cmd" && -n "$work" ]] || { echo "usage: $0 start|wait WORKDIR ..." >&2; exit 2; }
mkdir -p "$work" || exit 2
case "$cmd" in
  start)
    shift 2
    (($#)) || set -- 1e-3 2e-3
    for t0 in "$@"; do
      dir="$work/ngf-t0-$t0"
      resume=(--force)
      [[ -d "$dir/checkpoints" ]] && resume=(--resume "$dir")
      mkdir -p "$dir"
      setsid nohup "$bin/exp_repose" --scale paper --backend cuda --material ngf --grain-d 5e-3 --domain 3.5 \
        --cells-coarse "${CELLS:-64}" --grids "${GRIDS:-4}" --grid-ratio "${RATIO:-1.26}" --ngf-t0 "$t0" \
        --checkpoint-every 60 --references "$root/references" --out "$dir" "${resume[@]}" \
        >>"$work/ngf-t0-$t0.log" 2>&1 </dev/null &
      echo "started t0 $t0 (pid $!) into $dir"
    done
    ;;
  wait)
    secs="$3" out="$4"
    mkdir -p "$out"
    end=$((SECONDS + secs))
    while ((SECONDS < end)) && pgrep -f "exp_repose.*--ngf-t0" >/dev/null; do sleep 5; done
    for log in "$work"/ngf-t0-*.log; do
      t=$(basename "$log" .log)
      echo "== $t: $(grep -c 'claims of' "$log") finished; last lines:"
      tail -n 4 "$log"
      tar -czf "$out/$t.tar.gz" -C "$work" --exclude=checkpoints "$t" "$t.log" 2>/dev/null
    done
    pgrep -fa "exp_repose.*--ngf-t0" || echo "no run left"
    ;;
  *) echo "usage: $0 start|wait WORKDIR ..." >&2; exit 2 ;;
esac
