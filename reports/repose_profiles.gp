# repose_profiles.gp: the settled deposit's radially averaged height profile
# h(r) per grid (coarse to fine), normalised by the column's initial height
# H0 and radius R0, with the plane-strain ridge's h(x) at the finest dx
# (dashed) and the initial column outline (grey). The shaded band is the
# mid-flank range 0.2–0.8 h_max of the finest grid, where the estimators fit.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_profiles.gp
#
# Reads, by column name, RUN_DIR/convergence.tsv (one row per grid,
# cells_per_R0, h_max_m), RUN_DIR/profile_dxN.tsv (r_over_R0, h_m,
# h_over_H0), N = 0 for the coarsest grid, and profile_ridge.tsv (x_over_R0,
# h_over_H0).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fc = in."/convergence.tsv"
stats fc using "cells_per_R0" nooutput; ng = STATS_records
cells = ""; do for [g = 0:ng - 1] { stats fc every ::g::g using "cells_per_R0" nooutput; cells = cells.sprintf(" %d", STATS_min) }
stats fc every ::(ng - 1)::(ng - 1) using "h_max_m" nooutput; hmax_m = STATS_min
stats in."/profile_dx0.tsv" using "h_m":"h_over_H0" nooutput; H0 = STATS_max_x / STATS_max_y
set object 1 rect from graph 0, first 0.2 * hmax_m / H0 to graph 1, first 0.8 * hmax_m / H0 \
  fc rgb "#eeeeee" fs solid 1.0 noborder behind
set xlabel "r / R_0   (ridge: x / R_0)"
set ylabel "deposit height  h / H_0"
set title "Settled deposit profiles per grid (shaded: mid-flank band of the finest grid)"
set key top right
set xrange [0:*]
set arrow 2 from 0, 1 to 1, 1 nohead lw 1.5 lc rgb "#999999" back
set arrow 3 from 1, 1 to 1, 0 nohead lw 1.5 lc rgb "#999999" back
set yrange [0:1.1]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [g = 0:ng - 1] in.sprintf("/profile_dx%d.tsv", g) using "r_over_R0":"h_over_H0" with linespoints pt 7 ps 0.5 lw 2 \
         lc rgb series_color(1 + int(g * 5.0 / (ng > 1 ? ng - 1 : 1))) title sprintf("pile, R_0/dx = %s", word(cells, g + 1)), \
       in."/profile_ridge.tsv" using "x_over_R0":"h_over_H0" with lines dt 2 lw 2 lc rgb "#c2185b" title sprintf("ridge, R_0/dx = %s", word(cells, ng)), \
       NaN with lines lw 1.5 lc rgb "#999999" title "initial column"
  unset output
}
