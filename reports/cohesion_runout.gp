# cohesion_runout.gp: the cohesive column collapse's runout against the
# cohesion number c* = c / (rho g H0), with the closed-form bracket of the
# standing threshold.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/cohesion_runout.gp
#
# Reads RUN_DIR/sweep.tsv (c_star, dR_over_R0, stands) and RUN_DIR/bracket.tsv
# (cstar_vertical_cut, cstar_static, cstar_stands_from, dx_over_R0), by
# column name. The bracket is the closed form of the fed phi
# (references/derivations/cohesion.md sec. 6): at c*_s = (1 - sin phi) /
# (2 cos phi) the base's uniaxial gravity stress reaches the unconfined
# strength; at c*_s / 2 the column is Terzaghi's critical vertical cut.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/sweep.tsv"
b = in."/bracket.tsv"
stats b using (column("cstar_vertical_cut")) nooutput; c_lo = STATS_min
stats b using (column("cstar_static")) nooutput; c_hi = STATS_min
stats b using (column("dx_over_R0")) nooutput; one_dx = STATS_min
stats f using (column("c_star")):(column("dR_over_R0")) nooutput
xmax = STATS_max_x * 1.1; ymax = STATS_max_y * 1.15

set xrange [-0.01:xmax]
set yrange [-0.05:ymax]
set xlabel "cohesion number  c* = c / (ρ_0 g H_0)"
set ylabel "runout  (R_∞ − R_0) / R_0"
set title "Cohesive column collapse, a = 2: runout against cohesion\n{/*0.85 shaded: closed-form bracket of the standing threshold [c*_s/2, c*_s]; dotted: 1 dx; ● stands, ○ collapses}"
set key top right
set object 1 rect from c_lo, graph 0 to c_hi, graph 1 back fc rgb "#cfe3f5" fs solid 0.6 noborder
set label 1 "vertical cut\nH_c = 2 q_u / ρg" at first c_lo, graph 0.93 right offset -0.5, 0 font ",10" tc rgb "#335577"
set label 2 "ρ g H = q_u" at first c_hi, graph 0.93 left offset 0.5, 0 font ",10" tc rgb "#335577"

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot one_dx with lines dt 3 lw 1.5 lc rgb "#777777" title "1 dx", \
       f using (column("c_star")):(column("dR_over_R0")) with lines lw 2 lc rgb series_color(2) title "runout (mass-fraction toe)", \
       f using (column("c_star")):(column("stands") > 0 ? column("dR_over_R0") : NaN) with points pt 7 ps 1.8 lc rgb series_color(2) notitle, \
       f using (column("c_star")):(column("stands") > 0 ? NaN : column("dR_over_R0")) with points pt 6 ps 1.8 lw 2 lc rgb series_color(2) notitle
  unset output
}
