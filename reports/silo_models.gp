# silo_models.gp: the discharge rate of each material model over the same
# aperture sweep, against Beverloo's scaling: Drucker-Prager (the silo run,
# read from the sibling folder ../silo) and mu(I) (this run). W / (rho_b
# sqrt(g)) against the counted aperture D, log-log, the resolved apertures
# filled; the slope of the geometric power law is 3/2 (slot) or 5/2 (round).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/silo_models.gp
#
# Reads, by column name, RUN_DIR/rates.tsv (D_geo_m, W, rho_b_kg_m3,
# resolved) and RUN_DIR/../silo/rates.tsv where that run exists.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"
# the mu(I) run's static friction, from its manifest (Jop's 0.382 or a --mu-s)
mus = system(sprintf("grep -o 'mu_s [0-9.]*' '%s/manifest.json' 2>/dev/null | head -1 | cut -d' ' -f2", in))
mlab = "μ(I), μ_s ".(mus eq "" ? "?" : mus).(mus eq "0.38186" ? " (Jop 2006)" : " (--mu-s)")

dp = in."/../silo"
has_dp = system(sprintf("test -r '%s/rates.tsv' && echo 1 || echo 0", dp)) + 0
slot = system(sprintf("grep -c '\"geometry\": \"slot\"' '%s/manifest.json' 2>/dev/null || echo 0", in)) + 0
nlaw = slot ? 1.5 : 2.5
y(W, rb) = W / (rb * sqrt(9.81))
stats in."/rates.tsv" using "D_geo_m" nooutput; dlo = STATS_min; dhi = STATS_max
set logscale xy
AXIS = "x"; eval log_tics; AXIS = "y"; eval log_tics
set xrange [dlo / 1.2:dhi * 1.2]
set xlabel "counted aperture  D (m)"
set ylabel (slot ? "W / (ρ_b √g)  (m^{3/2}, per unit width)" : "W / (ρ_b √g)  (m^{5/2})")
set title sprintf("Silo discharge: Drucker–Prager and μ(I) sand on the same grid (%s; filled: resolved apertures)", slot ? "slot" : "round")
set key top left
# the power law D^n through the mu(I) run's largest aperture, for the slope
stats in."/rates.tsv" using (column("D_geo_m") == dhi ? y(column("W"), column("rho_b_kg_m3")) : NaN) nooutput
ytop = STATS_max
stats in."/rates.tsv" using (y(column("W"), column("rho_b_kg_m3"))) nooutput
ylo = STATS_min
if (has_dp) { stats dp."/rates.tsv" using (y(column("W"), column("rho_b_kg_m3"))) nooutput; ylo = (STATS_min < ylo ? STATS_min : ylo); ytop = (STATS_max > ytop ? STATS_max : ytop) }
set yrange [ylo / 1.4:ytop * 1.6]

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  plot ytop * (x / dhi)**nlaw with lines dt 2 lw 2 lc rgb "#6a6a6a" title sprintf("D^{%.1f} (Beverloo's exponent, k = 0)", nlaw), \
       (has_dp ? dp."/rates.tsv" : in."/rates.tsv") using "D_geo_m":(has_dp ? y(column("W"), column("rho_b_kg_m3")) : NaN) \
         with lines lw 1.5 lc rgb "#3b528b" notitle, \
       (has_dp ? dp."/rates.tsv" : in."/rates.tsv") using "D_geo_m":(has_dp && column("resolved") > 0 ? y(column("W"), column("rho_b_kg_m3")) : NaN) \
         with points pt 7 ps 1.8 lc rgb "#3b528b" title "Drucker–Prager (φ 35°), resolved", \
       (has_dp ? dp."/rates.tsv" : in."/rates.tsv") using "D_geo_m":(has_dp && column("resolved") == 0 ? y(column("W"), column("rho_b_kg_m3")) : NaN) \
         with points pt 6 ps 1.8 lw 2 lc rgb "#3b528b" title "Drucker–Prager, not resolved", \
       in."/rates.tsv" using "D_geo_m":(y(column("W"), column("rho_b_kg_m3"))) with lines lw 1.5 lc rgb "#e07b00" notitle, \
       in."/rates.tsv" using "D_geo_m":(column("resolved") > 0 ? y(column("W"), column("rho_b_kg_m3")) : NaN) \
         with points pt 5 ps 1.8 lc rgb "#e07b00" title mlab.", resolved", \
       in."/rates.tsv" using "D_geo_m":(column("resolved") == 0 ? y(column("W"), column("rho_b_kg_m3")) : NaN) \
         with points pt 4 ps 1.8 lw 2 lc rgb "#e07b00" title "μ(I), not resolved"
  unset output
}
