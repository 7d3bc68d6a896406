#!/usr/bin/env bash
# slurm_sweep.sh NAME REFERENCE OUTDIR [EXPERIMENT ARGS...]: the sweep NAME
# (scripts/sweep) through a real Slurm, end to end, on this machine.
#
#  1. installs Debian's slurm-wlm and munge where they are missing (as root;
#     otherwise, or where apt cannot, it skips with 77 and says why);
#  2. starts munged and a single-node cluster on localhost: slurmctld and
#     slurmd with a slurm.conf written to a temporary folder, this machine's
#     cores as the node's CPUs (skip 77 when the daemons do not come up);
#  3. submits the sweep with scripts/sweep --slurm (a job array of points, the
#     gather as an afterok job);
#  4. kills one point's process (SIGKILL) after its first checkpoint, as a
#     pre-empted or crashed task: its task re-queues itself, and the point
#     must resume from the checkpoint;
#  5. once the gather has run, every TSV of OUTDIR/sweep (claims.tsv
#     included) must equal REFERENCE's byte for byte (REFERENCE: the same
#     experiment run as one process with the same arguments, e.g. the quick
#     ctest's folder; "-" runs it here, into OUTDIR/one, while the cluster
#     starts), and so must every figure the registry lists for NAME, drawn
#     by gnuplot from each folder;
#  6. stops the daemons it started, by the PIDs in their pid files.
set -uo pipefail
(($# >= 3)) || { echo "usage: $0 NAME REFERENCE OUTDIR [EXPERIMENT ARGS...]" >&2; exit 2; }
name="$1" ref="$2" out="$3"
shift 3
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
SECONDS=0
say() { printf 'slurm_sweep [%4ds]: %s\n' "$SECONDS" "$*"; }
skip() { say "SKIP: $*"; exit 77; }
fail() { say "FAIL: $*"; exit 1; }

rm -rf -- "$out"
mkdir -p -- "$out" || fail "cannot create $out"
out="$(cd "$out" && pwd -P)"
if [[ "$ref" != - ]]; then
  [[ -f "$ref/claims.tsv" ]] || fail "the reference run $ref has no claims.tsv (run its quick test first)"
fi
one_pid=""

# 1. packages
missing=()
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
if ((${#missing[@]})); then
  ((EUID == 0)) || skip "${missing[*]} missing, and installing them needs root"
  command -v apt-get >/dev/null || skip "${missing[*]} missing and no apt-get here"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "${missing[@]}" >"$out/apt.log" 2>&1; then
    apt-get update >>"$out/apt.log" 2>&1
    apt-get install -y --no-install-recommends "${missing[@]}" >>"$out/apt.log" 2>&1 ||
      skip "apt-get could not install ${missing[*]} (see $out/apt.log)"
  fi
fi
((EUID == 0)) || skip "the single-node cluster runs its daemons as root (SlurmUser=root): not root here"

work="$(mktemp -d /tmp/bagnold-slurm.XXXXXX)" || fail "mktemp"
munge_pid=""
cleanup() {
  if [[ -n "${SLURM_CONF:-}" ]] && command -v scancel >/dev/null; then scancel --user=root >/dev/null 2>&1; fi
  for f in "$work/run/slurmd.pid" "$work/run/slurmctld.pid"; do
    [[ -s "$f" ]] && kill "$(cat "$f")" 2>/dev/null
  done
  [[ -n "$munge_pid" ]] && kill "$munge_pid" 2>/dev/null
  [[ -n "$one_pid" ]] && kill "$one_pid" 2>/dev/null
  sleep 1
  for f in "$work/run/slurmd.pid" "$work/run/slurmctld.pid"; do
    [[ -s "$f" ]] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  rm -rf -- "$work"
}
trap cleanup EXIT

if [[ "$ref" == - ]]; then
  # the one-process run of the same arguments, beside the cluster's start-up
  bin="$(awk -F'\t' -v n="$name" '!/^#/ && $1 == n { print $2 }' "$root/experiments/registry.tsv")"
  [[ -n "$bin" ]] || fail "no experiment $name in experiments/registry.tsv"
  bin="${BAGNOLD_BUILD_DIR:?BAGNOLD_BUILD_DIR names the build tree}/bin/$bin"
  ref="$out/one"
  "$bin" --threads 1 --quiet --out "$ref" "$@" >"$out/one.log" 2>&1 &
  one_pid=$!
fi

# 2. munge, then the cluster
if ! (munge -n | unmunge) >/dev/null 2>&1; then
  key=/etc/munge/munge.key
  mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
  [[ -s "$key" ]] || dd if=/dev/urandom of="$key" bs=1024 count=1 status=none || skip "cannot write $key"
  chown munge:munge "$key" /etc/munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null ||
    skip "no munge user to own $key"
  chmod 400 "$key"
  runuser -u munge -- /usr/sbin/munged >"$out/munged.log" 2>&1 || skip "munged did not start (see $out/munged.log)"
  munge_pid="$(cat /run/munge/munged.pid 2>/dev/null)"
  (munge -n | unmunge) >/dev/null 2>&1 || skip "munge does not answer after starting munged"
fi
host="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$work"/{state,spool,run,log}
cat >"$work/slurm.conf" <<EOF
ClusterName=bagnoldtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobRequeue=1
MinJobAge=600
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF" >"$out/slurmctld.out" 2>&1 || skip "slurmctld did not start (see $out/slurmctld.out)"
slurmd -f "$SLURM_CONF" >"$out/slurmd.out" 2>&1 || skip "slurmd did not start (see $out/slurmd.out)"
up=0
for ((i = 0; i < 60; ++i)); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then up=1; break; fi
  sleep 1
done
cp "$work/log/"*.log "$out/" 2>/dev/null
((up)) || skip "the node did not come up in 60 s (sinfo: $(sinfo -h 2>&1 | head -c 200); logs in $out)"
say "cluster up: node $host with $cpus CPUs"

# 3. the sweep, one CPU per task
sweep="$out/sweep"
# (a checkpoint every 0.1 s of wall time: the test's longest point takes about
# a second on one core, and the kill below must find it running with one)
bash "$root/scripts/sweep" "$name" --out "$sweep" --checkpoint-every 0.1 --slurm --cpus-per-task=1 -- "$@" \
  >"$out/submit.log" 2>&1 || { cat "$out/submit.log"; fail "scripts/sweep --slurm failed"; }
aid="$(awk '$1 == "array" { print $2 }' "$sweep/logs/jobs.txt")"
gid="$(awk '$1 == "gather" { print $2 }' "$sweep/logs/jobs.txt")"
[[ -n "$aid" && -n "$gid" ]] || fail "no job ids in $sweep/logs/jobs.txt"
say "submitted array $aid, gather $gid"

# 4. kill one running point once it has checkpointed (the longest has time left)
killed=""
for ((i = 0; i < 6000; ++i)); do
  [[ -z "$killed" ]] || break
  for d in "$sweep"/points/*/; do
    k="$(basename "$d")"
    [[ -e "$d/RUNNING" ]] || continue
    compgen -G "$d/checkpoints/*.bgck" >/dev/null || continue
    pid="$(awk '$1 == "pid" { print $2 }' "$d/RUNNING" | tail -n 1)"
    [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null && { killed="$k"; break; }
  done
  [[ -n "$killed" ]] || sleep 0.05
done
[[ -n "$killed" ]] || fail "no point was running with a checkpoint to kill within 300 s"
say "killed point $killed (SIGKILL) after its first checkpoint"
# Slurm holds a re-queued job for a while (Reason=BeginTime, about 2-3
# minutes here); release it at once, as an admin would, to keep the test short
for ((i = 0; i < 120; ++i)); do
  r="$(squeue -h -j "${aid}_$killed" -o '%T %r' 2>/dev/null)"
  if [[ "$r" == "PENDING BeginTime" ]]; then
    scontrol update JobId="${aid}_$killed" StartTime=now >/dev/null 2>&1 && say "released the re-queued task ${aid}_$killed"
    break
  fi
  [[ -z "$r" || "$r" == RUNNING* ]] && [[ -s "$sweep/logs/point-$killed.log" ]] &&
    grep -q "attempt 2" "$sweep/logs/point-$killed.log" && break
  sleep 0.5
done

# 5. the gather, then the comparison
for ((i = 0; i < 1800; ++i)); do
  st="$(squeue -h -j "$gid" -o '%T' 2>/dev/null)"
  [[ -z "$st" ]] && break
  if [[ "$st" == PENDING ]] && squeue -h -j "$gid" -o '%r' | grep -q DependencyNeverSatisfied; then
    fail "the gather can never run: a point failed for good (scripts/sweep $name --status --out $sweep)"
  fi
  sleep 1
done
[[ -z "$(squeue -h -j "$gid" -o '%T' 2>/dev/null)" ]] || fail "the gather has not run after 30 minutes"
cp "$work/log/"*.log "$out/" 2>/dev/null
bash "$root/scripts/sweep" "$name" --status --out "$sweep" >"$out/status.txt" 2>&1
grep -q "attempt 2" "$sweep/logs/point-$killed.log" ||
  fail "point $killed was not re-queued (no second attempt in $sweep/logs/point-$killed.log)"
grep -q "resumed_from" "$sweep/points/$killed/manifest.json" ||
  fail "point $killed did not resume from its checkpoint ($sweep/points/$killed/manifest.json)"
[[ -f "$sweep/claims.tsv" && ! -e "$sweep/RUNNING" && ! -e "$sweep/FAILED" ]] ||
  fail "the gather wrote no complete run (see $sweep/logs/gather.log)"
if [[ -n "$one_pid" ]]; then
  rc=0
  wait "$one_pid" || rc=$?
  one_pid=""
  # 1: a claim failed, as runs this short may
  ((rc == 0 || rc == 1)) || fail "the one-process run exited $rc (see $out/one.log)"
fi
n=0
for f in "$ref"/*.tsv; do
  b="$(basename "$f")"
  cmp -s "$f" "$sweep/$b" || fail "$b differs between the one-process run ($ref) and the gathered sweep"
  n=$((n + 1))
done
for f in "$sweep"/*.tsv; do
  b="$(basename "$f")"
  [[ "$b" == plan.tsv || -f "$ref/$b" ]] || fail "the gathered sweep wrote $b, which the one-process run did not"
done
((n >= 5)) || fail "only $n TSV files compared"
# the figures, drawn alike from each folder through the same path
figs="$(awk -F'\t' -v n="$name" '!/^#/ && $1 == n { print $6 }' "$root/experiments/registry.tsv")"
nf=0
if command -v gnuplot >/dev/null && [[ "$figs" != "-" ]]; then
  # a figure the short sweep has no data for (a fit it cannot make) must
  # fail alike from both folders; at least one must be drawn and compared
  for fg in $figs; do
    drawn=""
    for which in ref sweep; do
      src="$ref"
      [[ "$which" == sweep ]] && src="$sweep"
      ln -sfn "$src" "$work/figsrc"
      mkdir -p "$out/fig-$which"
      if gnuplot -e "in='$work/figsrc'; out='$out/fig-$which/$fg'" "$root/reports/$fg.gp" >/dev/null 2>&1; then
        drawn+="$which "
      fi
    done
    case "$drawn" in
      "ref sweep ") ;;
      "") say "$fg: not drawable from this sweep's data (from either folder)" ;;
      *) fail "gnuplot drew $fg from ${drawn% } only" ;;
    esac
  done
  for f in "$out/fig-ref"/*; do
    [[ -f "$f" ]] || continue
    cmp -s "$f" "$out/fig-sweep/$(basename "$f")" || fail "figure $(basename "$f") differs"
    nf=$((nf + 1))
  done
  ((nf >= 1)) || fail "no figure could be drawn from the sweep's data"
fi
say "PASS: point $killed killed, re-queued and resumed; $n TSV files (claims.tsv included) and $nf figures" \
  "identical to the one-process run"
