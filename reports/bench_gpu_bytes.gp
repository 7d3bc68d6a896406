# bench_gpu_bytes.gp: bytes per particle-step against the bandwidth ceiling
# (bench_gpu, default scatter, the count sweep): solid, the least DRAM bytes
# the step must move per particle (the four stages' B_* columns summed, the
# sort amortised over its interval); dashed, the bytes the copy bandwidth
# measured in the same run would move in the step's measured device time.
# Their ratio is the fraction of the ceiling the step reaches; a step at the
# ceiling would have the two lines meet.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/bench_gpu_bytes.gp
#
# Reads RUN_DIR/bench_gpu.tsv by column name (tag counts*, particles, scene,
# B_sort .. B_g2p, ms_sort .. ms_g2p, copy_GBps, device).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/bench_gpu.tsv"
awk_cols = "!/^#/ && !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next } "
dev = system(sprintf("awk -F'\t' '%s !/^#/ {print $c[\"device\"]; exit}' '%s'", awk_cols, f))
has_bytes = system(sprintf("awk -F'\t' '%s END {print (\"B_p2g\" in c) ? 1 : 0}' '%s'", awk_cols, f)) + 0
if (!has_bytes) { print "bench_gpu_bytes.gp: ".f." has no per-stage byte columns (bench_gpu before issue 18)"; exit status 1 }
# one series per count sweep and scene: a sweep's tag ("counts", or "counts:NAME" where one file
# holds the sweeps of several property sets) and its scene, "TAG|SCENE"
series = system(sprintf("awk -F'\t' '%s !/^#/ && $c[\"tag\"] ~ /^counts/ {print $c[\"tag\"] \"|\" $c[\"scene\"]}' '%s' | sort -u | tr '\n' ' '", awk_cols, f))
tag_of(s) = s[1:strstrt(s, "|") - 1]
scene_of(s) = s[strstrt(s, "|") + 1:]
name_of(s) = (strstrt(tag_of(s), "counts:") == 1 ? tag_of(s)[8:].", " : "").scene_of(s)

is_row(s) = strcol("tag") eq tag_of(s) && strcol("scene") eq scene_of(s)
least(s) = is_row(s) ? column("B_sort") + column("B_p2g") + column("B_grid") + column("B_g2p") : NaN
ms(z) = column("ms_sort") + column("ms_p2g") + column("ms_grid") + column("ms_g2p")
allowed(s) = is_row(s) ? column("copy_GBps") * 1e9 * ms(0) * 1e-3 / column("particles") : NaN
marker(s) = strstrt(scene_of(s), "collapse") == 1 ? 5 : 7

set logscale x 2
set xlabel "particles  (M = 2^{20})"
set ylabel "bytes per particle-step"
set xtics ("1M" 2**20, "4M" 2**22, "16M" 2**24, "64M" 2**26, "256M" 2**28)
set yrange [0:*]
set key top right
set title "Bytes per particle-step: what the step moves, and what the copy bandwidth would move in its time\n "
set label 1 dev at graph 0.5, graph 1.025 center noenhanced font ",10"

cmd = "plot for [j = 1:words(series)] f using \"particles\":(least(word(series, j))) smooth unique with linespoints " . \
      "pt marker(word(series, j)) ps 1.1 lw 2 dt 1 lc rgb series_color(j) " . \
      "title (\"least bytes moved, \".name_of(word(series, j))) noenhanced, " . \
      "for [j = 1:words(series)] f using \"particles\":(allowed(word(series, j))) smooth unique with linespoints " . \
      "pt marker(word(series, j)) ps 1.1 lw 2 dt 2 lc rgb series_color(j) " . \
      "title (\"copy bandwidth x measured time, \".name_of(word(series, j))) noenhanced"
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  eval cmd
  unset output
}
