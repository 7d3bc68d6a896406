# runout_models.gp: the runout sweep of each material model at the same
# resolution, against Lube 2004's law: Drucker-Prager (the runout run, read
# from the sibling folder ../runout) and mu(I) (this run). Normalised runout
# (R_inf - R0)/R0 against a = H0/R0, log-log, with each model's fitted slope
# below the break in the key.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/runout_models.gp
#
# Reads, by column name, RUN_DIR/sweep.tsv, fit.tsv (c1, sigma_c1),
# fit_curve.tsv (aspect, lube2004) and the same files of RUN_DIR/../runout
# (drawn only where that run exists).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"
# the mu(I) run's static friction, from its manifest (Jop's 0.382 or a --mu-s)
mus = system(sprintf("grep -o 'mu_s [0-9.]*' '%s/manifest.json' 2>/dev/null | head -1 | cut -d' ' -f2", in))
mlab = "μ(I), μ_s ".(mus eq "" ? "?" : mus).(mus eq "0.38186" ? " (Jop 2006)" : " (--mu-s)")

dp = in."/../runout"
has_dp = system(sprintf("test -r '%s/sweep.tsv' && echo 1 || echo 0", dp)) + 0
stats in."/fit.tsv" using "c1" nooutput; c1m = STATS_min
stats in."/fit.tsv" using "sigma_c1" nooutput; sc1m = STATS_min
c1d = NaN; sc1d = NaN
if (has_dp) {
  stats dp."/fit.tsv" using "c1" nooutput; c1d = STATS_min
  stats dp."/fit.tsv" using "sigma_c1" nooutput; sc1d = STATS_min
}
stats in."/sweep.tsv" using "aspect" nooutput; amin = STATS_min; amax = STATS_max
set logscale xy
AXIS = "x"; eval log_tics; AXIS = "y"; eval log_tics
set xrange [amin / 1.4:amax * 1.4]
set yrange [0.1:*]
set xlabel "aspect ratio  a = H_0 / R_0"
set ylabel "normalised runout  (R_∞ − R_0) / R_0"
set title "Column collapse: Drucker–Prager and μ(I) sand at the same resolution, against Lube 2004"
set key bottom right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot in."/fit_curve.tsv" using "aspect":"lube2004" with lines lw 2.5 lc rgb "#b00020" title "Lube 2004: 1.24 a, 1.6 a^{1/2}", \
       (has_dp ? dp."/sweep.tsv" : in."/sweep.tsv") using "aspect":(has_dp ? column("runout_norm") : NaN) \
         with linespoints pt 7 ps 1.6 lw 1.5 lc rgb "#3b528b" title sprintf("Drucker–Prager (φ 33°): slope %.3f±%.3f below the break", c1d, sc1d), \
       in."/sweep.tsv" using "aspect":"runout_norm" with linespoints pt 5 ps 1.6 lw 1.5 lc rgb "#e07b00" \
         title sprintf("%s: slope %.3f±%.3f below the break", mlab, c1m, sc1m)
  unset output
}
