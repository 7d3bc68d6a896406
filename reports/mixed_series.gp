# mixed_series.gp: the mixed-material demo's claimed quantities against
# time. Left: the jelly scene, the floor's vertical force over the weight
# fed, (m_sand + m_jelly) g (claim mixed.jelly.floor_load), and the
# block's centre height above its fed rest height in cells (claim
# mixed.jelly.rest_height). Right: the dam scene, the floor's horizontal
# force (the friction that holds the dam) and the left wall's, each over
# the hydrostatic thrust fed, 1/2 rho_w g h^2 per slab width (claim
# mixed.dam.thrust). Forces are per sampling interval, from impulse
# differences; the claims average the last window.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/mixed_series.gp
#
# Reads RUN_DIR/series.tsv (scene, t_s, floor_Fx_N, floor_Fz_N, left_Fx_N,
# norm_N, other_com_z_m) and RUN_DIR/summary.tsv (quantity, value).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
fig_w = 1500
fig_h = 650
load here."common.gp"

f = in."/series.tsv"
ROW_FILE = in."/summary.tsv"; ROW_KEY_COL = "quantity"; ROW_COL = "value"
ROW_KEY = "jelly_com_z_fed"; eval load_row; z_rest = row_value
ROW_KEY = "dam_water_depth_fed"; eval load_row; h_w = row_value

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 1, 2
  set title "Jelly block on a sand bed"
  set xlabel "t (s)"
  set ylabel "floor F_z / ((m_{sand} + m_{jelly}) g)"
  set y2label "block centre above its fed rest height (m)"
  set ytics nomirror
  set y2tics
  set yrange [0:2]
  set y2range [-0.02:0.06]
  set key top right
  plot 1 with lines dt 2 lw 2 lc rgb "#444444" title "weight fed", \
       f using "t_s":(strcol("scene") eq "jelly" ? -column("floor_Fz_N") / column("norm_N") : NaN) with lines lw 1.5 lc rgb "#c8a04a" title "floor F_z (per 5 ms)", \
       f using "t_s":(strcol("scene") eq "jelly" ? column("other_com_z_m") - z_rest : NaN) axes x1y2 with lines lw 2 lc rgb "#d81b60" title "block centre - (bed top + h/2)"
  unset y2label
  unset y2tics
  set ytics mirror
  set title sprintf("Water against a sand dam (fed depth h = %.3f m)", h_w)
  set ylabel "horizontal force / (1/2 ρ_w g h^2 l_y)"
  set yrange [0:1.6]
  set key bottom right
  plot 1 with lines dt 2 lw 2 lc rgb "#444444" title "hydrostatic thrust fed", \
       f using "t_s":(strcol("scene") eq "dam" ? column("floor_Fx_N") / column("norm_N") : NaN) with lines lw 1.5 lc rgb "#c8a04a" title "floor F_x (friction under the dam)", \
       f using "t_s":(strcol("scene") eq "dam" ? -column("left_Fx_N") / column("norm_N") : NaN) with lines lw 2 lc rgb "#1e88e5" title "left wall -F_x (water on the wall)"
  unset multiplot
  unset output
}
