# cantilever_history.gp: the jelly cantilever's tip deflection over
# Euler-Bernoulli's w_EB(L) while it settles under grid damping, against
# time in periods T1 of the first bending mode, one curve per grid. The
# late slow rise on the finer grids is the float creep of F
# (references/derivations/elastic.md sec. 4).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/cantilever_history.gp
#
# Reads, by column name, RUN_DIR/history.tsv (cells_per_h, t_over_T1,
# deflection_over_w_eb) and levels.tsv (cells_per_h).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fh = in."/history.tsv"
fl = in."/levels.tsv"
stats fl using "cells_per_h" nooutput; n = STATS_records
set xlabel "time  t / T_1"
set ylabel "tip deflection / w_{EB}(L)"
set title "Cantilever settling under grid damping (ζ = 1 for mode 1)"
set key bottom right
set yrange [0:*]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot 1 with lines dt 2 lw 2 lc rgb "#b00020" title "Euler–Bernoulli", \
       for [i = 1:n] fh using (column("cells_per_h") == word(system(sprintf("awk -F'\t' '!/^#/ && ++r > 1 {print $1}' '%s'", fl)), i) + 0 ? column("t_over_T1") : NaN):"deflection_over_w_eb" \
         with lines lw 2 lc rgb series_color(i) title sprintf("h/dx = %s", word(system(sprintf("awk -F'\t' '!/^#/ && ++r > 1 {print $1}' '%s'", fl)), i))
  unset output
}
