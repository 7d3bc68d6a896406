# runout_profiles.gp: the final radially averaged deposit profiles h(r) of
# the aspect sweep, in units of R0 (both axes), one curve per aspect ratio,
# with each column's initial outline (dashed, same colour); past eight aspect
# ratios the colours repeat and the profiles are dash-dotted.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/runout_profiles.gp
#
# Reads, by column name, RUN_DIR/sweep.tsv (aspect) and profile_aNN.tsv
# (r_over_R0, h_m, h_over_H0), NN = 00 for the first aspect ratio.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

fs = in."/sweep.tsv"
stats fs using "aspect" nooutput; na = STATS_records
aspects = ""; do for [k = 0:na - 1] { stats fs every ::k::k using "aspect" nooutput; aspects = aspects.sprintf(" %g", STATS_min) }
stats in."/profile_a00.tsv" using "h_m":(column("h_m") / column("h_over_H0")) nooutput; H0_0 = STATS_max_y
R0 = H0_0 / word(aspects, 1)
set xlabel "r / R_0"
set ylabel "h / R_0"
set title "Final deposit profiles (radial mean) and initial columns"
set key top right
stats in.sprintf("/profile_a%02d.tsv", na - 1) using (column("h_m") > 0 ? column("r_over_R0") : NaN) nooutput; rmax = STATS_max
set xrange [0:rmax * 1.1]
# the deposits are far lower than the tall columns: the height axis follows the
# deposits, and the columns' outlines are clipped at its top
hmax = 0
do for [k = 0:na - 1] { stats in.sprintf("/profile_a%02d.tsv", k) using (column("h_m") / R0) nooutput; if (STATS_max > hmax) { hmax = STATS_max } }
set yrange [0:hmax * 1.6]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [k = 0:na - 1] in.sprintf("/profile_a%02d.tsv", k) using "r_over_R0":(column("h_m") / R0) with lines lw 2.5 \
         dt int(k < 8 ? 1 : 4) lc rgb series_color(1 + k % 8) title sprintf("a = %s", word(aspects, k + 1)), \
       for [k = 0:na - 1] '+' using (1):(0):(0):(word(aspects, k + 1) + 0) every ::0::0 with vectors nohead \
         lw 1.5 dt 2 lc rgb series_color(1 + k % 8) notitle, \
       for [k = 0:na - 1] '+' using (0):(word(aspects, k + 1) + 0):(1):(0) every ::0::0 with vectors nohead \
         lw 1.5 dt 2 lc rgb series_color(1 + k % 8) notitle, \
       NaN with lines lw 1.5 dt 2 lc rgb "#888888" title "initial columns (dashed, clipped)"
  unset output
}
