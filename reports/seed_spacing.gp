# seed_spacing.gp: the seeding patterns side by side (bench_seed): the
# nearest-neighbour distance distribution of the lab's jittered lattice and
# of Poisson-disk sampling at the same ppc (left), and each pattern's rate
# against the particle count (right).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/seed_spacing.gp
#
# Reads RUN_DIR/seed_nn.tsv (d_over_s, pdf_lattice_1, pdf_poisson_1),
# RUN_DIR/seed_stats.tsv (the Poisson row's minimum, r / s) and
# RUN_DIR/seed_rate.tsv (pattern, particles_1, particles_per_cpu_s_1_per_s).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

nn = in."/seed_nn.tsv"
rate = in."/seed_rate.tsv"
rmin = real(system(sprintf("awk -F'\t' '$1 == \"poisson\" {print $6}' '%s'", in."/seed_stats.tsv")))

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 1, 2 title "Seeding at ppc 8: jittered lattice (jitter 0.5) against Poisson disk (Bridson, k = 30)"
  set xlabel "nearest-neighbour distance / lattice spacing s"
  set ylabel "probability density"
  set xrange [0.3:1.4]
  set key top left
  set style fill transparent solid 0.35 noborder
  set arrow 1 from rmin, graph 0 to rmin, graph 1 nohead dt 2 lw 2 lc rgb "#222222"
  set label 1 sprintf("r = %.3f s", rmin) at rmin, graph 0.7 left offset 0.8, 0
  plot nn using "d_over_s":"pdf_lattice_1" with boxes lc rgb "#e8730c" title "jittered lattice", \
       nn using "d_over_s":"pdf_poisson_1" with boxes lc rgb "#3b528b" title "Poisson disk"
  unset arrow 1
  unset label 1
  set style fill solid 1.0 border
  set xrange [*:*]
  set logscale xy
  set format x "10^{%L}"
  set format y "10^{%L}"
  set xlabel "particles"
  set ylabel "particles per CPU second (one thread)"
  set key bottom left
  plot sprintf("< awk -F'\t' '/^#/ || NR == 2 || $1 == \"lattice\"' '%s'", rate) \
         using "particles_1":"particles_per_cpu_s_1_per_s" with linespoints lw 2 pt 7 lc rgb "#e8730c" title "jittered lattice", \
       sprintf("< awk -F'\t' '/^#/ || NR == 2 || $1 == \"poisson\"' '%s'", rate) \
         using "particles_1":"particles_per_cpu_s_1_per_s" with linespoints lw 2 pt 5 lc rgb "#3b528b" title "Poisson disk"
  unset multiplot
  unset logscale
  set format x "% h"
  set format y "% h"
  unset output
}
