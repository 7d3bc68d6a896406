# bench_gpu_roofline.gp: each stage of the step against the bandwidth ceiling
# (bench_gpu), per resource or property setting (the TSV's tag) and scene,
# at the largest particle count each was timed at: the bandwidth a stage
# reaches on its least DRAM bytes (its B_* column times the particles, over
# its measured device time, averaged over repetitions) against the copy
# bandwidth measured in the same run (the line). A stage on the line is
# bound by bandwidth; far below it, by something else (atomics, latency,
# registers), which the bytes alone cannot say; above it, the stage moved
# fewer DRAM bytes than counted (reuse in the 50-60 MB L2).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/bench_gpu_roofline.gp
#
# Reads RUN_DIR/bench_gpu.tsv by column name (tag, scene, particles,
# B_sort .. B_g2p, ms_sort .. ms_g2p, copy_GBps, device).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/bench_gpu.tsv"
awk_cols = "!/^#/ && !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next } "
has_bytes = system(sprintf("awk -F'\t' '%s END {print (\"B_p2g\" in c) ? 1 : 0}' '%s'", awk_cols, f)) + 0
if (!has_bytes) { print "bench_gpu_roofline.gp: ".f." has no per-stage byte columns"; exit status 1 }
dev = system(sprintf("awk -F'\t' '%s !/^#/ {print $c[\"device\"]; exit}' '%s'", awk_cols, f))
# one row per (tag, scene) at its largest count: the four stages' GB/s, then the copy GB/s
rows = sprintf("< awk -F'\t' '%s !/^#/ { k = $c[\"tag\"] \" \" $c[\"scene\"]; p = $c[\"particles\"] + 0; " . \
  "if (p > P[k]) { P[k] = p; n[k] = 0; for (s = 1; s <= 5; ++s) g[k, s] = 0 } if (p < P[k]) next; ++n[k]; " . \
  "split(\"sort p2g grid g2p\", st, \" \"); for (s = 1; s <= 4; ++s) { ms = $c[\"ms_\" st[s]]; " . \
  "if (ms > 0) g[k, s] += $c[\"B_\" st[s]] * p / (ms * 1e-3) / 1e9 } g[k, 5] += $c[\"copy_GBps\"] } " . \
  "END { OFS = \"\\t\"; print \"label\", \"sort\", \"p2g\", \"grid\", \"g2p\", \"copy\"; " . \
  "for (k in n) { lab = k; gsub(/ /, \", \", lab); " . \
  "for (s = 1; s <= 4; ++s) v[s] = g[k, s] > 0 ? g[k, s] / n[k] : \"NaN\"; " . \
  "print lab \" (\" P[k] / 1048576 \"M)\", v[1], v[2], v[3], v[4], g[k, 5] / n[k] } }' '%s' | " . \
  "(read h; echo \"$h\"; sort)", awk_cols, f)
nrows = system(sprintf("%s | wc -l", rows[3:])) - 1
if (nrows < 1) { print "bench_gpu_roofline.gp: no rows in ".f; exit status 1 }
array lab[nrows]
do for [j = 1:nrows] { lab[j] = system(sprintf("%s | awk -F'\t' 'NR == %d {print $1}'", rows[3:], j + 1)) }
copy = system(sprintf("%s | awk -F'\t' 'NR > 1 { s += $6; n++ } END { printf \"%%.1f\", s / n }'", rows[3:])) + 0
# the highest stage point: a stage that moved fewer DRAM bytes than counted (L2 reuse) lies above the line
top = system(sprintf("%s | awk -F'\t' 'NR > 1 { for (i = 2; i <= 5; ++i) if ($i != \"NaN\" && $i + 0 > m) m = $i + 0 } END { printf \"%%.1f\", m }'", rows[3:])) + 0

set datafile separator "\t"
set xrange [0.5:4.5]
set xtics ("sort" 1, "P2G" 2, "grid" 3, "G2P" 4)
set xlabel "stage"
set ylabel "GB/s on the stage's least bytes"
set yrange [0:(top > copy ? top : copy) * 1.12]
set key outside right top noenhanced
set title "Each stage against the copy bandwidth (dashed)\n "
set label 1 dev at graph 0.5, graph 1.025 center noenhanced font ",10"
cmd = sprintf("plot %f with lines lw 2 dt 2 lc rgb '#444444' title sprintf('copy %%.0f GB/s', %f), ", copy, copy) . \
      "for [j = 1:nrows] rows every ::(j - 1)::(j - 1) using (1 + 0.06 * (j - nrows / 2.0)):\"sort\" with points pt 7 ps 1.4 " . \
      "lc rgb series_color(j) title lab[j], " . \
      "for [j = 1:nrows] rows every ::(j - 1)::(j - 1) using (2 + 0.06 * (j - nrows / 2.0)):\"p2g\" with points pt 7 ps 1.4 " . \
      "lc rgb series_color(j) notitle, " . \
      "for [j = 1:nrows] rows every ::(j - 1)::(j - 1) using (3 + 0.06 * (j - nrows / 2.0)):\"grid\" with points pt 7 ps 1.4 " . \
      "lc rgb series_color(j) notitle, " . \
      "for [j = 1:nrows] rows every ::(j - 1)::(j - 1) using (4 + 0.06 * (j - nrows / 2.0)):\"g2p\" with points pt 7 ps 1.4 " . \
      "lc rgb series_color(j) notitle"
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  eval cmd
  unset output
}
