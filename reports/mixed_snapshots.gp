# mixed_snapshots.gp: the mixed-material demo's two scenes, particles of
# the slab's first lattice layer coloured by material, at three times each
# (rows: start, just after the impact or the release, at rest): left column
# the jelly block dropped onto the sand bed, right column the water
# released against the sand dam.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/mixed_snapshots.gp
#
# Reads RUN_DIR/snapshots.tsv (scene, snap, t_s, x_m, z_m, material; entry
# 0 sand, 1 jelly or water).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
fig_w = 1400
fig_h = 1000
load here."common.gp"

f = in."/snapshots.tsv"
scenes = "jelly dam"
other = "jelly water"
other_col = "#d81b60 #1e88e5"
sand_col = "#c8a04a"

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 3, 2 columnsfirst title "Several materials in one simulation (plane strain): sand with jelly, sand with water"
  do for [s = 1:2] {
    sc = word(scenes, s)
    set autoscale xy
    stats f using (strcol("scene") eq sc ? column("x_m") : NaN) nooutput
    xmax = STATS_max
    stats f using (strcol("scene") eq sc ? column("z_m") : NaN) nooutput
    zmax = STATS_max
    do for [k = 0:2] {
      set autoscale xy
      stats f using (strcol("scene") eq sc && column("snap") == k ? column("t_s") : NaN) nooutput
      tk = STATS_max
      set title sprintf("%s, t = %.3f s", sc, tk)
      set size ratio -1
      set xrange [-0.01:xmax + 0.01]
      set yrange [-0.01:zmax + 0.01]
      set xlabel "x (m)"
      set ylabel "z (m)"
      set key top right font ",10"
      plot f using (strcol("scene") eq sc && column("snap") == k && column("material") == 0 ? column("x_m") : NaN):"z_m" \
             with points pt 7 ps 0.35 lc rgb sand_col title "sand", \
           f using (strcol("scene") eq sc && column("snap") == k && column("material") == 1 ? column("x_m") : NaN):"z_m" \
             with points pt 7 ps 0.35 lc rgb word(other_col, s) title word(other, s)
    }
  }
  unset multiplot
  unset output
}
