# repose_convergence.gp: the deposit's flank angle against grid spacing dx,
# per surface estimator (points) and their mean (filled), with the unweighted
# GSL fit theta(dx) = theta_inf + c (dx/R0)^p (curve), its extrapolated limit
# theta_inf with a 2-sigma bar at dx = 0, and the fed friction angle phi
# (dashed) and the flow angle theta_flow (dotted, references/derivations/repose.md):
# the seed claims the flank angle converges monotonically to phi; the model
# bounds it by theta_flow.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_convergence.gp
#
# Reads RUN_DIR/convergence.tsv (dx_m col 1, estimators cols 4-7, mean col 8,
# sigma col 9), fit_curve.tsv and fit.tsv (theta_inf, sigma, ..., phi col 10).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fc = in."/convergence.tsv"
stats in."/fit.tsv" using 1 nooutput; th_inf = STATS_min
stats in."/fit.tsv" using 2 nooutput; s_inf = STATS_min
stats in."/fit.tsv" using 10 nooutput; phi = STATS_min
# the flow angle of references/derivations/repose.md sec. 3, from phi (runs
# recorded before it was a column of fit.tsv draw it too)
sphi = sin(phi * pi / 180); phi_flow = atan(2 * sqrt(3) * sphi / (3 - sphi)) * 180 / pi
stats fc using ($1 * 1e3) nooutput; dxmax = STATS_max
stats fc using 4:7 nooutput; ymin = STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y
stats fc using 4:7 nooutput; ymax = STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y
# the limit's bar joins the scale only while it says something (2 sigma <=
# 10 deg); a fit that finds no limit (five grids still rising) would
# otherwise flatten the data into one line, so its bar is named instead
show_inf = th_inf == th_inf && 2 * s_inf <= 10
lo = ymin; if (show_inf && th_inf - 2 * s_inf < lo) { lo = th_inf - 2 * s_inf }
hi = phi_flow > ymax ? phi_flow : ymax; if (show_inf && th_inf + 2 * s_inf > hi) { hi = th_inf + 2 * s_inf }
if (!show_inf) { set label 1 sprintf("θ_∞ ± 2σ = %.0f° ± %.0f°: no limit found, off the scale", th_inf, 2 * s_inf) at graph 0.03, graph 0.06 left front }
set xrange [-0.04 * dxmax:dxmax * 1.12]
set yrange [lo - 0.08 * (hi - lo) - 0.5:hi + 0.08 * (hi - lo) + 0.5]
set xlabel "grid spacing  dx  [mm]"
set ylabel "flank angle  θ  [deg]"
set title sprintf("Flank angle of the settled pile against dx (mid-flank band 0.2–0.8 h_{max})\n{/*0.85 fit θ_∞ = %.2f° ± %.2f° (1σ, χ²-scaled); fed φ = %g°; flow angle %.1f°}", th_inf, s_inf, phi, phi_flow)
set key top right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot phi with lines dt (8, 5) lw 2 lc rgb "#b00020" title sprintf("fed φ = %g°", phi), \
       phi_flow with lines dt 3 lw 2 lc rgb "#1b7837" title sprintf("flow angle θ_{flow} = %.1f° (bound)", phi_flow), \
       in."/fit_curve.tsv" using ($1 * 1e3):2 with lines lw 2 lc rgb "#222222" title "fit θ_∞ + c (dx/R_0)^p", \
       in."/fit.tsv" using (0):1:(2 * $2) with yerrorbars pt 5 ps 1.4 lw 1.5 lc rgb "#222222" title "θ_∞ ± 2σ", \
       fc using ($1 * 1e3):4 with points pt 6 ps 1.3 lw 1.5 lc rgb series_color(1) title "radial profile", \
       fc using ($1 * 1e3):5 with points pt 8 ps 1.3 lw 1.5 lc rgb series_color(3) title "cone fit", \
       fc using ($1 * 1e3):6 with points pt 4 ps 1.3 lw 1.5 lc rgb series_color(4) title "azimuth sectors", \
       fc using ($1 * 1e3):7 with points pt 10 ps 1.3 lw 1.5 lc rgb series_color(6) title "height-field slope", \
       fc using ($1 * 1e3):8 with points pt 7 ps 1.6 lc rgb "#000000" title "mean of the four"
  unset output
}
