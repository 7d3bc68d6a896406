# heap_angle.gp: the poured heap's flank angle while it grows (left: the
# line fit of its profile over 0.2-0.8 h_max, columns outside the funnel's
# footprint, against time, one curve per grid; the grey bar marks the pour)
# and the settled angles against grid spacing (right: the poured heap, the
# collapse of the same sand and mass, and the flow angle theta_flow of the
# fed friction, references/derivations/poured_heap.md sec. 1).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/heap_angle.gp
#
# Reads, by column name, RUN_DIR/final.tsv (cells_per_R0, dx_m,
# theta_heap_deg, theta_collapse_deg, theta_flow_fed_deg), series_gN.tsv
# (t_s, theta_deg, mass_frac; N = 0 for the coarsest grid); the pour ends
# where the finest grid's mass_frac first reaches 0.999.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

ff = in."/final.tsv"
stats ff using "cells_per_R0" nooutput; ng = STATS_records
cells = ""; do for [g = 0:ng - 1] { stats ff every ::g::g using "cells_per_R0" nooutput; cells = cells.sprintf(" %d", STATS_min) }
stats ff using "theta_flow_fed_deg" nooutput; th_flow = STATS_max
stats ff using (column("dx_m") * 1e3) nooutput; dxmax = STATS_max
# the pour's end on the finest grid: the first row whose emitted mass reaches the target
t_pour = 0
stats in.sprintf("/series_g%d.tsv", ng - 1) using (column("mass_frac") >= 0.999 && t_pour == 0 ? (t_pour = column("t_s")) : 0) nooutput
fig_w = 1400
fig_h = 650

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 1, 2 title "Poured heap: flank angle while it grows and settled, beside the collapse of the same sand"
  set xlabel "time  t  [s]"
  set ylabel "flank angle  θ  [deg]   (fit 0.2–0.8 h_{max})"
  set yrange [0:*]
  set xrange [0:*]
  set key bottom right
  set object 1 rect from 0, graph 0 to t_pour, graph 1 fc rgb "#f0f0f0" fs solid 1.0 noborder behind
  plot th_flow with lines dt 3 lw 2 lc rgb "#1b7837" title sprintf("θ_{flow} = %.1f°", th_flow), \
       for [g = 0:ng - 1] in.sprintf("/series_g%d.tsv", g) using "t_s":"theta_deg" with lines lw 2 \
         lc rgb series_color(1 + int(g * 5.0 / (ng > 1 ? ng - 1 : 1))) title sprintf("R_0/dx = %s", word(cells, g + 1))
  unset object 1
  set xlabel "grid spacing  dx  [mm]"
  set ylabel "settled flank angle  θ  [deg]   (repose estimator, 0.2–0.8 h_{max})"
  set xrange [0:dxmax * 1.15]
  set key bottom left
  plot th_flow with lines dt 3 lw 2 lc rgb "#1b7837" title "θ_{flow} of the fed friction", \
       ff using (column("dx_m") * 1e3):"theta_heap_deg" with linespoints pt 7 ps 1.4 lw 2 lc rgb "#1f4e9c" title "poured heap", \
       ff using (column("dx_m") * 1e3):"theta_collapse_deg" with linespoints pt 5 ps 1.4 lw 2 lc rgb "#c2185b" title "collapse (same sand, mass)"
  unset multiplot
  unset output
}
