# probe_cohesion.gp: cohesive Drucker-Prager sand in unconfined compression,
# the probe's stress paths in the p-q plane for one cohesion, one per
# friction angle phi, with the cone each should stop on and its tip.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/probe_cohesion.gp
#   optional: coh=1000  (Pa; which cohesion to draw, default 1000)
#
# Reads RUN_DIR/cohesion_paths.tsv by column name: phi_deg, c_Pa, p_Pa, q_Pa
# (Kirchhoff invariants, compression positive: p = -tr(tau)/3, q the axial
# minus lateral stress). The dots are the closed-form q_u, not read from the run.
#
# The yield line is the analytic cone (references/derivations/cohesion.md),
# not a fit: on the compression meridian q = M (p + c cot phi) with
# M = 6 sin(phi) / (3 - sin(phi)); its tip is p = -c cot phi. The unconfined
# path is q = 3 p from the origin and meets it at q_u = 2 c cos(phi) / (1 - sin(phi)).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

coh = exists("coh") ? coh : 1000
f = in."/cohesion_paths.tsv"
phis = "20 30 35 40 45"
n = words(phis)
deg = pi / 180
M(phi) = 6 * sin(phi * deg) / (3 - sin(phi * deg))
ccot(phi) = coh / tan(phi * deg) / 1e3
qu(phi) = 2 * coh * cos(phi * deg) / (1 - sin(phi * deg)) / 1e3
phi_i(i) = word(phis, i) + 0
sel(i, v) = (abs(column("phi_deg") - phi_i(i)) < 1e-9 && abs(column("c_Pa") - coh) < 1e-6) ? v : NaN

pmin = -ccot(phi_i(1)) * 1.1
pmax = qu(phi_i(n)) / 3 * 1.3
set xrange [pmin:pmax]
set yrange [0:qu(phi_i(n)) * 1.15]
set xlabel "mean pressure  p = −tr τ / 3  [kPa]"
set ylabel "deviator  q = τ_{lateral} − τ_{axial}  [kPa]"
set title sprintf("Unconfined compression of cohesive sand, c = %g kPa\n{/*0.85 solid: probe stress path; ● closed-form q_u, where each must end; dashed: cone q = M(φ)(p + c cot φ); ▲ tip p = −c cot φ}", coh / 1e3)
set key top left title "fed φ"
set xzeroaxis lt 1 lc rgb "#888888"
set yzeroaxis lt 1 lc rgb "#888888"
set samples 400

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [i = n:1:-1] (x >= -ccot(phi_i(i)) ? M(phi_i(i)) * (x + ccot(phi_i(i))) : NaN) with lines dt 2 lw 1.5 \
         lc rgb series_color(i) notitle, \
       for [i = n:1:-1] f using (sel(i, column("p_Pa") / 1e3)):(sel(i, column("q_Pa") / 1e3)) with lines lw 3 \
         lc rgb series_color(i) title sprintf("%g°", phi_i(i)), \
       for [i = n:1:-1] '+' using (-ccot(phi_i(i))):(0) every ::0::0 with points pt 9 ps 1.8 lc rgb series_color(i) notitle, \
       for [i = n:1:-1] '+' using (qu(phi_i(i)) / 3):(qu(phi_i(i))) every ::0::0 with points pt 7 ps 1.6 \
         lc rgb series_color(i) notitle
  unset output
}
