#!/usr/bin/env bash
# runs.sh OUT: every run of this record (README.md), on the CPU, one thread a drag, into OUT; the
# executables from $BAGNOLD_BIN (default build/bin). About 3 CPU-hours in all; each drag is one
# point of a sweep run alone (exp_rft --plan, then --point K with the same options).
set -u
(($# == 1)) || { echo "usage: $0 OUT" >&2; exit 2; }
B=${BAGNOLD_BIN:-build/bin}; O=$1; here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
one() { # NAME POINT OPTIONS...: plan, then that one point
  local n=$1 k=$2; shift 2
  "$B/exp_rft" --plan --quiet --out "$O/$n" --backend cpu --threads 1 --phi-control 0 "$@" &&
    "$B/exp_rft" --point "$k" --out "$O/$n" --backend cpu --threads 1 --phi-control 0 "$@" >"$O/$n.log" 2>&1
}
shape() { # NAME OPTIONS...: the quick shape set (points 0-7), two at a time, then its fit
  local n=$1; shift
  "$B/exp_rft" --plan --quiet --out "$O/$n" --backend cpu --threads 1 --phi-control 0 "$@" || return
  seq 0 7 | xargs -P 2 -I{} sh -c "\"$B/exp_rft\" --point {} --out \"$O/$n\" --backend cpu --threads 1 --phi-control 0 $* > \"$O/$n/point{}.log\" 2>&1"
  python3 "$here/../rft-stiff/shape_fit.py" "$O/$n"/point[0-7].log >"$O/$n/fit.tsv"
}
F="--betas 0 --gammas 90"   # the flat plate pushed down
V="--betas 90 --gammas 0"   # the vertical plate dragged horizontally
E=3.537e5
# the compression cone (the default) at other grids: is the stiffness dependence the grid's?
for e in 1 10; do one "comp_${e}E_s1_c24" 0 $F --side 1 --cells 24,28 --youngs $(python3 -c "print($e*$E)"); done
one comp_10E_s1_c16 0 $F --side 1 --cells 16,20 --youngs 3.537e6
one comp_100E_s1_c16 0 $F --side 1 --cells 16,20 --youngs 3.537e7
# the plane-strain cone: stiffness, bed width, the plate dragged
for e in 1 10 100; do one "ps_${e}E_s1" 0 $F --side 1 --cone plane-strain --youngs $(python3 -c "print($e*$E)"); done
for s in 5 8; do one "ps_1E_s$s" 0 $F --side $s --cone plane-strain; done
for e in 10 30; do one "ps_${e}E_s8" 0 $F --side 8 --cone plane-strain --youngs $(python3 -c "print($e*$E)"); done
for e in 1 10; do one "ps_${e}E_drag" 0 $V --cone plane-strain --youngs $(python3 -c "print($e*$E)"); done
# the quick shape sets with the plane-strain cone, and the coarse 2D twins of the 3D sets
shape psE --cone plane-strain
shape ps10E --cone plane-strain --youngs 3.537e6
shape ps30E --cone plane-strain --youngs 1.061e7
shape c8ps2d --cells 8,12 --aspect 2 --cone plane-strain
shape c8c2d --cells 8,12 --aspect 2
# the flat plate pushed down in a 3D bed at 10 E (../rft-3d has it at E), 1 centre depth beside
one w3f10 0 $F --cells 8,12 --aspect 2 --depths 1.5,2.5 --width 0.667 --across 1 --side 1 --youngs 3.537e6
