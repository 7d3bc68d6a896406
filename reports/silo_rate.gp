# silo_rate.gp: discharge rate W(t) of the rate run (the largest aperture,
# drained from the full fill to 1.2 silo diameters) with the fill height:
# local rates from the parked mass in the sink and from the mass below the
# orifice plane (centred differences over +-5 samples), the window's GSL
# linear-fit rate with the +-5% band of the claim silo.rate_flat, the five
# sub-window fits, and the fill height over the silo width L (right axis).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/silo_rate.gp
#
# Reads RUN_DIR/rates.tsv (its last row is the rate run: W col 4, window
# cols 14-15, flatness col 12), summary.tsv (geometry row), RUN_DIR/series_D<last>.tsv (t col 1, W_sink
# col 4, W_plane col 5, fill/L col 7, in_window col 10) and
# RUN_DIR/rate_sub.tsv (t_mid col 1, W_k col 2).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

# slot (W per unit width) or round (W per silo), from summary.tsv's geometry row
stats in."/summary.tsv" using (strcol(1) eq "geometry" ? (strcol(2) eq "slot" ? 1 : 0) : NaN) nooutput
slot = STATS_max > 0.5
wunit = slot ? "kg/(m s), per unit slot width" : "kg/s"
r = in."/rates.tsv"
stats r using 4 nooutput; nrun = STATS_records; W = STATS_max
stats r every ::(nrun - 1)::(nrun - 1) using 4 nooutput; W = STATS_min
stats r every ::(nrun - 1)::(nrun - 1) using 14 nooutput; t0 = STATS_min
stats r every ::(nrun - 1)::(nrun - 1) using 15 nooutput; t1 = STATS_min
stats r every ::(nrun - 1)::(nrun - 1) using 12 nooutput; flat = STATS_min
stats r every ::(nrun - 1)::(nrun - 1) using ($2 * 1e3) nooutput; Dmm = STATS_min
f = in.sprintf("/series_D%d.tsv", nrun - 1)
stats f using 7 nooutput; fmax = STATS_max

set xlabel "time since the orifice opened  t  [s]"
set ylabel sprintf("discharge rate  W  [%s]", wunit)
set y2label "fill height over silo width  h / L"
set y2tics nomirror
set ytics nomirror
set yrange [0:W * 1.6]
set y2range [0:fmax * 1.1]
set key bottom left
set object 1 rect from t0, W * 0.95 to t1, W * 1.05 fc rgb "#b8e0d2" fs solid 0.5 noborder behind
set arrow 1 from graph 0, second 1.2 to graph 1, second 1.2 nohead dt 3 lw 1.5 lc rgb "#6a6a6a"
set label 1 "h = 1.2 L" at graph 0.99, second 1.27 right tc rgb "#6a6a6a"
set title sprintf("Discharge rate while the %s silo empties (D = %.0f mm)\n{/*0.85 steady window %.2f–%.2f s: W = %.4g %s, max sub-window deviation %.1f%% (claim: ≤ 5%%)}", slot ? "slot" : "round", Dmm, t0, t1, W, wunit, 100 * flat)

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot f using 1:4 with lines lw 1.5 lc rgb series_color(2) title "W from the parked mass (local)", \
       f using 1:5 with lines lw 1.2 dt 2 lc rgb series_color(6) title "W through the orifice plane (local)", \
       (x >= t0 && x <= t1 ? W : NaN) with lines lw 2.5 lc rgb "#222222" title "window fit ± 5%", \
       in."/rate_sub.tsv" using 1:2:3:4 with xerrorbars pt 7 ps 1.2 lc rgb series_color(7) title "sub-window fits", \
       f using 1:7 axes x1y2 with lines lw 2 lc rgb series_color(4) title "fill height h / L (right axis)"
  unset output
}
