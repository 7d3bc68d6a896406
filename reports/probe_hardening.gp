# probe_hardening.gp: with hardening on, the friction angle the element
# mobilises while it flows, against the hardening law it was fed.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/probe_hardening.gp
#   optional: every_n=20  (draw every n-th row of hardening.tsv as a point)
#
# The curve is the analytic hardening law of Klar et al. 2016 (sec. 4),
#   phi_F(q) = h0 + (h1 q - h3) exp(-h2 q),  h0 35, h1 9, h2 0.2, h3 10 deg,
# the parameters the probe runs with (its hardening.tsv comment line names
# them); q is the accumulated plastic strain. The points are the probe's
# phi_mob from RUN_DIR/hardening.tsv (q, phi_F_deg, phi_mob_deg, err_deg);
# the lower panel is |phi_mob - phi_F| per row against the tolerance of claim
# probe.hardening from RUN_DIR/claims.tsv.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/hardening.tsv"
every_n = exists("every_n") ? every_n : 20
h0 = 35.0; h1 = 9.0; h2 = 0.2; h3 = 10.0
phi_F(q) = h0 + (h1 * q - h3) * exp(-h2 * q)

CLAIM_ID = "probe.hardening"; CLAIM_COL = "tolerance"; eval load_claim
tol = claim_value

fig_h = 780
set samples 600
set xrange [0:30]
L = 0.11; R = 0.97

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot title "Hardening: mobilised friction angle against φ_F(q) (Klar et al. 2016), triaxial compression"

  set lmargin at screen L; set rmargin at screen R
  set tmargin at screen 0.91; set bmargin at screen 0.40
  set format x ""; unset xlabel
  set ylabel "friction angle  [deg]"
  set yrange [20:52]
  set key bottom right
  plot phi_F(x) with lines lw 2.5 lc rgb "#222222" \
         title "φ_F(q) = 35° + (9q − 10°) e^{−0.2q}", \
       f every every_n using "q":"phi_mob_deg" with points pt 6 ps 1.2 lw 1.5 lc rgb "#e8730c" \
         title sprintf("probe φ_{mob} (every %d^{th} row)", every_n)

  set tmargin at screen 0.37; set bmargin at screen 0.09
  set format x "%g"
  set xlabel "accumulated plastic strain  q"
  set ylabel "|φ_{mob} − φ_F|  [deg]"
  set logscale y
  set format y "10^{%L}"; set ytics 100
  set yrange [1e-9:1]
  set key top right
  if (tol == tol) {
    plot tol with lines dt 3 lw 1.5 lc rgb "#b00020" title sprintf("claim tolerance %g°", tol), \
         f using "q":(column("err_deg") > 0 ? column("err_deg") : NaN) with points pt 7 ps 0.35 lc rgb "#e8730c" title "all rows of hardening.tsv"
  } else {
    plot f using "q":(column("err_deg") > 0 ? column("err_deg") : NaN) with points pt 7 ps 0.35 lc rgb "#e8730c" title "all rows of hardening.tsv"
  }
  unset logscale y; set format y "%g"; set autoscale y
  unset multiplot
  unset output
}
