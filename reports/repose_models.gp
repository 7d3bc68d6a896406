# repose_models.gp: the deposit-convergence study of each material model:
# the flank angle (mean of the four estimators) and the runout of the
# collapsed a = 1 column against the grid (cells per R0), Drucker-Prager
# (the repose run, read from the sibling folder ../repose) and mu(I) (this
# run), with each run's fitted limit where a limit was found.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_models.gp
#
# Reads, by column name, RUN_DIR/convergence.tsv (cells_per_R0,
# theta_mean_deg, sigma_deg, runout_m, dx_over_R0) and fit.tsv (theta_inf_deg)
# and the same files of RUN_DIR/../repose where that run exists.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"
# the mu(I) run's static friction, from its manifest (Jop's 0.382 or a --mu-s)
mus = system(sprintf("grep -o 'mu_s [0-9.]*' '%s/manifest.json' 2>/dev/null | head -1 | cut -d' ' -f2", in))
mlab = "μ(I), μ_s ".(mus eq "" ? "?" : mus).(mus eq "0.38186" ? " (Jop 2006)" : " (--mu-s)")
fig_w = 1300
fig_h = 600

dp = in."/../repose"
has_dp = system(sprintf("test -r '%s/convergence.tsv' && echo 1 || echo 0", dp)) + 0
src_dp = has_dp ? dp."/convergence.tsv" : in."/convergence.tsv"
R0(dx, dxr) = dx / dxr
stats in."/convergence.tsv" using "cells_per_R0" nooutput; clo = STATS_min; chi = STATS_max
if (has_dp) { stats src_dp using "cells_per_R0" nooutput; clo = (STATS_min < clo ? STATS_min : clo); chi = (STATS_max > chi ? STATS_max : chi) }
set logscale x
set xrange [clo / 1.25:chi * 1.25]
set xtics (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
set xlabel "cells per R_0"
set key top left
set offsets 0, 0, graph 0.06, graph 0.06

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 1,2 title "Deposit convergence in dx: Drucker–Prager and μ(I) sand (a = 1 column)"
  set ylabel "flank angle θ (°)"
  set title "flank angle (mean of four estimators, bar: their spread)"
  plot src_dp using "cells_per_R0":(has_dp ? column("theta_mean_deg") : NaN):"sigma_deg" \
         with yerrorlines pt 7 ps 1.5 lw 1.5 lc rgb "#3b528b" title "Drucker–Prager", \
       in."/convergence.tsv" using "cells_per_R0":"theta_mean_deg":"sigma_deg" \
         with yerrorlines pt 5 ps 1.5 lw 1.5 lc rgb "#e07b00" title mlab
  set ylabel "runout R_∞ / R_0"
  set title "runout of the deposit"
  plot src_dp using "cells_per_R0":(has_dp ? column("runout_m") / R0(column("dx_m"), column("dx_over_R0")) : NaN) \
         with linespoints pt 7 ps 1.5 lw 1.5 lc rgb "#3b528b" title "Drucker–Prager", \
       in."/convergence.tsv" using "cells_per_R0":(column("runout_m") / R0(column("dx_m"), column("dx_over_R0"))) \
         with linespoints pt 5 ps 1.5 lw 1.5 lc rgb "#e07b00" title mlab
  unset multiplot
  unset output
}
