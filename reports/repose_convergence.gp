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
# Reads, by column name, RUN_DIR/convergence.tsv (dx_m, theta_profile_deg,
# theta_cone_deg, theta_sectors_deg, theta_slope_deg, theta_mean_deg),
# fit_curve.tsv (dx_m, theta_deg) and fit.tsv (theta_inf_deg,
# sigma_theta_inf_deg, phi_fed_deg).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fc = in."/convergence.tsv"
stats in."/fit.tsv" using "theta_inf_deg" nooutput; th_inf = STATS_min
stats in."/fit.tsv" using "sigma_theta_inf_deg" nooutput; s_inf = STATS_min
stats in."/fit.tsv" using "phi_fed_deg" nooutput; phi = STATS_min
# the flow angle of references/derivations/repose.md sec. 3, from phi (runs
# recorded before it was a column of fit.tsv draw it too)
sphi = sin(phi * pi / 180); phi_flow = atan(2 * sqrt(3) * sphi / (3 - sphi)) * 180 / pi
stats fc using (column("dx_m") * 1e3) nooutput; dxmax = STATS_max
# the four estimators' range
ymin = 1e30; ymax = -1e30
do for [est in "theta_profile_deg theta_cone_deg theta_sectors_deg theta_slope_deg"] {
  stats fc using est nooutput; ymin = STATS_min < ymin ? STATS_min : ymin; ymax = STATS_max > ymax ? STATS_max : ymax
}
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
# the key below the axes: inside, it hides the fed φ and flow-angle lines
set key outside below center maxcols 3
fig_h = 800
set bmargin 10

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot phi with lines dt 2 lw 2 lc rgb "#b00020" title sprintf("fed φ = %g°", phi), \
       phi_flow with lines dt 3 lw 2 lc rgb "#1b7837" title sprintf("flow angle θ_{flow} = %.1f° (bound)", phi_flow), \
       in."/fit_curve.tsv" using (column("dx_m") * 1e3):"theta_deg" with lines lw 2 lc rgb "#222222" title "fit θ_∞ + c (dx/R_0)^p", \
       in."/fit.tsv" using (0):"theta_inf_deg":(2 * column("sigma_theta_inf_deg")) with yerrorbars pt 5 ps 1.4 lw 1.5 lc rgb "#222222" title "θ_∞ ± 2σ", \
       fc using (column("dx_m") * 1e3):"theta_profile_deg" with points pt 6 ps 1.3 lw 1.5 lc rgb series_color(1) title "radial profile", \
       fc using (column("dx_m") * 1e3):"theta_cone_deg" with points pt 8 ps 1.3 lw 1.5 lc rgb series_color(3) title "cone fit", \
       fc using (column("dx_m") * 1e3):"theta_sectors_deg" with points pt 4 ps 1.3 lw 1.5 lc rgb series_color(4) title "azimuth sectors", \
       fc using (column("dx_m") * 1e3):"theta_slope_deg" with points pt 10 ps 1.3 lw 1.5 lc rgb series_color(6) title "height-field slope", \
       fc using (column("dx_m") * 1e3):"theta_mean_deg" with points pt 7 ps 1.6 lc rgb "#000000" title "mean of the four"
  unset output
}
