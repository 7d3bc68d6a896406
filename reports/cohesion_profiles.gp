# cohesion_profiles.gp: the cohesive columns' deposits, radial profiles of
# the mean height, one per cohesion number c*.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/cohesion_profiles.gp
#
# Reads RUN_DIR/profiles.tsv (c_star, r_over_R0, h_over_H0; a block per c*)
# and the list of c* from RUN_DIR/sweep.tsv, by column name.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/profiles.tsv"
cs = system(sprintf("awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"c_star\") k = i; h = 1; next} {print $k}' '%s/sweep.tsv'", in))
n = words(cs)
c_i(i) = word(cs, i) + 0

stats f using (column("h_over_H0") > 0 ? column("r_over_R0") : NaN) nooutput
set xrange [0:STATS_max * 1.15]
set yrange [0:1.1]
set xlabel "r / R_0"
set ylabel "mean height  h / H_0"
set title "Cohesive column collapse, a = 2: deposits after t_{max}\n{/*0.85 annular mean height, one curve per cohesion number c* = c / (ρ_0 g H_0); the initial column is h = 1 for r < 1}"
set key top right title "c*"

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [i = 1:n] f using (abs(column("c_star") - c_i(i)) < 1e-6 ? column("r_over_R0") : NaN):(column("h_over_H0")) \
         with lines lw 2.5 lc rgb series_color(i) title sprintf("%g", c_i(i))
  unset output
}
