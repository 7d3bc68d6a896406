# compare_counts.gp: GPU throughput against particle count for each solver
# of the head-to-head that ran (scripts/baselines/compare.py --device gpu,
# free fall, the median of the interleaved repetitions per count).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/compare_counts.gp
#
# Reads RUN_DIR/counts.tsv (solver, label, particles, pss_median), collected
# from the runs' summary.tsv files (see that folder's README).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/counts.tsv"
awk_cols = "!/^#/ && !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next } "
solvers = system(sprintf("awk -F'\t' '%s {print $c[\"solver\"]}' '%s' | awk '!s[$0]++' | tr '\n' ' '", awk_cols, f))
label_of(s) = system(sprintf("awk -F'\t' '%s $c[\"solver\"] == \"%s\" {print $c[\"label\"]; exit}' '%s'", awk_cols, s, f))
# one solver's rows (and the header), so that its points join into one line
rows(s) = sprintf("< awk -F'\t' 'NR == 1 || $1 == \"%s\"' '%s'", s, f)

set logscale x 2
set logscale y 10
set xlabel "particles  (M = 2^{20})"
set ylabel "throughput  [M particle-steps/s]"
set xtics ("256k" 2**18, "1M" 2**20, "4M" 2**22, "16M" 2**24, "64M" 2**26)
set xrange [2**19:2**23]
set yrange [100:10000]
# below the plot: inside, the key hid the slowest solvers' points (taichi_elements at 4M)
set key below
set title "GPU throughput against particle count, free fall, one run per count\n "
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot for [k = 1:words(solvers)] rows(word(solvers, k)) using "particles":(column("pss_median") / 1e6) with linespoints \
       pt 7 ps 1.2 lw 2 lc rgb series_color(k) title label_of(word(solvers, k)) noenhanced
  unset output
}
