# dambreak_convergence.gp: the dam break's front against Martin & Moyce's
# Table 2 as the grid refines: the rms of Z_sim - Z_exp at their times
# (dambreak.front), the same after the best time lag (dambreak.front_lagged),
# with the claims' tolerance, and the best lag itself.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/dambreak_convergence.gp
#
# Reads RUN_DIR/convergence.tsv (cells_per_a, rms_dZ, rms_dZ_lagged,
# best_lag_T) and the tolerance of dambreak.front from RUN_DIR/claims.tsv.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

cv = in."/convergence.tsv"
CLAIM_ID = "dambreak.front"; CLAIM_COL = "tolerance"; eval load_claim
tol = claim_value

set xlabel "cells per column width a"
set ylabel "rms of Z_{sim} - Z_{exp} at the experiment's times"
set y2label "best lag ΔT"
set ytics nomirror
set y2tics
set logscale x 2
set xrange [*:*]
set yrange [0:*]
set y2range [0:0.5]
set key at graph 0.98, graph 0.5 right top  # below the lag markers, above the tolerance line
if (tol == tol) { set arrow 1 from graph 0, first tol to graph 1, first tol nohead lw 1.5 dt 2 lc rgb "#c2185b"; \
                  set label 1 "tolerance (the experiment's own spread)" at graph 0.02, first tol offset 0, 0.7 left textcolor rgb "#c2185b" }

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Dam break: the front against Martin and Moyce's Table 2 as dx refines"
  plot cv using "cells_per_a":"rms_dZ" with linespoints pt 7 ps 1.3 lw 2 lc rgb "#3b528b" title "rms, no lag (dambreak.front)", \
       cv using "cells_per_a":"rms_dZ_lagged" with linespoints pt 5 ps 1.3 lw 2 lc rgb "#21918c" title "rms after the best lag (dambreak.front\\_lagged)", \
       cv using "cells_per_a":"best_lag_T" axes x1y2 with linespoints pt 9 ps 1.3 lw 2 dt 3 lc rgb "#e8730c" title "best lag ΔT (right axis)"
  unset output
}
