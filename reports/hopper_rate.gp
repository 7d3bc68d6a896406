# hopper_rate.gp: the hopper demo's discharge rate against the orifice
# diameter: every silo run of the GSL Brent root search (numbered in order,
# error bars W's relative standard error), the independent re-run at the
# found diameter, the target W* with the claim's +-2% band, and Beverloo's law
# with the silo experiment's C and k (when that run was found).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/hopper_rate.gp
#
# Reads, by column name, RUN_DIR/evaluations.tsv (sim, role, D_m, W,
# W_rel_se), beverloo_curve.tsv (D_m, W_beverloo) and summary.tsv (quantity,
# value, unit: target_W, D_found, rerun_error, simulations_search,
# D_beverloo).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

e = in."/evaluations.tsv"
ROW_FILE = in."/summary.tsv"; ROW_KEY_COL = "quantity"; ROW_COL = "value"
ROW_KEY = "target_W"; eval load_row; Wt = row_value
ROW_KEY = "D_found"; eval load_row; Df = row_value * 1e3
ROW_KEY = "rerun_error"; eval load_row; rerr = row_value
ROW_KEY = "simulations_search"; eval load_row; nsim = row_value
ROW_KEY = "D_beverloo"; eval load_row; Dbev = row_value * 1e3
wunit = system(sprintf("awk -F'\t' '$1 == \"target_W\" {print $3}' '%s'", in."/summary.tsv"))
stats e using (column("D_m") * 1e3) nooutput; dlo = STATS_min; dhi = STATS_max
stats e using "W" nooutput; wlo = STATS_min; whi = STATS_max
stats e using "sim" nooutput; nrow = STATS_max
role_is(r, v) = strcol("role") eq r ? v : NaN
searched(v) = strcol("role") ne "re-run" ? v : NaN

set xlabel "orifice diameter  D  [mm]"
set ylabel sprintf("discharge rate  W  [%s]", wunit)
set xrange [dlo - 0.08 * (dhi - dlo):dhi + 0.08 * (dhi - dlo)]
set yrange [0:whi * 1.15]
set object 1 rect from graph 0, first Wt * 0.98 to graph 1, first Wt * 1.02 fc rgb "#b8e0d2" fs solid 0.6 noborder behind
set arrow 1 from graph 0, first Wt to graph 1, first Wt nohead lw 1.5 lc rgb "#222222"
set arrow 2 from Df, graph 0 to Df, graph 1 nohead dt 2 lw 1.5 lc rgb series_color(2)
if (Dbev == Dbev) { set arrow 3 from Dbev, graph 0 to Dbev, graph 1 nohead dt 3 lw 1.5 lc rgb series_color(6) }
set key top left
ttl = sprintf("Hopper design: W* = %g %s reached at D = %.2f mm in %d simulations\n{/*0.85 independent re-run: %+.2f%% of W* (claim: within ± 2%%); Beverloo inverted with the silo run's C, k: %s}", Wt, wunit, Df, nsim, 100 * rerr, Dbev == Dbev ? sprintf("D = %.2f mm (%+.1f%%)", Dbev, 100 * (Df / Dbev - 1)) : "no silo run found")

fig_w = 1300
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot title ttl
  set size 0.62, 0.93; set origin 0, 0
  plot in."/beverloo_curve.tsv" using (column("D_m") * 1e3):"W_beverloo" with lines lw 2 dt 3 lc rgb series_color(6) title "Beverloo, the silo experiment's C and k", \
       e using (searched(column("D_m") * 1e3)):"W":(column("W") * column("W_rel_se")) with yerrorbars pt 7 ps 1.4 lc rgb series_color(2) title "search runs (bracket, Brent), ± s.e.", \
       e using (searched(column("D_m") * 1e3)):"W":(sprintf("%d", column("sim"))) with labels offset 1.2, -0.9 font ",10" notitle, \
       e using (role_is("re-run", column("D_m") * 1e3)):"W":(column("W") * column("W_rel_se")) with yerrorbars pt 9 ps 2 lc rgb "#b00020" title "independent re-run at the found D", \
       NaN with lines lw 1.5 lc rgb "#222222" title "target W* ± 2% (band)", \
       NaN with lines dt 2 lw 1.5 lc rgb series_color(2) title "found D"
  set size 0.38, 0.93; set origin 0.62, 0
  unset arrow; unset object
  set object 1 rect from graph 0, first -2 to graph 1, first 2 fc rgb "#b8e0d2" fs solid 0.6 noborder behind
  set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lw 1.5 lc rgb "#222222"
  set xlabel "simulation number"
  set ylabel "W / W* - 1  [%]"
  set xrange [0.5:nrow + 0.5]
  set xtics 1
  set yrange [-8:8]
  set key bottom right
  set label 1 "the rows off the axis: the bracket" at graph 0.03, graph 0.95 font ",10"
  plot e using "sim":(searched(100 * (column("W_over_target") - 1))):(100 * column("W_over_target") * column("W_rel_se")) with yerrorbars pt 7 ps 1.4 lc rgb series_color(2) title "search", \
       e using "sim":(role_is("re-run", 100 * (column("W_over_target") - 1))):(100 * column("W_over_target") * column("W_rel_se")) with yerrorbars pt 9 ps 2 lc rgb "#b00020" title "re-run"
  unset label 1
  unset multiplot
  unset output
}
