# heap_profiles.gp: the settled deposits along x (mean over the slab), the
# poured heap (solid) and the collapse (dashed) per grid, normalised by the
# collapse column's height H0 and half-width R0 (grey: the initial column).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/heap_profiles.gp
#
# Reads, by column name, RUN_DIR/final.tsv (cells_per_R0, dx_m) and
# profile_heap_gN.tsv / profile_collapse_gN.tsv (x_m, h_over_H0; N = 0 for
# the coarsest grid).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

ff = in."/final.tsv"
stats ff using "cells_per_R0" nooutput; ng = STATS_records
cells = ""; do for [g = 0:ng - 1] { stats ff every ::g::g using "cells_per_R0" nooutput; cells = cells.sprintf(" %d", STATS_min) }
stats ff every ::0::0 using (column("dx_m") * column("cells_per_R0")) nooutput; R0 = STATS_min
set xlabel "x / R_0"
set ylabel "deposit height  h / H_0"
set title "Settled deposits: poured heap (solid) and collapse (dashed), per grid"
set key top right
set xrange [0:*]
set yrange [0:*]
set arrow 2 from 0, 1 to 1, 1 nohead lw 1.5 lc rgb "#999999" back
set arrow 3 from 1, 1 to 1, 0 nohead lw 1.5 lc rgb "#999999" back

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [g = 0:ng - 1] in.sprintf("/profile_heap_g%d.tsv", g) using (column("x_m") / R0):"h_over_H0" with lines lw 2 \
         lc rgb series_color(1 + int(g * 5.0 / (ng > 1 ? ng - 1 : 1))) title sprintf("heap, R_0/dx = %s", word(cells, g + 1)), \
       for [g = 0:ng - 1] in.sprintf("/profile_collapse_g%d.tsv", g) using (column("x_m") / R0):"h_over_H0" with lines dt 2 lw 2 \
         lc rgb series_color(1 + int(g * 5.0 / (ng > 1 ? ng - 1 : 1))) title sprintf("collapse, R_0/dx = %s", word(cells, g + 1))
  unset output
}
