# runout_convergence.gp: the refinement check at one aspect ratio: final
# profiles on the refinement grids (1, 1.5, 2, 3 x the coarsest; left axis, h/H0 against r/R0),
# and the toe runout R_inf/R0 per grid against dx in the inset text. The seed
# claims the runout is converged across three grids at a = 0.5.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/runout_convergence.gp
#
# Reads, by column name, RUN_DIR/convergence.tsv (aspect, cells_per_R0,
# runout_norm) and profile_convN.tsv (r_over_R0, h_over_H0), N = 0 for the
# coarsest.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fc = in."/convergence.tsv"
stats fc using "aspect" nooutput; a = STATS_min; ng = STATS_records
txt = ""
do for [g = 0:ng - 1] {
  stats fc every ::g::g using "cells_per_R0" nooutput; c = STATS_min
  stats fc every ::g::g using "runout_norm" nooutput; y = STATS_min
  txt = txt.sprintf("R_0/dx = %d:  (R_∞−R_0)/R_0 = %.4f\n", c, y)
}
set label 1 txt at graph 0.55, graph 0.55 left
set xlabel "r / R_0"
set ylabel "h / H_0"
set title sprintf("Refinement at a = %g: final profiles on %d grids", a, ng)
set key top right
set xrange [0:*]
set yrange [0:1.15]
set arrow 2 from 0, 1 to 1, 1 nohead lw 1.5 lc rgb "#999999" back
set arrow 3 from 1, 1 to 1, 0 nohead lw 1.5 lc rgb "#999999" back

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [g = 0:ng - 1] in.sprintf("/profile_conv%d.tsv", g) using "r_over_R0":"h_over_H0" with linespoints pt 7 ps 0.6 lw 2 \
         lc rgb series_color(1 + int(g * 5.0 / (ng > 1 ? ng - 1 : 1))) title sprintf("grid %d", g + 1), \
       NaN with lines lw 1.5 lc rgb "#999999" title "initial column"
  unset output
}
