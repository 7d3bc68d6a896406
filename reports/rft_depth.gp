# rft_depth.gp: the reference plate's force per unit depth along its travel,
# one colour per depth of the depth series: above, per the depth below the
# surface before the drag (Li et al.'s convention); below, per the depth
# below the surface the drag leaves ahead of the plate, which the heap it
# pushes up raises (the depth the rft.depth_linear claim reads). RFT's
# linearity in depth shows as curves of one level.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/rft_depth.gp
#
# Data: RUN_DIR/series.tsv, rows of set "depth" (depth_nominal_m, travel_L,
# depth_m, depth_ahead_m, fx_N_m, fz_N_m: the whole contact force per sample)
# and RUN_DIR/alpha.tsv (the plate length from the first row's alpha and force).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

s = in."/series.tsv"
a = in."/alpha.tsv"
# a run recorded before the drags read the surface ahead (f9dee7d) has none
# of this figure's columns: exit status 3 tells the report so
if (!has_col(s, "depth_ahead_m") || !has_col(s, "depth_nominal_m")) {
  print "rft_depth: ".s." predates the surface read-out (no depth_ahead_m): nothing to draw"
  exit status 3
}
depths = system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) if ($i == \"depth_nominal_m\") c = i; h = 1; next} !/^#/ && $1 == \"depth\" {print $c}' '%s' | sort -gu | tr '\\n' ' '", s))
# L from the first depth row of alpha.tsv: alpha_x = -fx / (L |z|)
L = real(system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) n[$i] = i; h = 1; next} !/^#/ && $1 == \"depth\" {printf \"%%.9g\", -$n[\"fx_N_m\"] / ($n[\"alpha_x_N_cm3\"] * 1e6 * $n[\"depth_m\"]); exit}' '%s'", a)))
colors = "#1f77b4 #d62728 #2ca02c #9467bd #e8730c #8c564b #17becf"
near(x, y) = abs(x - y) < 1e-6
F = "sqrt(column(\"fx_N_m\")**2 + column(\"fz_N_m\")**2)"

set xlabel "travel (plate lengths L)"
set key bottom right opaque box  # the force rises from 0 at the start: the lower right is empty
fig_h = 900
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 2,1 title sprintf("Vertical plate (L = %.0f mm) dragged horizontally: |F| / (L |z|) along the travel", L * 1e3)
  set ylabel "per depth below the surface before the drag (N/cm^3)"
  plot for [k = 1:words(depths)] s using "travel_L":(strcol("set") eq "depth" && near(column("depth_nominal_m"), real(word(depths, k))) \
         ? @F / (L * column("depth_m")) * 1e-6 : NaN) with linespoints lw 2 pt 7 ps 0.6 lc rgb word(colors, k) \
         title sprintf("centre %.3g L deep", real(word(depths, k)) / L)
  set ylabel "per depth below the surface ahead (N/cm^3)"
  plot for [k = 1:words(depths)] s using "travel_L":(strcol("set") eq "depth" && near(column("depth_nominal_m"), real(word(depths, k))) \
         ? @F / (L * column("depth_ahead_m")) * 1e-6 : NaN) with linespoints lw 2 pt 7 ps 0.6 lc rgb word(colors, k) \
         title sprintf("centre %.3g L deep", real(word(depths, k)) / L)
  unset multiplot
  unset output
}
