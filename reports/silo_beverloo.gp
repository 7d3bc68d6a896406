# silo_beverloo.gp: discharge rate against the aperture the grid resolves
# (counted from the free floor nodes), on log axes, with the two GSL fits
# W = C rho_b sqrt(g) (D - k dx)^n over the apertures that pass the resolution
# criterion, k fixed (0: references/derivations/silo.md), exponent fixed to the
# geometry's law (3/2 slot, 5/2 round) and free, and the geometric power law
# W ~ D^n over every aperture. Resolved apertures are filled, the others open.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/silo_beverloo.gp
#
# Reads, by column name, RUN_DIR/rates.tsv (D_geo_m, W, sigma_W, resolved,
# rho_b_kg_m3), fit_curves.tsv (D_m, W_C_k_fixed, W_n_k_fixed, W_geometric),
# fits.tsv (rows C_k_fixed, n_k_fixed, geometric by their fit column: C, k,
# n, sigma_n, n_law, dx_m), summary.tsv (geometry) and, for a round silo, C
# from references/literature/beverloo.tsv. Where too few apertures are
# resolved for the fits (quick scale), the literature line uses k = 0 and
# the law's exponent is drawn through the largest aperture as the reference
# (a slot has no tabulated C). Runs
# recorded before the resolution criterion (no resolved column; fits named
# fixed_exponent and free_exponent, curves W_fixed_exponent and
# W_free_exponent) are read under those names, every aperture in the fit.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

# slot (W per unit width) or round (W per silo), from summary.tsv's geometry row
stats in."/summary.tsv" using (strcol("quantity") eq "geometry" ? (strcol("value") eq "slot" ? 1 : 0) : NaN) nooutput
slot = STATS_max > 0.5
wunit = slot ? "kg/(m s), per unit slot width" : "kg/s"
ff = in."/fits.tsv"
# a fit that could not be made (too few resolved apertures) is NaN: its line and numbers are left out
ROW_FILE = ff; ROW_KEY_COL = "fit"
fitv(row, col) = (ROW_KEY = row, ROW_COL = col, 0)
old = !has_col(in."/rates.tsv", "resolved")
rC = old ? "fixed_exponent" : "C_k_fixed"; rn = old ? "free_exponent" : "n_k_fixed"
dummy = fitv(rC, "C"); eval load_row; Ca = row_value
dummy = fitv(rC, "k"); eval load_row; ka = row_value
dummy = fitv(rC, "n_law"); eval load_row; nlaw = row_value
dummy = fitv(rn, "n"); eval load_row; nb = row_value
dummy = fitv(rn, "sigma_n"); eval load_row; snb = row_value
dummy = fitv(rn, "k"); eval load_row; kb = row_value
dummy = fitv("geometric", "n"); eval load_row; ng = row_value
dummy = fitv(rC, "dx_m"); eval load_row; dx = row_value
# the law's exponent and k stand without a fit: 3/2 slot, 5/2 round; k = 0
if (nlaw != nlaw) { nlaw = slot ? 1.5 : 2.5 }
if (ka != ka) { ka = 0 }
if (dx != dx) { dx = 0 }
stats in."/rates.tsv" using "rho_b_kg_m3" nooutput; rhob = STATS_mean
# round silos: Beverloo's usual C (references/literature/beverloo.tsv) with the
# fitted k, as the reference line; the slot law has no tabulated C here
lit = here."../references/literature/beverloo.tsv"
Clit = NaN
if (!slot) { Clit = ref_value(lit, "C", "value") }
wlit(D) = (!slot && D / 1e3 > ka * dx) ? Clit * rhob * sqrt(9.81) * (D / 1e3 - ka * dx)**nlaw : NaN
stats in."/rates.tsv" using (column("D_geo_m") * 1e3):"W" nooutput; dlo = STATS_min_x; dhi = STATS_max_x; wlo = STATS_min_y; whi = STATS_max_y

set logscale xy
# log axes spanning less than a decade: label 1-2-3-5-7 in every decade
set xtics () ; set ytics ()
do for [e = -6:6] { do for [m in "1 1.2 1.5 2 2.5 3 4 5 6 7 8"] { v = real(m) * 10.0**e; set xtics add (sprintf("%g", v) v); set ytics add (sprintf("%g", v) v) } }
set xrange [dlo / 1.25:dhi * 1.2]
# the literature line stays on the axes too (on coarse grids it lies well off the data)
wl_lo = wlit(dlo / 1.25); wl_hi = wlit(dhi * 1.2)
if (wl_lo == wl_lo && wl_lo > 0 && wl_lo < wlo) { wlo = wl_lo }
if (wl_hi == wl_hi && wl_hi > whi) { whi = wl_hi }
set yrange [wlo / 1.6:whi * 1.6]
set xlabel "aperture resolved on the grid  D  [mm]"
set ylabel sprintf("discharge rate  W  [%s]", wunit)
# the key below the axes: the data and the lines run corner to corner
set key outside below center maxcols 2
fig_h = 800
set bmargin 6
fitted = Ca == Ca
set title fitted ? sprintf("Beverloo scaling  W = C ρ_b √g (D − k dx)^n,  law n = %g, resolved apertures, k = %g\n{/*0.85 n fixed: C = %.3f;  n free: n = %.2f ± %.2f;  geometric (all) W ∝ D^{%.2f}}", nlaw, ka, Ca, nb, snb, ng) \
  : sprintf("Beverloo scaling  W = C ρ_b √g (D − k dx)^n,  law n = %g\n{/*0.85 too few resolved apertures for the fits; geometric (all) W ∝ D^{%.2f}}", nlaw, ng)

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  fc = in."/fit_curves.tsv"
  cC = old ? "W_fixed_exponent" : "W_C_k_fixed"; cn = old ? "W_free_exponent" : "W_n_k_fixed"
  res(dummy) = old ? 1 : column("resolved")
  undefine STATS_*; stats in."/rates.tsv" using (res(0) > 0.5 ? 1 : NaN) nooutput; nres = exists("STATS_records") ? STATS_records : 0
  plot fc using (column("D_m") * 1e3):cC with lines lw 2.5 lc rgb series_color(2) title (fitted ? sprintf("fit on resolved, n fixed at %g", nlaw) : ""), \
       fc using (column("D_m") * 1e3):cn with lines lw 2 dt 2 lc rgb series_color(6) title (fitted ? "fit on resolved, n free (dashed)" : ""), \
       fc using (column("D_m") * 1e3):"W_geometric" with lines lw 1.5 dt 3 lc rgb "#6a6a6a" title "geometric  A D^n (dotted)", \
       (fitted ? NaN : whi * (x / dhi)**nlaw) with lines lw 2 dt 2 lc rgb series_color(2) title (fitted ? "" : sprintf("the law's W ∝ D^{%g} through the largest aperture (reference)", nlaw)), \
       (slot ? NaN : wlit(x)) with lines lw 2 dt 2 lc rgb "#b00020" title (slot ? "" : sprintf("Beverloo C = %g (literature), %s", Clit, fitted ? "fitted k" : "k = 0")), \
       in."/rates.tsv" using (column("D_geo_m") * 1e3):(res(0) > 0.5 ? column("W") : NaN):"sigma_W" with yerrorbars pt 7 ps 1.5 lw 1.5 lc rgb "#000000" title (nres > 0 ? "measured, resolved" : ""), \
       in."/rates.tsv" using (column("D_geo_m") * 1e3):(res(0) > 0.5 ? NaN : column("W")):"sigma_W" with yerrorbars pt 6 ps 1.5 lw 1.5 lc rgb "#000000" title "measured, not resolved"
  unset output
}
