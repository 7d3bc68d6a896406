# repose_models.gp: the deposit-convergence study of each material model:
# the flank angle (mean of the four estimators) and the runout of the
# collapsed a = 1 column against the grid (cells per R0), for every model
# whose run sits beside this one: Drucker-Prager (../repose), mu(I)
# (../repose-mui) and nonlocal fluidity (../repose-ngf). RUN_DIR is one of
# them (or a variant such as repose-mui-dpcone, drawn in the place of its
# model); the others are drawn where they exist.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_models.gp
#
# Reads, by column name, each run's convergence.tsv (cells_per_R0,
# theta_mean_deg, sigma_deg, runout_m, dx_m, dx_over_R0) and the material
# line of its manifest.json (for the key).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"
fig_w = 1300
fig_h = 600

# the three slots: Drucker-Prager, mu(I), nonlocal fluidity; RUN_DIR takes
# the slot of its model (from its manifest), the siblings fill the others
mline(d) = system(sprintf("grep -o '\"material\": \"[a-z-]*' '%s/manifest.json' 2>/dev/null | head -1 | sed 's/.*\"//'", d))
mine = mline(in)
dir1 = (mine eq "drucker-prager") ? in : in."/../repose"
dir2 = (mine eq "mu-i") ? in : in."/../repose-mui"
dir3 = (mine eq "ngf") ? in : in."/../repose-ngf"
has(d) = system(sprintf("test -r '%s/convergence.tsv' && echo 1 || echo 0", d)) + 0
h1 = has(dir1); h2 = has(dir2); h3 = has(dir3)
num(d, key) = system(sprintf("grep -o '%s [0-9.e-]*' '%s/manifest.json' 2>/dev/null | head -1 | sed 's/.* //'", key, d))
mus2 = num(dir2, "mu_s")
lab1 = "Drucker–Prager"
lab2 = "μ(I), μ_s ".(mus2 eq "" ? "?" : mus2).(mus2 eq "0.38186" ? " (Jop 2006)" : " (--mu-s)")
d3 = num(dir3, "grain d")
lab3 = "nonlocal fluidity, d ".(d3 eq "" ? "?" : sprintf("%.2g mm", 1000 * (d3 + 0)))
dir(k) = k == 1 ? dir1 : k == 2 ? dir2 : dir3
hk(k) = k == 1 ? h1 : k == 2 ? h2 : h3
lab(k) = k == 1 ? lab1 : k == 2 ? lab2 : lab3
col(k) = k == 1 ? "#3b528b" : k == 2 ? "#e07b00" : "#1a9850"
pt(k) = k == 1 ? 7 : k == 2 ? 5 : 9
src(k) = hk(k) ? dir(k)."/convergence.tsv" : in."/convergence.tsv"

R0(dx, dxr) = dx / dxr
clo = 1e9; chi = 0
do for [k = 1:3] {
  if (hk(k)) { stats src(k) using "cells_per_R0" nooutput; clo = (STATS_min < clo ? STATS_min : clo); chi = (STATS_max > chi ? STATS_max : chi) }
}
set logscale x
set xrange [clo / 1.25:chi * 1.25]
set xtics (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
set xlabel "cells per R_0"
set key top left
set offsets 0, 0, graph 0.06, graph 0.06

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 1,2 title "Deposit convergence in dx: the material models (a = 1 column)"
  set ylabel "flank angle θ (°)"
  set title "flank angle (mean of four estimators, bar: their spread)"
  plot for [k = 1:3] src(k) using "cells_per_R0":(hk(k) ? column("theta_mean_deg") : NaN):"sigma_deg" \
         with yerrorlines pt pt(k) ps 1.5 lw 1.5 lc rgb col(k) title (hk(k) ? lab(k) : "")
  set ylabel "runout R_∞ / R_0"
  set title "runout of the deposit"
  plot for [k = 1:3] src(k) using "cells_per_R0":(hk(k) ? column("runout_m") / R0(column("dx_m"), column("dx_over_R0")) : NaN) \
         with linespoints pt pt(k) ps 1.5 lw 1.5 lc rgb col(k) title (hk(k) ? lab(k) : "")
  unset multiplot
  unset output
}
