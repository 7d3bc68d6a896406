# bench_gpu_counts.gp: GPU throughput against particle count (bench_gpu,
# a dense sand cube at ppc 8): the mean of the repetitions per count, one
# line per P2G variant of the count sweeps; the first version's sweep is
# drawn too when the folder beside this one (../bench) has it.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/bench_gpu_counts.gp
#
# Reads RUN_DIR/bench_gpu.tsv: tag col 3 (count sweeps start with "counts"),
# particles col 4, p2g_mode col 9, particle_steps_per_s col 14, device col 2.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/bench_gpu.tsv"
old = in."/../bench/bench_gpu.tsv"
have_old = system(sprintf("test -s '%s' && test \"$(realpath '%s')\" != \"$(realpath '%s/../bench')\" && echo 1 || echo 0", old, in, in)) + 0
dev = system(sprintf("awk -F'\\t' '!/^#/ {print $2; exit}' '%s'", f))

# the variants this file's count sweeps carry (bench_gpu's p2g_mode column)
modes = system(sprintf("awk -F'\t' '!/^#/ && $3 ~ /^counts/ {print $9}' '%s' | sort -u | tr '\n' ' '", f))
label(m) = m eq "tiled" ? "tiled, fixed order (first version)" : \
           m eq "tiled-rotated" ? "tiled, rotated, stride 1" : \
           m eq "tiled-rotated-x7" ? "tiled, rotated, stride 7 (default)" : m
is_counts(m) = strstrt(strcol(3), "counts") == 1 && strcol(9) eq m
y(m) = is_counts(m) ? column(14) / 1e6 : NaN

set logscale x 2
set xlabel "particles  (M = 2^{20})"
set ylabel "throughput  [M particle-steps/s]"
# bench_gpu's M is 2^20
set xtics ("1M" 2**20, "4M" 2**22, "16M" 2**24, "64M" 2**26, "256M" 2**28, "1G" 2**30)
set yrange [0:*]
set key bottom right
set title "GPU throughput on a dense sand cube, ppc 8\n "
set label 1 dev at graph 0.5, graph 1.025 center noenhanced font ",10"

cmd = "plot for [k = 1:words(modes)] f using 4:(y(word(modes, k))) smooth unique with linespoints " . \
      "pt 7 ps 1.1 lw 2 lc rgb series_color(k) title label(word(modes, k))"
if (have_old) { cmd = cmd . ", old using 4:(y(\"tiled\")) smooth unique with linespoints pt 6 ps 1.1 lw 2 dt 2 " . \
                      "lc rgb series_color(8) title \"tiled, fixed order (first version, ../bench)\"" }
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  eval cmd
  unset output
}
