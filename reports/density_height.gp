# density_height.gp: density against height above the floor in the settled
# dropped block: per height bin the mean, min and max of rho0/(det F Jp), the
# mean of rho0/det F alone, and the central column's mean against the
# oedometric (laterally confined, elastic) estimate of that column.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/density_height.gp
#
# Reads RUN_DIR/density_height.tsv (z_m, n_particles, mean_rho_kg_m3,
# min_rho_kg_m3, max_rho_kg_m3, mean_rho0_over_detF_kg_m3,
# column_mean_rho_kg_m3, oedometric_rho_kg_m3); bins are dx high. The
# oedometric curve is rho0 exp(rho0 g (z_top - z) / (lambda + 2 mu)) with
# z_top the column's highest particle: the whole signal elastic compaction
# can give, well under 1% here.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/density_height.tsv"
rho0 = 2200.0
set ylabel "height above the floor  [mm]"
set xlabel "density  [kg/m^3]"
# the min–max bars span most of the density axis at every height: the key goes
# below the axes, where it covers nothing
set key outside below center maxcols 2
fig_h = 780
set xrange [*:2400]
set arrow 1 from rho0, graph 0 to rho0, graph 1 nohead lw 1.5 dt 3 lc rgb "#222222"
set label 1 "ρ_0" at rho0, graph 0.97 offset 0.5, 0 left front

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Settled dropped block: density against height"
  plot f using "mean_rho_kg_m3":(column("z_m") * 1e3):"min_rho_kg_m3":"max_rho_kg_m3" with xerrorbars pt 0 lw 1 lc rgb "#9aa7c7" title "min–max of ρ_0/(det F·J_p) in the bin", \
       f using "mean_rho_kg_m3":(column("z_m") * 1e3) with linespoints pt 7 ps 1 lw 2 lc rgb "#3b528b" title "mean ρ_0/(det F·J_p), all particles", \
       f using "column_mean_rho_kg_m3":(column("z_m") * 1e3) with linespoints pt 5 ps 0.9 lw 2 lc rgb "#21918c" title "mean ρ_0/(det F·J_p), central column", \
       f using "mean_rho0_over_detF_kg_m3":(column("z_m") * 1e3) with linespoints pt 9 ps 1 lw 2 lc rgb "#e8730c" title "mean ρ_0/det F alone", \
       f using "oedometric_rho_kg_m3":(column("z_m") * 1e3) with lines lw 2 dt 2 lc rgb "#c2185b" title "oedometric elastic estimate (column)"
  unset output
}
