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
# Reads RUN_DIR/rates.tsv (one row per aperture, D_geo col 2) and
# RUN_DIR/exit_D<i>.tsv (pos/D col 2, v col 4, rho_state col 5,
# rho_counted col 6).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

stats in."/rates.tsv" using 2 nooutput; nrun = STATS_records
dlist = ""
do for [i = 0:nrun - 1] { stats in."/rates.tsv" every ::i::i using ($2 * 1e3) nooutput; dlist = dlist.sprintf(" %.0f", STATS_min) }
ef(i) = in.sprintf("/exit_D%d.tsv", i)
fig_h = 900

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 2,1 title "Orifice exit profiles over the steady window (band -dx <= z < 0, the orifice's top cell)"
  set xrange [-1:1]
  set xlabel "position across the aperture / D"
  set ylabel "exit speed  −v_z  [m/s]"
  set key top right
  set arrow 1 from -0.5, graph 0 to -0.5, graph 1 nohead dt 3 lc rgb "#6a6a6a"
  set arrow 2 from 0.5, graph 0 to 0.5, graph 1 nohead dt 3 lc rgb "#6a6a6a"
  plot for [i = 0:nrun - 1] ef(i) using 2:4 with linespoints pt 7 ps 0.7 lw 2 lc rgb series_color(i + 1) title sprintf("D = %s mm", word(dlist, i + 1))
  set ylabel "local density  [kg/m^3]"
  set yrange [0:3000]
  set key bottom center horizontal maxcols 4
  plot for [i = 0:nrun - 1] ef(i) using 2:5 with linespoints pt 7 ps 0.7 lw 2 lc rgb series_color(i + 1) title sprintf("D = %s mm", word(dlist, i + 1)), \
       1/0 with linespoints pt 7 ps 0.7 lw 2 lc rgb "#222222" title "particle state ρ_0/(det F·J_p)", \
       1/0 with lines lw 1.2 dt 2 lc rgb "#222222" title "counted mass / band volume", \
       for [i = 0:nrun - 1] ef(i) using 2:6 with lines lw 1.2 dt 2 lc rgb series_color(i + 1) notitle
  unset multiplot
  unset output
}
