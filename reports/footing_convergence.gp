# footing_convergence.gp: the footing's plateau pressure against the grid
# spacing, dx / B, at the footing speed of the claims, with the closed form
# q_ult = (2 + pi) sigma_y / sqrt 3 and the claim's tolerance band.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/footing_convergence.gp
#
# Data: RUN_DIR/plateau.tsv (cells, dx_over_B, speed_over_cp, q_over_qult);
# the run at half speed (the quasi-static check) is drawn apart; the
# extrapolation to dx = 0 that claim footing.q_ult judges is RUN_DIR/limit.tsv
# (q_limit_over_qult). The band is that claim's relative tolerance from
# RUN_DIR/claims.tsv.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

p = in."/plateau.tsv"
lim = in."/limit.tsv"
CLAIM_ID = "footing.q_ult"; CLAIM_COL = "tolerance"; eval load_claim
tol = claim_value
stats p using "speed_over_cp" nooutput
v_max = STATS_max

set xlabel "dx / B"
set ylabel "plateau q / q_{ult}"
set xrange [0:*]
set yrange [0.7:1.3]
set key bottom right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Strip footing: plateau pressure against resolution (q_{ult} = (2 + π) σ_y / √3)"
  if (tol == tol) {
    plot 1 - tol with filledcurves y2 = (1 + tol) fs transparent solid 0.15 lc rgb "#2ca02c" \
           title sprintf("claim tolerance ±%g (on the extrapolation)", tol), \
         1 with lines lw 2 dt 2 lc rgb "#222222" title "Prandtl", \
         p using "dx_over_B":(column("speed_over_cp") == v_max ? column("q_over_qult") : NaN) \
           with linespoints pt 7 ps 1.5 lw 2 lc rgb "#1f77b4" title sprintf("v / c_p = %g", v_max), \
         p using "dx_over_B":(column("speed_over_cp") < v_max ? column("q_over_qult") : NaN) \
           with points pt 6 ps 2 lw 2 lc rgb "#e8730c" title "half speed", \
         lim using (0):"q_limit_over_qult" with points pt 5 ps 1.8 lc rgb "#d62728" title "linear extrapolation to dx = 0"
  } else {
    plot 1 with lines lw 2 dt 2 lc rgb "#222222" title "Prandtl", \
         p using "dx_over_B":(column("speed_over_cp") == v_max ? column("q_over_qult") : NaN) \
           with linespoints pt 7 ps 1.5 lw 2 lc rgb "#1f77b4" title sprintf("v / c_p = %g", v_max), \
         p using "dx_over_B":(column("speed_over_cp") < v_max ? column("q_over_qult") : NaN) \
           with points pt 6 ps 2 lw 2 lc rgb "#e8730c" title "half speed"
  }
  unset output
}
