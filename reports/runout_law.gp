# runout_law.gp: normalised runout (R_inf - R0)/R0 of the collapsed column
# against its aspect ratio a = H0/R0, log-log: our runs (filled: summit
# preserved, open: conical deposit), our two-regime GSL fit, Lube 2004's law
# and the seed's fit; the breaks of Lube (1.7) and Lajeunesse (0.74) are
# marked. Lube's and the seed's lines come from
# references/literature/column_collapse_laws.tsv through fit_curve.tsv.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/runout_law.gp
#
# Reads, by column name, RUN_DIR/sweep.tsv (aspect, runout_norm,
# morphology), fit_curve.tsv (aspect, fit, lube2004, seed) and fit.tsv (c1,
# a_break, p and their sigma_ columns, lube_a_break, lajeunesse_a_break).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fs = in."/sweep.tsv"
ff = in."/fit.tsv"
stats ff using "c1" nooutput; c1 = STATS_min
stats ff using "sigma_c1" nooutput; sc1 = STATS_min
stats ff using "a_break" nooutput; ab = STATS_min
stats ff using "sigma_a_break" nooutput; sab = STATS_min
stats ff using "p" nooutput; p = STATS_min
stats ff using "sigma_p" nooutput; sp = STATS_min
stats ff using "lube_a_break" nooutput; ab_lube = STATS_min
stats ff using "lajeunesse_a_break" nooutput; ab_laj = STATS_min
stats fs using "aspect" nooutput; amin = STATS_min; amax = STATS_max
set logscale xy
# a decade or two on each axis: label 1-1.2-1.5-2-...-8 in every decade
AXIS = "x"; eval log_tics; AXIS = "y"; eval log_tics
set xrange [amin / 1.4:amax * 1.4]
set yrange [0.1:*]
set xlabel "aspect ratio  a = H_0 / R_0"
set ylabel "normalised runout  (R_∞ − R_0) / R_0"
set title sprintf("Column collapse runout (φ 33°, floor μ 0.6)\n{/*0.85 fit: %.3f±%.3f a below a_b = %.2f±%.2f, ∝ a^{%.3f±%.3f} above}", c1, sc1, ab, sab, p, sp)
set arrow 1 from ab_lube, graph 0 to ab_lube, graph 1 nohead dt 2 lw 1.5 lc rgb "#b00020"
set label 1 sprintf("Lube break %.1f", ab_lube) at ab_lube, graph 0.5 offset 0.6, 0 tc rgb "#b00020"
set arrow 2 from ab_laj, graph 0 to ab_laj, graph 1 nohead dt 3 lw 1.5 lc rgb "#6a6a6a"
set label 2 sprintf("Lajeunesse break %.2f\n(coefficients disputed)", ab_laj) at ab_laj, graph 0.93 offset 0.6, 0 tc rgb "#6a6a6a"
set key bottom right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot in."/fit_curve.tsv" using "aspect":"lube2004" with lines lw 2.5 lc rgb "#b00020" title "Lube 2004: 1.24 a, 1.6 a^{1/2}", \
       in."/fit_curve.tsv" using "aspect":"seed" with lines dt 2 lw 2 lc rgb "#6a6a6a" title "seed's fit: 0.76 a, 0.84 a^{0.79} (dashed)", \
       in."/fit_curve.tsv" using "aspect":"fit" with lines lw 2.5 lc rgb "#3b528b" title "our fit", \
       fs using "aspect":(strcol("morphology") eq "summit" ? column("runout_norm") : NaN) with points pt 7 ps 1.8 lc rgb "#21918c" title "ours: summit preserved", \
       fs using "aspect":(strcol("morphology") eq "conical" ? column("runout_norm") : NaN) with points pt 6 ps 1.8 lw 2 lc rgb "#21918c" title "ours: conical deposit"
  unset output
}
