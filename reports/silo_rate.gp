# silo_rate.gp: discharge rate W(t) of the rate run (the largest aperture,
# drained from the full fill to 1.2 silo diameters) with the fill height:
# local rates from the parked mass in the sink and from the mass below the
# orifice plane (centred differences over +-5 samples), the window's GSL
# linear-fit rate with the +-5% band of the claim silo.rate_flat, the five
# sub-window fits, and the fill height over the silo width L (right axis).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/silo_rate.gp
#
# Reads RUN_DIR/rates.tsv (its last row is the rate run: W, D_geo_m,
# t_window_start_s, t_window_end_s, flatness), summary.tsv (geometry row),
# RUN_DIR/series_D<last>.tsv (t_s, W_sink_kg_per_s, W_plane_kg_per_s,
# fill_over_L) and RUN_DIR/rate_sub.tsv (t_mid_s, W_kg_per_s, t_lo_s, t_hi_s),
# all by column name (a slot's rates are per unit width: W_sink_kg_per_m_s,
# W_plane_kg_per_m_s, W_kg_per_m_s).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

# slot (W per unit width) or round (W per silo), from summary.tsv's geometry row
stats in."/summary.tsv" using (strcol("quantity") eq "geometry" ? (strcol("value") eq "slot" ? 1 : 0) : NaN) nooutput
slot = STATS_max > 0.5
wunit = slot ? "kg/(m s), per unit slot width" : "kg/s"
r = in."/rates.tsv"
stats r using "W" nooutput; nrun = STATS_records
last_row(name) = "stats r every ::(nrun - 1)::(nrun - 1) using \"".name."\" nooutput"
eval last_row("W"); W = STATS_min
eval last_row("t_window_start_s"); t0 = STATS_min
eval last_row("t_window_end_s"); t1 = STATS_min
eval last_row("flatness"); flat = STATS_min
eval last_row("D_geo_m"); Dmm = STATS_min * 1e3
f = in.sprintf("/series_D%d.tsv", nrun - 1)
stats f using "fill_over_L" nooutput; fmax = STATS_max
stats f using "t_s" nooutput; tmax = STATS_max
c_sink = first_col(f, "W_sink_kg_per_s W_sink_kg_per_m_s")
c_plane = first_col(f, "W_plane_kg_per_s W_plane_kg_per_m_s")
c_sub = first_col(in."/rate_sub.tsv", "W_kg_per_s W_kg_per_m_s")

set xlabel "time since the orifice opened  t  [s]"
set ylabel sprintf("discharge rate  W  [%s]", wunit)
# the fill height is read on the right axis: its axis, label and line share one colour
fill_color = series_color(4)
set y2label "fill height over silo width  h / L  (right axis)" tc rgb fill_color
set y2tics nomirror tc rgb fill_color
set ytics nomirror
set yrange [0:W * 1.6]
set y2range [0:fmax * 1.1]
set xrange [0:tmax]
# the local rates rise from 0 at the left and the fill line falls from the top
# left to h = 1.2 L at the right: the top right, above the steady rate
# (W is 1/1.6 of the axis) and the late fill, is where the key covers nothing
set key top right
set object 1 rect from t0, W * 0.95 to t1, W * 1.05 fc rgb "#b8e0d2" fs solid 0.5 noborder behind
set arrow 1 from graph 0, second 1.2 to graph 1, second 1.2 nohead dt 3 lw 1.5 lc rgb fill_color
set label 1 "h = 1.2 L (right axis)" at graph 0.99, second 1.2 right offset 0, 0.6 tc rgb fill_color
set title sprintf("Discharge rate while the %s silo empties (D = %.0f mm)\n{/*0.85 steady window %.2f–%.2f s: W = %.4g %s, max sub-window deviation %.1f%% (claim: ≤ 5%%)}", slot ? "slot" : "round", Dmm, t0, t1, W, wunit, 100 * flat)

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot f using "t_s":c_sink with lines lw 1.5 lc rgb series_color(2) title "W from the parked mass (local)", \
       f using "t_s":c_plane with lines lw 1.2 dt 2 lc rgb series_color(6) title "W through the orifice plane (local, dashed)", \
       (x >= t0 && x <= t1 ? W : NaN) with lines lw 2.5 lc rgb "#222222" title "window fit ± 5% (band)", \
       in."/rate_sub.tsv" using "t_mid_s":c_sub:"t_lo_s":"t_hi_s" with xerrorbars pt 7 ps 1.2 lc rgb series_color(7) title "sub-window fits", \
       f using "t_s":"fill_over_L" axes x1y2 with lines lw 2 lc rgb fill_color title "fill height h / L (right axis)"
  unset output
}
