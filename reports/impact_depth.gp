# impact_depth.gp: Uehara et al. 2003's penetration law, d = 0.14 / mu
# (rho_b / rho_g)^(1/2) D^(2/3) H^(1/3), against exp_impact's drops: the
# depth d against the total drop distance H = h + d on log axes, one colour
# per sphere diameter D, filled points on the finest grid and open ones on
# the coarser grids, and Uehara's line for each D from the mu, rho_b and
# rho_g the finest grid's simulations held (the claims' expectation).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/impact_depth.gp
#
# Data: RUN_DIR/drops.tsv (dx_m, D_m, H_m, d_m, d_uehara_m) and
# RUN_DIR/fits.tsv (a_H, b_D, K_over_uehara of each grid, in the title).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/drops.tsv"
fits = in."/fits.tsv"
stats f using "dx_m" nooutput
dx_fine = STATS_min
# the diameters, in the order the run dropped them
diams = system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) if ($i == \"D_m\") c = i; h = 1; next} !/^#/ && NF && !s[$c]++ {printf \"%%s \", $c}' '%s'", f))
n_d = words(diams)
is_d(k) = abs(column("D_m") - real(word(diams, k))) < 1e-9
undefine STATS_*
stats fits using (column("dx_m") == dx_fine ? column("a_H") : NaN) nooutput
a_fine = STATS_min
undefine STATS_*
stats fits using (column("dx_m") == dx_fine ? column("b_D") : NaN) nooutput
b_fine = STATS_min
undefine STATS_*
stats fits using (column("dx_m") == dx_fine ? column("K_over_uehara") : NaN) nooutput
k_fine = STATS_min

set logscale xy
set xlabel "total drop distance H = h + d (m)"
set ylabel "penetration depth d (m)"
set key top left
set yrange [0.01:0.3]
AXIS = "y"; eval log_tics

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title sprintf("Impact: d against H (dx %g m: H exponent %.3f, D exponent %.3f, K / K_{Uehara} %.3f)", \
                    dx_fine, a_fine, b_fine, k_fine)
  plot for [k = 1:n_d] f using "H_m":(is_d(k) && column("dx_m") == dx_fine ? column("d_uehara_m") : NaN) \
         with lines lw 2 dt 2 lc rgb series_color(2 * k - 1) title sprintf("Uehara, D = %s m", word(diams, k)), \
       for [k = 1:n_d] f using "H_m":(is_d(k) && column("dx_m") == dx_fine ? column("d_m") : NaN) \
         with points pt 7 ps 1.6 lc rgb series_color(2 * k - 1) title sprintf("D = %s m, dx %g m", word(diams, k), dx_fine), \
       for [k = 1:n_d] f using "H_m":(is_d(k) && column("dx_m") > dx_fine ? column("d_m") : NaN) \
         with points pt 6 ps 1.6 lc rgb series_color(2 * k - 1) title sprintf("D = %s m, coarser dx", word(diams, k))
  unset output
}
