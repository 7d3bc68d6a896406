# repose_bands.gp: the deposit's flank angle in three fixed height bands of
# the column height H0 (foot 0.05-0.2, lower 0.2-0.4, upper 0.4-0.6; profile
# line fits) against grid spacing dx, with the fed friction angle phi
# (dashed) and the recorded paper run's lower band shifted by this run's
# fed angle (references/baselines/repose_lower_band.tsv; repose.lower_band's
# prediction) when the run wrote lower_band.tsv: the bands behave
# differently under refinement, and only the lower one is claimed.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_bands.gp
#
# Reads, by column name, RUN_DIR/bands.tsv (cells_per_R0, dx_over_R0,
# foot_deg, lower_deg, upper_deg) and fit.tsv (phi_fed_deg).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fb = in."/bands.tsv"
stats in."/fit.tsv" using "phi_fed_deg" nooutput; phi = STATS_min
ymin = 1e30; ymax = phi
do for [b in "foot_deg lower_deg upper_deg"] {
  stats fb using b nooutput; ymin = STATS_min < ymin ? STATS_min : ymin; ymax = STATS_max > ymax ? STATS_max : ymax
}
stats fb using "dx_over_R0" nooutput; hmax = STATS_max
base = here."../references/baselines/repose_lower_band.tsv"
set xrange [0:hmax * 1.08]
set yrange [ymin - 2:ymax + 2]
set xlabel "grid spacing  dx / R_0"
set ylabel "flank angle  θ  [deg]"
set title sprintf("Flank angle by height band against dx\n{/*0.85 fed φ = %g°; the lower band is claimed (repose.lower\\_band), the others are reported}", phi)
set key outside below center maxcols 3
fig_h = 760
set bmargin 11

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot phi with lines dt 2 lw 2 lc rgb "#b00020" title sprintf("fed φ = %g°", phi), \
       base using "dx_over_R0":(column("lower_deg") - column("phi_fed_deg") + phi) with lines dt 4 lw 1.5 lc rgb series_color(3) title "lower band predicted (paper baseline + fed φ)", \
       fb using "dx_over_R0":"foot_deg" with linespoints pt 4 ps 1.3 lw 1.5 lc rgb series_color(6) title "foot 0.05–0.2 H_0", \
       fb using "dx_over_R0":"lower_deg" with linespoints pt 7 ps 1.5 lw 2 lc rgb series_color(3) title "lower 0.2–0.4 H_0", \
       fb using "dx_over_R0":"upper_deg" with linespoints pt 5 ps 1.3 lw 1.5 lc rgb series_color(1) title "upper 0.4–0.6 H_0"
  unset output
}
