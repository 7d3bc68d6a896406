# probe_pq.gp: the constitutive probe's triaxial-compression stress paths in
# the p-q plane, one per friction angle phi at one confining pressure, with
# the Drucker-Prager cone each path should stop on.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/probe_pq.gp
#   optional: pconf=5000  (Pa; which confining pressure to draw, default 5000,
#                          present at both scales)
#
# Reads RUN_DIR/paths.tsv (blocks per (phi, p_conf)), by column name:
# phi_deg, p_conf_Pa, p_Pa, q_Pa. p = -tr(tau)/3 and q = sqrt(3/2)|dev tau| are
# the probe's Kirchhoff-stress invariants, compression positive.
#
# The yield line is the analytic cone (REFERENCES; Klar et al. 2016), not a
# fit to the run: the yield condition |dev tau| + alpha tr(tau) = 0 with
# tr(tau) = -3p and |dev tau| = sqrt(2/3) q gives q = 3 sqrt(3/2) alpha p,
# alpha = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

pconf = exists("pconf") ? pconf : 5000
f = in."/paths.tsv"
eval find_blocks
if (n == 0) {
  print sprintf("probe_pq.gp: no path at p_conf = %g Pa in %s", pconf, f)
  exit status 1
}

deg = pi / 180
alpha(phi) = sqrt(2.0 / 3) * 2 * sin(phi * deg) / (3 - sin(phi * deg))
slope(phi) = 3 * sqrt(1.5) * alpha(phi)    # q / p on the cone
phi_i(i) = word(phis, i) + 0
blk(i) = word(blocks, i) + 0
last(i) = word(lens, i) - 1

# The paths: elastic at slope 3 from (p_conf, 0) (constant cell pressure),
# then fixed at the critical state on the cone. All paths share the slope-3
# line, so the largest phi (the longest path) is drawn first and the shorter
# paths over it; the dot is each path's last row, its critical state.
stats f using (in_block(blk(n), column("p_Pa") / 1e3)):(in_block(blk(n), column("q_Pa") / 1e3)) nooutput
pmax = STATS_max_x; qmax = STATS_max_y
set xrange [0:pmax * 1.12]
set yrange [0:qmax * 1.12]
set xlabel "mean pressure  p = −tr τ / 3  [kPa]"
set ylabel "von Mises stress  q = (3/2)^{1/2} |dev τ|  [kPa]"
set title sprintf("Triaxial compression to critical state at confining pressure %g kPa\n{/*0.85 solid: probe stress path, ● critical state; dashed: Drucker–Prager cone q = 3 (3/2)^{1/2} α(φ) p}", pconf / 1e3)
set key top left title "fed φ"
d_lab = 0.1 * (pmax - pconf / 1e3)
set label 1 "elastic: slope 3" at first pconf / 1e3 + d_lab, first 3 * d_lab left offset 1, -0.5 \
  font ",10" tc rgb "#555555"

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [i = n:1:-1] slope(phi_i(i)) * x with lines dt 2 lw 1.5 lc rgb series_color(i) notitle, \
       for [i = n:1:-1] f using (column("p_Pa") / 1e3):(in_block(blk(i), column("q_Pa") / 1e3)) with lines lw 3 lc rgb series_color(i) \
         title sprintf("%g°", phi_i(i)), \
       for [i = n:1:-1] f using (column("p_Pa") / 1e3):(in_block(blk(i), column(0) == last(i) ? column("q_Pa") / 1e3 : NaN)) \
         with points pt 7 ps 1.6 lc rgb series_color(i) notitle
  unset output
}
