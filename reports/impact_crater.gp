# impact_crater.gp: the crater of exp_impact's drops, read when the sphere
# stops: its diameter at the original surface level (filled) and rim to rim
# (open) against the total drop distance H, one colour per sphere diameter,
# on the finest grid; a line of slope 1/4 (Uehara et al. 2003's D_c ~ H^(1/4)
# for the final crater) through the finest grid's mean, as a guide only: the
# crater here is read before its ejecta land (references/literature/uehara2003.md).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/impact_crater.gp
#
# Data: RUN_DIR/drops.tsv (dx_m, D_m, H_m, crater_surface_m, crater_rim_m).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/drops.tsv"
stats f using "dx_m" nooutput
dx_fine = STATS_min
diams = system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) if ($i == \"D_m\") c = i; h = 1; next} !/^#/ && NF && !s[$c]++ {printf \"%%s \", $c}' '%s'", f))
n_d = words(diams)
is_d(k) = abs(column("D_m") - real(word(diams, k))) < 1e-9
fine(v) = column("dx_m") == dx_fine ? v : NaN
# the guide: slope 1/4 through the geometric means of H and D_c (finest grid)
stats f using (fine(log(column("H_m")))) nooutput
h0 = exp(STATS_mean)
stats f using (fine(log(column("crater_surface_m")))) nooutput
c0 = exp(STATS_mean)

set logscale xy
set xlabel "total drop distance H = h + d (m)"
set ylabel "crater diameter (m)"
set key top left
set yrange [0.02:0.5]
AXIS = "y"; eval log_tics

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title sprintf("Impact: crater diameter when the sphere stops (dx %g m)", dx_fine)
  plot c0 * (x / h0)**0.25 with lines lw 2 dt 2 lc rgb "#222222" title "slope 1/4 (Uehara's D_c ∝ H^{1/4}, a guide)", \
       for [k = 1:n_d] f using "H_m":(is_d(k) ? fine(column("crater_surface_m")) : NaN) \
         with linespoints pt 7 ps 1.6 lw 1.5 lc rgb series_color(2 * k - 1) title sprintf("D = %s m, at the surface level", word(diams, k)), \
       for [k = 1:n_d] f using "H_m":(is_d(k) ? fine(column("crater_rim_m")) : NaN) \
         with linespoints pt 6 ps 1.6 lw 1 dt 3 lc rgb series_color(2 * k - 1) title sprintf("D = %s m, rim to rim", word(diams, k))
  unset output
}
