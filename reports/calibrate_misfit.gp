# calibrate_misfit.gp: the calibration demo's objective, the RMS difference
# between the simulated and the scanned deposit profiles, against the friction
# angle, every simulation marked in the order the GSL golden-section search
# made it (the sensitivity runs at phi_rec +- delta apart). Left: the misfit
# over the whole search range; right: the angle of each simulation in order,
# with the hidden angle (never seen by the search), the recovered angle and
# the derived tolerance band.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/calibrate_misfit.gp
#
# Reads, by column name, RUN_DIR/evaluations.tsv (sim, role, phi_deg,
# misfit_m) and summary.tsv (quantity, value: phi_true, phi_recovered,
# tolerance, simulations_search, misfit_noise).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"
fig_w = 1200

e = in."/evaluations.tsv"
ROW_FILE = in."/summary.tsv"; ROW_KEY_COL = "quantity"; ROW_COL = "value"
ROW_KEY = "phi_true"; eval load_row; phit = row_value
ROW_KEY = "phi_recovered"; eval load_row; phir = row_value
ROW_KEY = "tolerance"; eval load_row; tol = row_value
ROW_KEY = "simulations_search"; eval load_row; nsim = row_value
ROW_KEY = "misfit_noise"; eval load_row; snoise = row_value * 1e3
stats e using "phi_deg" nooutput; plo = STATS_min; phi_hi = STATS_max
stats e using (column("misfit_m") * 1e3) nooutput; smax = STATS_max
search(v) = strcol("role") eq "search" ? v : NaN
sens(v) = strcol("role") eq "sensitivity" ? v : NaN

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 1, 2 title sprintf("Calibration: hidden φ = %.2f°, recovered %.3f° (error %+.3f°, tolerance ± %.2f°) in %d search simulations", phit, phir, phir - phit, tol, nsim)
  set xlabel "friction angle of the model  φ  [deg]"
  set ylabel "RMS profile misfit  S(φ)  [mm]"
  set xrange [plo - 1:phi_hi + 1]
  set yrange [0:smax * 1.5]
  set key top center
  unset object; unset arrow; unset label
  set arrow 1 from phit, graph 0 to phit, graph 1 nohead dt 2 lw 1.5 lc rgb "#b00020"
  set arrow 3 from graph 0, first snoise to graph 1, first snoise nohead dt 3 lw 1.5 lc rgb series_color(4)
  set title "the search over the range"
  plot e using (search(column("phi_deg"))):(column("misfit_m") * 1e3) with points pt 7 ps 1.3 lc rgb series_color(2) title "search simulations (the first 10 numbered)", \
       e using (search(column("sim") <= 10 ? column("phi_deg") : NaN)):(column("misfit_m") * 1e3):(sprintf("%d", column("sim"))) with labels offset 0, 0.9 font ",9" notitle, \
       e using (sens(column("phi_deg"))):(column("misfit_m") * 1e3) with points pt 5 ps 1.3 lc rgb series_color(6) title "sensitivity runs φ_{rec} ± δ", \
       NaN with lines dt 2 lw 1.5 lc rgb "#b00020" title "hidden φ (not seen by the search)", \
       NaN with lines dt 3 lw 1.5 lc rgb series_color(4) title "misfit the noise alone implies"
  unset arrow 3
  set xrange [0.5:nsim + 2.5]
  set yrange [phir - 3:phir + 3]
  set xlabel "simulation number"
  set ylabel "friction angle tried  φ  [deg]"
  set object 1 rect from graph 0, first phir - tol to graph 1, first phir + tol fc rgb "#b8e0d2" fs solid 0.5 noborder behind
  set arrow 1 from graph 0, first phit to graph 1, first phit nohead dt 2 lw 1.5 lc rgb "#b00020"
  set arrow 2 from graph 0, first phir to graph 1, first phir nohead lw 2 lc rgb "#222222"
  set title "the angles tried, in order (outside ± 3°: off the axis)"
  set key bottom right
  plot e using "sim":(search(column("phi_deg"))) with linespoints pt 7 ps 1.2 lw 1 lc rgb series_color(2) title "search simulations", \
       e using "sim":(sens(column("phi_deg"))) with points pt 5 ps 1.3 lc rgb series_color(6) title "sensitivity runs φ_{rec} ± δ", \
       NaN with lines lw 2 lc rgb "#222222" title "recovered φ ± tolerance (band)", \
       NaN with lines dt 2 lw 1.5 lc rgb "#b00020" title "hidden φ"
  unset multiplot
  unset output
}
