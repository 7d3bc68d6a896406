# silo_beverloo.gp: discharge rate against the aperture the grid resolves
# (counted from the free floor nodes), on log axes, with the two GSL fits
# W = C rho_b sqrt(g) (D - k dx)^n over the apertures that pass the resolution
# criterion, k fixed (0: references/derivations/silo.md), exponent fixed to the
# geometry's law (3/2 slot, 5/2 round) and free, and the geometric power law
# W ~ D^n over every aperture. Resolved apertures are filled, the others open.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/silo_beverloo.gp
#
# Reads RUN_DIR/rates.tsv (D_geo col 2, W col 4, sigma_W col 5, resolved col 25),
# fit_curves.tsv (D col 1, n fixed col 2, n free col 3, geometric col 4) and
# fits.tsv (rows C_k_fixed, n_k_fixed, geometric: C col 2, k col 4,
# n col 6, sigma n col 7, the law's exponent col 11, dx col 12), summary.tsv
# (geometry) and, for a round silo, C from references/literature/beverloo.tsv.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

# slot (W per unit width) or round (W per silo), from summary.tsv's geometry row
stats in."/summary.tsv" using (strcol(1) eq "geometry" ? (strcol(2) eq "slot" ? 1 : 0) : NaN) nooutput
slot = STATS_max > 0.5
wunit = slot ? "kg/(m s), per unit slot width" : "kg/s"
ff = in."/fits.tsv"
# a fit that could not be made (too few resolved apertures) is NaN: its line and numbers are left out
undefine STATS_*; stats ff every ::0::0 using 2 nooutput; Ca = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::0::0 using 4 nooutput; ka = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::0::0 using 11 nooutput; nlaw = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::1::1 using 6 nooutput; nb = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::1::1 using 7 nooutput; snb = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::1::1 using 4 nooutput; kb = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::2::2 using 6 nooutput; ng = exists("STATS_min") ? STATS_min : NaN
undefine STATS_*; stats ff every ::0::0 using 12 nooutput; dx = exists("STATS_min") ? STATS_min : NaN
stats in."/rates.tsv" using 10 nooutput; rhob = STATS_mean
# round silos: Beverloo's usual C (references/literature/beverloo.tsv) with the
# fitted k, as the reference line; the slot law has no tabulated C here
lit = here."../references/literature/beverloo.tsv"
Clit = NaN
if (!slot) { stats lit using (strcol(1) eq "C" ? $2 : NaN) nooutput; Clit = STATS_min }
wlit(D) = (!slot && D / 1e3 > ka * dx) ? Clit * rhob * sqrt(9.81) * (D / 1e3 - ka * dx)**nlaw : NaN
stats in."/rates.tsv" using ($2 * 1e3):4 nooutput; dlo = STATS_min_x; dhi = STATS_max_x; wlo = STATS_min_y; whi = STATS_max_y

set logscale xy
# log axes spanning less than a decade: label 1-2-3-5-7 in every decade
set xtics () ; set ytics ()
do for [e = -6:6] { do for [m in "1 1.5 2 3 4 5 7"] { v = real(m) * 10.0**e; set xtics add (sprintf("%g", v) v); set ytics add (sprintf("%g", v) v) } }
set xrange [dlo / 1.25:dhi * 1.2]
set yrange [wlo / 1.6:whi * 1.6]
set xlabel "aperture resolved on the grid  D  [mm]"
set ylabel sprintf("discharge rate  W  [%s]", wunit)
set key top left
set title sprintf("Beverloo scaling  W = C ρ_b √g (D − k dx)^n,  law n = %g, resolved apertures, k = %g\n{/*0.85 n fixed: C = %.3f;  n free: n = %.2f ± %.2f;  geometric (all) W ∝ D^{%.2f}}", nlaw, ka, Ca, nb, snb, ng)

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot in."/fit_curves.tsv" using ($1 * 1e3):2 with lines lw 2.5 lc rgb series_color(2) title sprintf("fit on resolved, n fixed at %g", nlaw), \
       in."/fit_curves.tsv" using ($1 * 1e3):3 with lines lw 2 dt 2 lc rgb series_color(6) title "fit on resolved, n free", \
       in."/fit_curves.tsv" using ($1 * 1e3):4 with lines lw 1.5 dt 3 lc rgb "#6a6a6a" title "geometric  A D^n", \
       (slot ? NaN : wlit(x)) with lines lw 2 dt (8, 5) lc rgb "#b00020" title (slot ? "" : sprintf("Beverloo C = %g (literature), fitted k", Clit)), \
       in."/rates.tsv" using ($2 * 1e3):($25 > 0.5 ? $4 : NaN):5 with yerrorbars pt 7 ps 1.5 lw 1.5 lc rgb "#000000" title "measured, resolved", \
       in."/rates.tsv" using ($2 * 1e3):($25 > 0.5 ? NaN : $4):5 with yerrorbars pt 6 ps 1.5 lw 1.5 lc rgb "#000000" title "measured, not resolved"
  unset output
}
