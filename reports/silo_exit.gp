# silo_exit.gp: profiles across the orifice plane z = 0 over the steady
# window, one colour per aperture: the exit speed (mass-weighted mean of
# -v_z) and the local density from particle state rho0/(det F Jp) (solid)
# with the density from counting mass in the band (dashed), against the
# position over the resolved aperture D (x from the centre for the slot, r
# from the axis for the round orifice). The closure integrates the product.
# Beyond |x| = D/2 the band holds sand resting on the floor, a fraction of a
# cell into its top layer: it barely moves, so it adds nothing to the flux.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/silo_exit.gp
#
# Reads RUN_DIR/rates.tsv (one row per aperture, D_geo_m) and
# RUN_DIR/exit_D<i>.tsv (pos_over_D, v_exit_m_s, rho_state_kg_m3,
# rho_counted_kg_m3), by column name. A round orifice's profiles are radial
# (r >= 0): its axis starts at the axis, a slot's spans both sides. The key's
# "counted mass" is the mass in the band over the band's volume.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

stats in."/rates.tsv" using "D_geo_m" nooutput; nrun = STATS_records
dlist = ""
do for [i = 0:nrun - 1] { stats in."/rates.tsv" every ::i::i using (column("D_geo_m") * 1e3) nooutput; dlist = dlist.sprintf(" %.0f", STATS_min) }
ef(i) = in.sprintf("/exit_D%d.tsv", i)
# the narrowest position over every aperture: >= 0 for a radial (round) profile
pmin = 0; pmax = 0
do for [i = 0:nrun - 1] { stats ef(i) using "pos_over_D" nooutput; if (STATS_min < pmin) { pmin = STATS_min }; if (STATS_max > pmax) { pmax = STATS_max } }
radial = pmin > -0.01
xlo = radial ? 0 : -1
fig_h = 900

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 2,1 title "Orifice exit profiles over the steady window (band -dx <= z < 0, the orifice's top cell)"
  set xrange [xlo:1]
  set xlabel radial ? "distance from the orifice axis  r / D" : "position across the aperture  x / D"
  set ylabel "exit speed  −v_z  [m/s]"
  # the key beside the axes: inside, it covers the profiles' flanks or the floor's band
  set key outside right top
  set lmargin at screen 0.1; set rmargin at screen 0.70
  if (!radial) { set arrow 1 from -0.5, graph 0 to -0.5, graph 1 nohead dt 3 lc rgb "#6a6a6a" }
  set arrow 2 from 0.5, graph 0 to 0.5, graph 1 nohead dt 3 lc rgb "#6a6a6a"
  set label 3 "edge of the\naperture (dotted)" at 0.5, graph 0.95 offset 0.5, 0 left font ",10" tc rgb "#6a6a6a"
  plot for [i = 0:nrun - 1] ef(i) using "pos_over_D":"v_exit_m_s" with linespoints pt 7 ps 0.7 lw 2 lc rgb series_color(i + 1) title sprintf("D = %s mm", word(dlist, i + 1))
  set ylabel "local density  [kg/m^3]"
  set yrange [0:3000]
  unset label 3
  set key outside right top
  plot for [i = 0:nrun - 1] ef(i) using "pos_over_D":"rho_state_kg_m3" with linespoints pt 7 ps 0.7 lw 2 lc rgb series_color(i + 1) title sprintf("D = %s mm", word(dlist, i + 1)), \
       1/0 with linespoints pt 7 ps 0.7 lw 2 lc rgb "#222222" title "solid: ρ_0/(det F·J_p)", \
       1/0 with lines lw 1.2 dt 2 lc rgb "#222222" title "dashed: counted mass", \
       for [i = 0:nrun - 1] ef(i) using "pos_over_D":"rho_counted_kg_m3" with lines lw 1.2 dt 2 lc rgb series_color(i + 1) notitle
  unset multiplot
  unset output
}
