# snow_hardening.gp: the hardening of snow under compaction (exp_snow): the
# Kirchhoff stress tau_zz = sigma_zz s on a log scale against the gauge
# particles' mean Jp, which the law makes a line of slope -xi past the
# elastic limit (references/derivations/snow.md sec. 5), beside the law's
# own tau against its Jp.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/snow_hardening.gp
#
# Reads RUN_DIR/curve.tsv (strain_gauge, sigma_plate_Pa, sigma_law_Pa,
# Jp_gauge, Jp_law).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/curve.tsv"
set xlabel "plastic volume ratio J_p"
set ylabel "Kirchhoff stress -τ_{zz} = σ_{zz} s  [kPa]"
set logscale y
set key top right
set xrange [*:1.005]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Compaction hardens snow as exp(ξ (1 - J_p))"
  plot f using "Jp_law":(column("sigma_law_Pa") * (1 - column("strain_gauge")) / 1e3) with lines lw 2.5 lc rgb "#222222" title "law (0-D element): slope -ξ past the elastic limit", \
       f using "Jp_gauge":(column("sigma_plate_Pa") * (1 - column("strain_gauge")) / 1e3) with points pt 7 ps 1.1 lc rgb "#3b528b" title "scene: plate stress × gauge stretch against the gauge's mean J_p"
  unset output
}
