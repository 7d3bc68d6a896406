# runout_models.gp: the runout sweep of each material model at the same
# resolution, against Lube 2004's law, for every model whose run sits
# beside this one: Drucker-Prager (../runout), mu(I) (../runout-mui) and
# nonlocal fluidity (../runout-ngf). RUN_DIR is one of them (or a variant
# such as runout-mui-dpcone, drawn in the place of its model). Normalised
# runout (R_inf - R0)/R0 against a = H0/R0, log-log, with each model's
# fitted slope below the break in the key.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/runout_models.gp
#
# Reads, by column name, each run's sweep.tsv (aspect, runout_norm),
# fit.tsv (c1, sigma_c1), RUN_DIR/fit_curve.tsv (aspect, lube2004) and the
# material line of each manifest.json (for the key).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

mline(d) = system(sprintf("grep -o '\"material\": \"[a-z-]*' '%s/manifest.json' 2>/dev/null | head -1 | sed 's/.*\"//'", d))
mine = mline(in)
dir1 = (mine eq "drucker-prager") ? in : in."/../runout"
dir2 = (mine eq "mu-i") ? in : in."/../runout-mui"
dir3 = (mine eq "ngf") ? in : in."/../runout-ngf"
has(d) = system(sprintf("test -r '%s/sweep.tsv' && test -r '%s/fit.tsv' && echo 1 || echo 0", d, d)) + 0
h1 = has(dir1); h2 = has(dir2); h3 = has(dir3)
num(d, key) = system(sprintf("grep -o '%s [0-9.e-]*' '%s/manifest.json' 2>/dev/null | head -1 | sed 's/.* //'", key, d))
phi1 = num(dir1, "phi")
mus2 = num(dir2, "mu_s")
d3 = num(dir3, "grain d")
lab1 = "Drucker–Prager".(phi1 eq "" ? "" : " (φ ".phi1."°)")
lab2 = "μ(I), μ_s ".(mus2 eq "" ? "?" : mus2).(mus2 eq "0.38186" ? " (Jop 2006)" : " (--mu-s)")
lab3 = "nonlocal fluidity, d ".(d3 eq "" ? "?" : sprintf("%.2g mm", 1000 * (d3 + 0)))
dir(k) = k == 1 ? dir1 : k == 2 ? dir2 : dir3
hk(k) = k == 1 ? h1 : k == 2 ? h2 : h3
lab(k) = k == 1 ? lab1 : k == 2 ? lab2 : lab3
col(k) = k == 1 ? "#3b528b" : k == 2 ? "#e07b00" : "#1a9850"
pt(k) = k == 1 ? 7 : k == 2 ? 5 : 9
src(k) = hk(k) ? dir(k)."/sweep.tsv" : in."/sweep.tsv"
array c1[3]
array sc1[3]
do for [k = 1:3] {
  c1[k] = NaN; sc1[k] = NaN
  if (hk(k)) {
    stats dir(k)."/fit.tsv" using "c1" nooutput; c1[k] = STATS_min
    stats dir(k)."/fit.tsv" using "sigma_c1" nooutput; sc1[k] = STATS_min
  }
}
stats in."/sweep.tsv" using "aspect" nooutput; amin = STATS_min; amax = STATS_max
set logscale xy
AXIS = "x"; eval log_tics; AXIS = "y"; eval log_tics
set xrange [amin / 1.4:amax * 1.4]
set yrange [0.1:*]
set xlabel "aspect ratio  a = H_0 / R_0"
set ylabel "normalised runout  (R_∞ − R_0) / R_0"
set title "Column collapse: the material models at the same resolution, against Lube 2004"
set key bottom right

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot in."/fit_curve.tsv" using "aspect":"lube2004" with lines lw 2.5 lc rgb "#b00020" title "Lube 2004: 1.24 a, 1.6 a^{1/2}", \
       for [k = 1:3] src(k) using "aspect":(hk(k) ? column("runout_norm") : NaN) \
         with linespoints pt pt(k) ps 1.6 lw 1.5 lc rgb col(k) \
         title (hk(k) ? sprintf("%s: slope %.3f±%.3f below the break", lab(k), c1[k], sc1[k]) : "")
  unset output
}
