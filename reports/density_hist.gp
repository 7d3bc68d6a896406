# density_hist.gp: the settled dropped block's per-particle density, read as
# rho0/(det F Jp) and as rho0/det F alone, with rho0 and the seed's mean
# (and range) for reference.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/density_hist.gp
#   optional: refs='DIR'  (the references directory; default ../references
#                          next to this script)
#
# Reads RUN_DIR/density_hist.tsv (rho_kg_m3, count_rho0_over_detF_Jp,
# count_rho0_over_detF), RUN_DIR/summary.tsv (rho_mean) and the seed's
# density_mean row (value, lo, hi) from references/seed/seed_results.tsv.
# Counts are on a log axis: rho0/det F piles up at and just above rho0 (the
# return map keeps det F <= 1), the dilated tail below rho0 exists only in
# rho0/(det F Jp).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

refs = exists("refs") ? refs : here."../references"
f = in."/density_hist.tsv"
seedf = refs."/seed/seed_results.tsv"
rho0 = 2200.0
stats f using "rho_kg_m3" nooutput
bw = (STATS_max - STATS_min) / (STATS_records - 1)
seed_mean = ref_value(seedf, "density_mean", "value")
seed_lo = ref_value(seedf, "density_mean", "lo")
seed_hi = ref_value(seedf, "density_mean", "hi")
ROW_FILE = in."/summary.tsv"; ROW_KEY_COL = "quantity"; ROW_KEY = "rho_mean"; ROW_COL = "value"; eval load_row
run_mean = row_value

undefine STATS_*
stats f using "rho_kg_m3" nooutput
x_lo = (STATS_min < seed_lo ? STATS_min : seed_lo) - 50
x_hi = (STATS_max > seed_hi ? STATS_max : seed_hi) + 50
set xrange [x_lo:x_hi]
set xlabel "density  [kg/m^3]"
set ylabel "particles per bin"
set logscale y
set format y "10^{%L}"
set yrange [0.8:*]
set key top left
set style fill transparent solid 0.35 noborder
set arrow 1 from rho0, graph 0 to rho0, graph 1 nohead lw 2 dt 1 lc rgb "#222222" front
set arrow 2 from seed_mean, graph 0 to seed_mean, graph 1 nohead lw 2 dt 2 lc rgb "#c2185b" front
set arrow 3 from run_mean, graph 0 to run_mean, graph 1 nohead lw 2 dt 4 lc rgb "#3b528b" front
set object 1 rect from seed_lo, graph 0 to seed_hi, graph 0.03 fc rgb "#c2185b" fs solid 0.5 noborder front
set label 1 "seed's range (min–max)" at seed_lo, graph 0.055 left tc rgb "#c2185b" front

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set title sprintf("Settled dropped block: per-particle density (bin %g kg/m^3)", bw)
  plot f using "rho_kg_m3":(column("count_rho0_over_detF_Jp") > 0 ? column("count_rho0_over_detF_Jp") : NaN) with boxes lc rgb "#3b528b" title "ρ_0 / (det F · J_p)", \
       f using "rho_kg_m3":(column("count_rho0_over_detF") > 0 ? column("count_rho0_over_detF") : NaN) with boxes lc rgb "#e8730c" title "ρ_0 / det F alone", \
       NaN with lines lw 2 dt 1 lc rgb "#222222" title sprintf("ρ_0 = %g", rho0), \
       NaN with lines lw 2 dt 4 lc rgb "#3b528b" title sprintf("this run's mean %.0f", run_mean), \
       NaN with lines lw 2 dt 2 lc rgb "#c2185b" title sprintf("seed's mean %.0f (range %.0f–%.0f)", seed_mean, seed_lo, seed_hi)
  unset output
}
