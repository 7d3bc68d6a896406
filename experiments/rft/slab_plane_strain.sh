#!/usr/bin/env bash
# slab_plane_strain.sh EXP_RFT OUTDIR [options...]: exp_rft's 3D bed with a plate that spans it
# from slip face to slip face (--width W --across 0) is a slab in plane strain, so its drag must
# read the 2D drag's alphas (the forces per metre across). One drag each (the sweep's point K,
# the first shape plate), compared to 1%: a force not divided by the width, a plate narrower or
# wider than the bed, or a 3D bed that lets sand round the plate's ends all break it.
set -u
(($# >= 3)) || { echo "usage: $0 EXP_RFT OUTDIR WIDTH [exp_rft options]" >&2; exit 2; }
exe=$1 out=$2 width=$3
shift 3
rm -rf "$out"
mkdir -p "$out"
read_alpha() { # LOG -> "alpha_z alpha_x"
  sed -n 's/.*: alpha_z \([-0-9.e+]*\), alpha_x \([-0-9.e+]*\) N\/cm^3.*/\1 \2/p' "$1" | tail -n 1
}
for kind in 2d slab; do
  extra=()
  [[ $kind == slab ]] && extra=(--width "$width" --across 0)
  "$exe" --plan --quiet --out "$out/$kind" "${extra[@]}" "$@" || exit 1
  "$exe" --point 0 --out "$out/$kind" "${extra[@]}" "$@" >"$out/$kind.log" 2>&1 || { cat "$out/$kind.log"; exit 1; }
done
read -r z2 x2 < <(read_alpha "$out/2d.log")
read -r z3 x3 < <(read_alpha "$out/slab.log")
grep -o "particles, grid [0-9x]*" "$out/2d.log" "$out/slab.log"
echo "2D:   alpha_z $z2 alpha_x $x2 N/cm^3"
echo "slab: alpha_z $z3 alpha_x $x3 N/cm^3"
awk -v a="$z2" -v b="$x2" -v c="$z3" -v d="$x3" 'BEGIN {
  m = sqrt(a * a + b * b); dz = c - a; dx = d - b; if (dz < 0) dz = -dz; if (dx < 0) dx = -dx
  if (m > 0 && dz <= 0.01 * m && dx <= 0.01 * m) { print "ok: the slab reads the plane-strain alphas to 1%"; exit 0 }
  print "FAIL: the slab departs from plane strain by more than 1% of |alpha|"; exit 1 }'
