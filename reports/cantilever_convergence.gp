# cantilever_convergence.gp: the jelly cantilever's tip deflection over
# Euler-Bernoulli's w_EB, r = deflection / w_EB(x_col), against dx / h on
# each grid (points), the fit r_inf + c (dx/h)^p through them (curve), its
# limit r_inf at dx = 0, Euler-Bernoulli (r = 1) and Timoshenko's 1 + shear
# term (references/derivations/elastic.md).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/cantilever_convergence.gp
#
# Reads, by column name, RUN_DIR/levels.tsv (cells_per_h, ratio) and
# refinement.tsv (r_inf, c, order_p, r_timoshenko).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fl = in."/levels.tsv"
fr = in."/refinement.tsv"
stats fr using "r_inf" nooutput; r_inf = STATS_min
stats fr using "c" nooutput; c = STATS_min
stats fr using "order_p" nooutput; p = STATS_min
stats fr using "r_timoshenko" nooutput; r_t = STATS_min
stats fl using (1.0 / column("cells_per_h")) nooutput; hmax = STATS_max
stats fl using "ratio" nooutput; rmax = STATS_max; rmin = STATS_min
lo = rmin < r_inf ? rmin : r_inf; lo = lo < 1 ? lo : 1
hi = rmax
set xrange [0:hmax * 1.1]
set yrange [lo - 0.1 * (hi - lo):hi + 0.1 * (hi - lo)]
set xlabel "grid spacing over thickness  dx / h"
set ylabel "tip deflection / w_{EB}(x_{col})"
set title sprintf("Cantilever under its own weight: tip deflection against dx\n{/*0.85 fit r_∞ = %.4f, order p = %.2f; Timoshenko 1 + %.4f}", r_inf, p, r_t - 1)
set key top left
set samples 200

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot 1 with lines dt 2 lw 2 lc rgb "#b00020" title "Euler–Bernoulli q L^4/(8 E I)", \
       r_t with lines dt 3 lw 2 lc rgb "#1b7837" title "Timoshenko (shear, κ = 5/6)", \
       (x > 0 ? r_inf + c * x**p : 1/0) with lines lw 2 lc rgb "#222222" title "fit r_∞ + c (dx/h)^p", \
       fr using (0):"r_inf" with points pt 5 ps 1.5 lc rgb "#222222" title "r_∞", \
       fl using (1.0 / column("cells_per_h")):"ratio" with points pt 7 ps 1.6 lc rgb series_color(2) title "grids"
  unset output
}
