# bench_gpu_counts.gp: GPU throughput against particle count (bench_gpu,
# a dense sand cube at ppc 8): the mean of the repetitions per count, one
# line per P2G variant of the count sweeps; the first version's sweep is
# drawn too when the folder beside this one (../bench) has it.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/bench_gpu_counts.gp
#
# Reads RUN_DIR/bench_gpu.tsv by column name: tag (count sweeps start with
# "counts"), particles, the variant (backend, or p2g_mode in a file from
# before the named backends), particle_steps_per_s, device, and scene
# (freefall or collapse; a file from before the scenes is all freefall):
# one line per variant and scene, collapse dashed.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

f = in."/bench_gpu.tsv"
old = in."/../bench/bench_gpu.tsv"
have_old = system(sprintf("test -s '%s' && test \"$(realpath '%s')\" != \"$(realpath '%s/../bench')\" && echo 1 || echo 0", old, in, in)) + 0
# awk reads the header (the first line that is not a '#' comment) to find columns by name
awk_cols = "!/^#/ && !h { for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next } "
dev = system(sprintf("awk -F'\t' '%s !/^#/ {print $c[\"device\"]; exit}' '%s'", awk_cols, f))

# the variants this file's count sweeps carry (bench_gpu's backend column;
# p2g_mode in the files recorded before it)
# (or the tag, where the sweeps name their variant in it, "counts:NAME": the
# same backend with other properties, e.g. grid=dense against grid=sparse)
vcol = system(sprintf("awk -F'\t' '%s !/^#/ && $c[\"tag\"] ~ /^counts:/ {t = 1} END {print (\"p2g_mode\" in c) ? \"p2g_mode\" : t ? \"tag\" : \"backend\"}' '%s'", awk_cols, f))
modes = system(sprintf("awk -F'\t' '%s !/^#/ && $c[\"tag\"] ~ /^counts/ {print $c[\"%s\"]}' '%s' | sort -u | tr '\n' ' '", awk_cols, vcol, f))
# the scenes the file has (no scene column: freefall only)
has_scene = system(sprintf("awk -F'\t' '%s END {print (\"scene\" in c) ? 1 : 0}' '%s'", awk_cols, f)) + 0
scenes = has_scene ? system(sprintf("awk -F'\t' '%s !/^#/ && $c[\"tag\"] ~ /^counts/ {print $c[\"scene\"]}' '%s' | sort -u | sort -r | tr '\n' ' '", awk_cols, f)) : "freefall"
scene_of(z) = has_scene ? strcol("scene") : "freefall"
label(m) = m eq "tiled" ? "tiled, fixed order (first version)" : \
           m eq "tiled-rotated" ? "tiled, rotated, stride 1" : \
           m eq "tiled-rotated-x7" ? "tiled, rotated, stride 7 (default)" : \
           m eq "tiled-rotated-default" ? "tiled, rotated, default stride" : \
           m eq "global-rotated-default" ? "global atomics, rotated, default stride" : \
           m eq "fixed-columns-default" ? "fixed-point tile, column order (default)" : \
           m eq "cuda" ? "fixed-point tile (cuda)" : \
           m eq "cuda/global" ? "global atomics (cuda/global)" : \
           strstrt(m, "counts:") == 1 ? m[8:] : m
is_counts(m) = strstrt(strcol("tag"), "counts") == 1 && strcol(vcol) eq m
# the first version's file (../bench) names its variants in p2g_mode
y(m) = strstrt(strcol("tag"), "counts") == 1 && strcol("p2g_mode") eq m ? column("particle_steps_per_s") / 1e6 : NaN
marker(sc) = strstrt(sc, "collapse") == 1 ? 5 : 7
dash(sc) = strstrt(sc, "collapse") == 1 ? 2 : 1
ys(m, sc) = is_counts(m) && scene_of(0) eq sc ? column("particle_steps_per_s") / 1e6 : NaN

set logscale x 2
set xlabel "particles  (M = 2^{20})"
set ylabel "throughput  [M particle-steps/s]"
# bench_gpu's M is 2^20
set xtics ("1M" 2**20, "4M" 2**22, "16M" 2**24, "64M" 2**26, "256M" 2**28, "1G" 2**30)
set yrange [0:*]
set key bottom right
set title "GPU throughput against particle count, sand at ppc 8 (collapse: mid-runout; collapse@start: from rest)\n " noenhanced
set label 1 dev at graph 0.5, graph 1.025 center noenhanced font ",10"

cmd = "plot for [j = 1:words(scenes)] for [k = 1:words(modes)] f using \"particles\":(ys(word(modes, k), word(scenes, j))) " . \
      "smooth unique with linespoints pt marker(word(scenes, j)) ps 1.1 lw 2 " . \
      "dt dash(word(scenes, j)) lc rgb series_color(k) " . \
      "title (label(word(modes, k)).\", \".word(scenes, j)) noenhanced"
if (have_old) { cmd = cmd . ", old using \"particles\":(y(\"tiled\")) smooth unique with linespoints pt 6 ps 1.1 lw 2 dt 2 " . \
                      "lc rgb series_color(8) title \"tiled, fixed order (first version, ../bench)\"" }
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  eval cmd
  unset output
}
