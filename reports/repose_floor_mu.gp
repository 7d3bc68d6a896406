# repose_floor_mu.gp: runout of the settled pile (the radius where the
# radially averaged deposit thickness falls below one dx) against the floor's
# Coulomb coefficient mu, all at one dx; tan phi is marked (dashed) and the
# stick floor is the separate point at the right (its value also as a dotted
# line). The seed claims runout is unchanged for mu >= tan phi and grows below.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_floor_mu.gp
#
# Reads, by column name, RUN_DIR/floor_mu.tsv (mu_floor, runout_over_R0,
# stick) and fit.tsv (phi_fed_deg).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/floor_mu.tsv"
stats in."/fit.tsv" using "phi_fed_deg" nooutput; phi = STATS_min
tanphi = tan(phi * pi / 180)
stats f using "mu_floor" nooutput; mumax = STATS_max
stats f using (column("stick") == 1 ? column("runout_over_R0") : NaN) nooutput; r_stick = STATS_min
stats f using "runout_over_R0" nooutput; rmin = STATS_min; rmax = STATS_max
xst = mumax * 1.2
set xrange [0:xst * 1.08]
# at least +-10% of the mean runout, so that a flat result reads flat
span = (rmax - rmin) > 0.2 * rmax ? (rmax - rmin) : 0.2 * rmax
set yrange [0.5 * (rmin + rmax) - 0.6 * span:0.5 * (rmin + rmax) + 0.6 * span]
set xlabel "floor Coulomb coefficient  μ_{floor}"
set ylabel "runout  R_∞ / R_0"
set title sprintf("Runout against floor friction (fed φ = %g°, tan φ = %.2f)", phi, tanphi)
set arrow 1 from tanphi, graph 0 to tanphi, graph 1 nohead dt 2 lw 2 lc rgb "#b00020"
set label 1 sprintf("tan φ = %.2f", tanphi) at tanphi, graph 0.93 offset 0.8, 0 tc rgb "#b00020"
set xtics 0, 0.2, mumax * 1.05
set xtics add ("stick" xst)
set key bottom left

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot f using (column("stick") == 0 ? column("mu_floor") : NaN):"runout_over_R0" with linespoints pt 7 ps 1.5 lw 2 lc rgb "#3b528b" title "Coulomb floor", \
       r_stick with lines dt 3 lw 1.5 lc rgb "#e8730c" title "stick floor (level)", \
       f using (column("stick") == 1 ? xst : NaN):"runout_over_R0" with points pt 5 ps 1.8 lc rgb "#e8730c" title "stick floor"
  unset output
}
