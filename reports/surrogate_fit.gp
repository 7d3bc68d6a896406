# surrogate_fit.gp: the surrogate demo. Top: the Gaussian processes of the
# runout and of the central pile height against the friction angle, each with
# its +-2 sd band (the surrogate's own uncertainty, latent), the design runs by
# role (initial, replicates, active) and the held-out measured value (line,
# with its +-2 sigma noise band: run-to-run and instrument). Bottom left: the
# posterior of phi given the measured deposit, active design and the uniform
# design of the same count, with the truth (never seen by the loop). Bottom
# right: the active loop, the posterior's 2 sd after each run against the
# stated tolerance.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/surrogate_fit.gp
#
# Reads, by column name, RUN_DIR/surrogate.tsv (phi_deg, h_mean_m, h_sd_m,
# R_mean_m, R_sd_m, posterior_per_deg, posterior_u_per_deg), design.tsv (role,
# phi_deg, h_center_m, runout_m), iterations.tsv (sims, two_sd_deg,
# phi_mean_deg) and summary.tsv (quantity, value).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"
fig_w = 1300
fig_h = 950

s = in."/surrogate.tsv"
d = in."/design.tsv"
ROW_FILE = in."/summary.tsv"; ROW_KEY_COL = "quantity"; ROW_COL = "value"
ROW_KEY = "phi_true"; eval load_row; phit = row_value
ROW_KEY = "phi_estimate"; eval load_row; phie = row_value
ROW_KEY = "two_sd"; eval load_row; tsd = row_value
ROW_KEY = "target_two_sd"; eval load_row; target = row_value
ROW_KEY = "simulations_design"; eval load_row; nd = row_value
ROW_KEY = "simulations_active"; eval load_row; na = row_value
ROW_KEY = "measured_runout"; eval load_row; Robs = row_value * 1e3
ROW_KEY = "measured_h_center"; eval load_row; hobs = row_value * 1e3
ROW_KEY = "sigma_run_runout"; eval load_row; snR = row_value * 1e3
ROW_KEY = "sigma_run_h_center"; eval load_row; snh = row_value * 1e3
ROW_KEY = "sigma_meas"; eval load_row; sm = row_value * 1e3
ROW_KEY = "uniform_phi_estimate"; eval load_row; phiu = row_value
ROW_KEY = "uniform_two_sd"; eval load_row; tsdu = row_value
eR = 2 * sqrt(snR**2 + sm**2); eh = 2 * sqrt(snh**2 + sm**2)
role_is(r, v) = strcol("role") eq r ? v : NaN
stats s using "phi_deg" nooutput; plo = STATS_min; phi_hi = STATS_max

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 2, 2 title sprintf("Surrogate: held-out φ = %.2f°, inverted %.3f° ± %.3f° (2 sd), error %+.3f°, %d design simulations (%d active)\n{/*0.85 the uniform design of the same count: %.3f° ± %.3f°}", phit, phie, tsd, phie - phit, nd, na, phiu, tsdu)
  set xrange [plo:phi_hi]
  set xlabel "friction angle  φ  [deg]"
  do for [k = 1:2] {
    mcol = k == 1 ? "R_mean_m" : "h_mean_m"; scol = k == 1 ? "R_sd_m" : "h_sd_m"; ycol = k == 1 ? "runout_m" : "h_center_m"
    yobs = k == 1 ? Robs : hobs; eobs = k == 1 ? eR : eh
    unset object; unset arrow
    set object 1 rect from graph 0, first yobs - eobs to graph 1, first yobs + eobs fc rgb "#f3d3d9" fs solid 0.5 noborder behind
    set arrow 1 from graph 0, first yobs to graph 1, first yobs nohead lw 1.5 lc rgb "#b00020"
    set arrow 2 from phit, graph 0 to phit, graph 1 nohead dt 2 lw 1.2 lc rgb "#b00020"
    set ylabel k == 1 ? "runout  R  [mm]" : "central pile height  h_c  [mm]"
    set title k == 1 ? "runout: GP ± 2 sd and the design runs" : "pile height: GP ± 2 sd and the design runs"
    if (k == 1) { set key top right } else { set key bottom right }
    set autoscale y
    plot s using "phi_deg":(1e3 * (column(mcol) - 2 * column(scol))):(1e3 * (column(mcol) + 2 * column(scol))) with filledcurves fc rgb "#9ecae1" fs solid 0.5 title "GP ± 2 sd (latent)", \
         s using "phi_deg":(1e3 * column(mcol)) with lines lw 2 lc rgb series_color(2) title "GP mean", \
         d using (role_is("initial", column("phi_deg"))):(1e3 * column(ycol)) with points pt 7 ps 1.3 lc rgb series_color(1) title "initial design", \
         d using (role_is("replicate", column("phi_deg"))):(1e3 * column(ycol)) with points pt 6 ps 1.5 lc rgb series_color(4) title "replicates (noise)", \
         d using (role_is("active", column("phi_deg"))):(1e3 * column(ycol)) with points pt 9 ps 1.6 lc rgb series_color(6) title "active points", \
         NaN with lines lw 1.5 lc rgb "#b00020" title "measured ± 2σ noise (band)", \
         NaN with lines dt 2 lw 1.2 lc rgb "#b00020" title "held-out φ"
  }
  unset object; unset arrow
  set object 1 rect from phie - tsd, graph 0 to phie + tsd, graph 1 fc rgb "#b8e0d2" fs solid 0.5 noborder behind
  set arrow 1 from phit, graph 0 to phit, graph 1 nohead dt 2 lw 1.5 lc rgb "#b00020"
  set xrange [phie - 4 * tsd - 0.5:phie + 4 * tsd + 0.5]
  set ylabel "posterior  p(φ | measured)  [1/deg]"
  set title "the inverse"
  set key top right
  set autoscale y
  plot s using "phi_deg":"posterior_per_deg" with lines lw 2.2 lc rgb series_color(2) title "active design", \
       s using "phi_deg":"posterior_u_per_deg" with lines lw 1.8 dt 2 lc rgb series_color(6) title "uniform design, same count", \
       NaN with lines lw 8 lc rgb "#b8e0d2" title "estimate ± 2 sd (active)", \
       NaN with lines dt 2 lw 1.5 lc rgb "#b00020" title "held-out φ"
  unset object; unset arrow
  set arrow 1 from graph 0, first target to graph 1, first target nohead dt 2 lw 1.5 lc rgb "#222222"
  stats in."/iterations.tsv" using "sims" nooutput
  set xrange [STATS_min - 0.5:STATS_max + 0.5]
  set xtics 1
  set xlabel "design simulations"
  set ylabel "posterior 2 sd  [deg]"
  stats in."/iterations.tsv" using "two_sd_deg" nooutput
  set yrange [0:(STATS_max > target ? STATS_max : target) * 1.25]
  set key bottom left
  set title "the active loop"
  plot in."/iterations.tsv" using "sims":"two_sd_deg" with linespoints pt 7 ps 1.3 lw 2 lc rgb series_color(2) title "2 sd after each run", \
       NaN with lines dt 2 lw 1.5 lc rgb "#222222" title "stated tolerance"
  unset multiplot
  unset output
}
