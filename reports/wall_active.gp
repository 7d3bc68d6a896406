# wall_active.gp: active earth pressure on a thin wall, the wall's horizontal
# force over gamma H^2 / 2 against its displacement away from the fill, one
# curve per run (H/dx, wall mu), with Rankine's K_a (smooth wall) and
# Coulomb's K_a cos delta (the rough wall) for the phi and mu each run held.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/wall_active.gp
#
# Data: RUN_DIR/curves.tsv (cells, wall_mu, displacement_over_H, K, and K_h,
# the force over gamma h^2 / 2 with h the fill's height at the wall, dashed;
# one block per run) and RUN_DIR/active.tsv (per run: K_rankine, K_coulomb_x and the
# window mean K_active, drawn at the window's middle).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/curves.tsv"
a = in."/active.tsv"
stats a using "cells" nooutput
n_runs = STATS_records
colors = "#1f77b4 #e8730c #2ca02c #d62728 #9467bd #8c564b #17becf"
titles = ""; run_c = ""; run_m = ""
do for [k = 0:n_runs - 1] {
  stats a every ::k::k using "cells" nooutput; c_k = STATS_max
  stats a every ::k::k using "wall_mu" nooutput; m_k = STATS_max
  titles = titles . sprintf("H/dx=%d,wall-mu=%g ", c_k, m_k)
  run_c = run_c . sprintf("%d ", c_k); run_m = run_m . sprintf("%.9g ", m_k)
}
is_run(k) = column("cells") == real(word(run_c, k + 1)) && abs(column("wall_mu") - real(word(run_m, k + 1))) < 1e-9
stats a every ::0::0 using "K_rankine" nooutput; k_r = STATS_max
stats a every ::(n_runs - 1)::(n_runs - 1) using "K_coulomb_x" nooutput; k_c = STATS_max
stats a every ::0::0 using "phi_deg" nooutput; phi = STATS_max

set xlabel "wall displacement / H"
set xrange [-0.003:*]
set ylabel "F_x / (γ H^2 / 2)"
set yrange [0:0.7]
set key top right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title sprintf("Active earth pressure on a thin wall moving away from a level fill (φ = %g°, plane strain)", phi)
  plot k_r with lines lw 2.5 dt 2 lc rgb "#222222" title sprintf("Rankine, smooth wall: K_a = %.3f", k_r), \
       k_c with lines lw 2.5 dt 3 lc rgb "#555555" title sprintf("Coulomb, rough wall: K_a cos δ = %.3f", k_c), \
       for [k = 0:n_runs - 1] f using "displacement_over_H":(is_run(k) ? column("K") : NaN) with lines lw 1.6 \
         lc rgb word(colors, k % 7 + 1) title word(titles, k + 1), \
       for [k = 0:n_runs - 1] f using "displacement_over_H":(is_run(k) ? column("K_h") : NaN) with lines lw 1 dt 4 \
         lc rgb word(colors, k % 7 + 1) title (k == 0 ? "dashed: over γ h^2 / 2, h the fill's height at the wall" : ""), \
       for [k = 0:n_runs - 1] a every ::k::k using (0.5 * (column("window_lo_H") + column("window_hi_H"))):"K_active":"window_lo_H":"window_hi_H" \
         with xerrorbars pt 7 ps 1.2 lw 2 lc rgb word(colors, k % 7 + 1) notitle, \
       for [k = 0:n_runs - 1] a every ::k::k using (0):"K_rest" with points pt 5 ps 1.3 \
         lc rgb word(colors, k % 7 + 1) title (k == 0 ? "at rest, before the wall moves" : "")
  unset output
}
