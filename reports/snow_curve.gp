# snow_curve.gp: oedometric compression of snow (exp_snow): the plate's
# stress against the bulk's strain (the particle gauge) beside the model's
# law at that strain (one element through the library's update), and the
# same stress against the plate's own strain, which runs ahead of the bulk
# by the walls' first cells.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/snow_curve.gp
#
# Reads RUN_DIR/curve.tsv (strain_plate, strain_gauge, sigma_plate_Pa,
# sigma_floor_Pa, sigma_law_Pa, sigma_law_plate_strain_Pa).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/curve.tsv"
set xlabel "compressive strain  1 - s"
set ylabel "compressive stress σ_{zz}  [kPa]"
set key top left
set xrange [0:*]
set yrange [0:*]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title "Snow in oedometric compression: scene against the model's own law"
  plot f using "strain_gauge":(column("sigma_law_Pa") / 1e3) with lines lw 2.5 lc rgb "#222222" title "law at the gauge's strain (0-D element, library update)", \
       f using "strain_gauge":(column("sigma_plate_Pa") / 1e3) with points pt 7 ps 1.1 lc rgb "#3b528b" title "plate force / W^2 against the gauge's strain", \
       f using "strain_gauge":(column("sigma_floor_Pa") / 1e3) with points pt 6 ps 1.5 lc rgb "#21918c" title "floor force / W^2 against the gauge's strain", \
       f using "strain_plate":(column("sigma_plate_Pa") / 1e3) with points pt 9 ps 1 lc rgb "#e8730c" title "plate force / W^2 against the plate's travel / H_0"
  unset output
}
