# footing_curves.gp: Prandtl's strip footing, the pressure under the footing
# against its settlement, one curve per run (B/dx, v/c_p), against the
# closed form q_ult = (2 + pi) sigma_y / sqrt 3 (the curves are q / q_ult).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/footing_curves.gp
#
# Data: RUN_DIR/curves.tsv (cells, speed_over_cp, settlement_over_B,
# q_over_qult; one block per run, each q the mean over its row's
# settlement) and RUN_DIR/plateau.tsv (the plateau window of each run, drawn
# as a bar at the run's plateau value).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/curves.tsv"
p = in."/plateau.tsv"
stats p using "cells" nooutput
n_runs = STATS_records
colors = "#1f77b4 #e8730c #2ca02c #d62728 #9467bd #8c564b #17becf"
# each run's B/dx and speed, from its row of plateau.tsv: the curves are
# selected by these values (curves.tsv's blocks after the first have no header)
titles = ""; run_c = ""; run_s = ""
do for [k = 0:n_runs - 1] {
  stats p every ::k::k using "cells" nooutput; c_k = STATS_max
  stats p every ::k::k using "speed_over_cp" nooutput; s_k = STATS_max
  titles = titles . sprintf("B/dx=%d,v/c_p=%g ", c_k, s_k)
  run_c = run_c . sprintf("%d ", c_k); run_s = run_s . sprintf("%.9g ", s_k)
}
is_run(k) = column("cells") == real(word(run_c, k + 1)) && abs(column("speed_over_cp") / real(word(run_s, k + 1)) - 1) < 1e-6

set xlabel "settlement / B"
set ylabel "q / q_{ult}   (q_{ult} = (2 + π) σ_y / √3)"
set yrange [0:1.4]
set key bottom right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Strip footing on a weightless von Mises half-space (plane strain, smooth footing)"
  plot 1 with lines lw 2.5 dt 2 lc rgb "#222222" title "Prandtl: (2 + π) c, c = σ_y / √3", \
       for [k = 0:n_runs - 1] f using "settlement_over_B":(is_run(k) ? column("q_over_qult") : NaN) with lines lw 1.6 \
         lc rgb word(colors, k % 7 + 1) title word(titles, k + 1), \
       for [k = 0:n_runs - 1] p every ::k::k using (0.5 * (column("window_lo_B") + column("window_hi_B"))):"q_over_qult":"window_lo_B":"window_hi_B" \
         with xerrorbars pt 7 ps 1.2 lw 2 lc rgb word(colors, k % 7 + 1) notitle
  unset output
}
