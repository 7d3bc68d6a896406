# rft_alpha.gp: the plate's resistive stress per depth, alpha_z and alpha_x
# against the angle of attack beta, one colour per direction of motion gamma:
# the simulated drags (points) against zeta times the generic form of Li,
# Zhang & Goldman 2013 at the fitted zeta (lines).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/rft_alpha.gp
#
# Data: RUN_DIR/alpha.tsv (rows of set "shape": beta_deg, gamma_nominal_deg,
# alpha_z_N_cm3, alpha_x_N_cm3) and RUN_DIR/generic.tsv (gamma_deg,
# beta_deg, alpha_z_N_cm3, alpha_x_N_cm3).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

a = in."/alpha.tsv"
g = in."/generic.tsv"
# the gammas of the shape set, read by column name
gammas = system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) if ($i == \"gamma_nominal_deg\") c = i; h = 1; next} !/^#/ && $1 == \"shape\" {print $c}' '%s' | sort -nu | tr '\\n' ' '", a))
colors = "#1f77b4 #d62728 #2ca02c #9467bd #e8730c #8c564b #17becf"
near(x, y) = abs(x - y) < 0.01

set xlabel "angle of attack β (deg)"
set xrange [-95:95]
set xtics 30
fig_h = 900
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 2,1 title "Plate dragged through 2D sand: simulation (points) against ζ × Li et al. 2013's generic form (lines)"
  set ylabel "α_z (N/cm^3)"
  set key top left
  plot for [k = 1:words(gammas)] g using "beta_deg":(near(column("gamma_deg"), real(word(gammas, k))) ? column("alpha_z_N_cm3") : NaN) \
         with lines lw 2 lc rgb word(colors, k) notitle, \
       for [k = 1:words(gammas)] a using "beta_deg":(strcol("set") eq "shape" && near(column("gamma_nominal_deg"), real(word(gammas, k))) ? column("alpha_z_N_cm3") : NaN) \
         with points pt 7 ps 1.6 lc rgb word(colors, k) title sprintf("γ = %s°", word(gammas, k))
  set ylabel "α_x (N/cm^3), against the forward motion"
  plot for [k = 1:words(gammas)] g using "beta_deg":(near(column("gamma_deg"), real(word(gammas, k))) ? column("alpha_x_N_cm3") : NaN) \
         with lines lw 2 lc rgb word(colors, k) notitle, \
       for [k = 1:words(gammas)] a using "beta_deg":(strcol("set") eq "shape" && near(column("gamma_nominal_deg"), real(word(gammas, k))) ? column("alpha_x_N_cm3") : NaN) \
         with points pt 7 ps 1.6 lc rgb word(colors, k) title sprintf("γ = %s°", word(gammas, k))
  unset multiplot
  unset output
}
