# dambreak_front.gp: the dam break's surge front Z = x/a against
# T = t sqrt(n^2 g / a), one curve per grid, over Martin & Moyce's (1952)
# points: Table 2 (a = 2.25 in) and Fig. 3's smaller column (a = 1.125 in),
# both n^2 = 2; and the finest grid shifted by the lag that fits best
# (dambreak.front_lagged).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/dambreak_front.gp
#
# Reads RUN_DIR/front.tsv (cells_per_a, dx_m, T, Z_toe, Z_floor_mean; the
# grids one after another), RUN_DIR/mm_points.tsv (series, T, Z; series
# table2 and fig3_small) and RUN_DIR/convergence.tsv (cells_per_a,
# best_lag_T; one row per grid, coarsest first).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/front.tsv"
p = in."/mm_points.tsv"
cv = in."/convergence.tsv"
stats cv using "cells_per_a" nooutput
ng = STATS_records
stats cv using (column(0) == ng - 1 ? column("best_lag_T") : NaN) nooutput
lag = STATS_max
# (stats filters by the x range: read every number before setting one)
array cells[ng]
do for [k = 0:ng - 1] {
  stats cv using (column(0) == k ? column("cells_per_a") : NaN) nooutput
  cells[k + 1] = STATS_max
}

set xlabel "T = t (n^2 g / a)^{1/2}"
set ylabel "Z = x_{front} / a"
set key top left
set xrange [0:3.6]
set yrange [0.8:5.2]
array col[6] = ["#9ecae1", "#4292c6", "#08519c", "#08306b", "#6baed6", "#3182bd"]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Dam break (n^2 = 2), taichi\\_mpm's water: surge front against Martin and Moyce 1952"
  plot for [k = 0:ng - 1] f using "T":(column("cells_per_a") == cells[k + 1] ? column("Z_toe") : NaN) with lines lw 2 lc rgb col[(k % 6) + 1] \
         title sprintf("MPM, %d cells per a", cells[k + 1]), \
       f using (column("T") + lag):(column("cells_per_a") == cells[ng] ? column("Z_toe") : NaN) with lines lw 2 dt 2 lc rgb "#e8730c" \
         title sprintf("finest, shifted by the best lag ΔT = %.3f", lag), \
       p using "T":(strcol("series") eq "table2" ? column("Z") : NaN) with points pt 7 ps 1.3 lc rgb "#c2185b" title "Martin and Moyce, Table 2 (a = 2.25 in)", \
       p using "T":(strcol("series") eq "fig3_small" ? column("Z") : NaN) with points pt 6 ps 1.3 lc rgb "#222222" title "Martin and Moyce, Fig. 3 (a = 1.125 in)"
  unset output
}
