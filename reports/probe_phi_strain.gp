# probe_phi_strain.gp: the constitutive probe's mobilised friction angle
# against axial strain, per fed phi at one confining pressure, from the
# Hencky stress the return map works in (solid) and from the fixed-corotated
# stress of the same elastic strain (dashed); the lower panel is their
# difference, the force-stress gap that claim probe.force_stress_gap bounds.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/probe_phi_strain.gp
#   optional: pconf=5000  (Pa; which confining pressure to draw)
#
# Reads, by column name, RUN_DIR/paths.tsv (phi_deg, p_conf_Pa,
# axial_strain, phi_mob_deg, phi_mob_fcr_deg) and, for the tolerance band, RUN_DIR/claims.tsv.
# The horizontal lines are the fed friction angles: where each path must end.

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

pconf = exists("pconf") ? pconf : 5000
f = in."/paths.tsv"
eval find_blocks
if (n == 0) {
  print sprintf("probe_phi_strain.gp: no path at p_conf = %g Pa in %s", pconf, f)
  exit status 1
}
phi_i(i) = word(phis, i) + 0
blk(i) = word(blocks, i) + 0

CLAIM_ID = "probe.force_stress_gap"; CLAIM_COL = "tolerance"; eval load_claim
gap_tol = claim_value

# Common strain range: the longest of the paths drawn.
emax = 0
do for [i = 1:n] {
  stats f using (in_block(blk(i), column("axial_strain"))) nooutput
  emax = STATS_max > emax ? STATS_max : emax
}
# phi at the top of the upper panel: above the largest fed phi
phimax = 0
do for [i = 1:n] { phimax = phi_i(i) > phimax ? phi_i(i) : phimax }

fig_h = 820
set xrange [0:emax * 1.03]
L = 0.10; R = 0.97

do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot title sprintf("Mobilised friction angle in triaxial compression, confining pressure %g kPa", pconf / 1e3)

  # upper panel: phi_mob(Hencky) solid, phi_mob(fixed-corotated) dashed, fed phi dotted
  set lmargin at screen L; set rmargin at screen R
  set tmargin at screen 0.91; set bmargin at screen 0.40
  set format x ""; unset xlabel
  set ylabel "φ_{mob}  [deg]"
  set yrange [0:phimax * 1.12]
  set key bottom right title "fed φ" maxrows n
  set label 1 "solid: Hencky stress (the return map's)\ndashed: fixed-corotated stress, same strain\ndotted: fed φ" \
    at graph 0.36, graph 0.25 front font ",10" tc rgb "#444444"
  # All paths share the elastic branch: the largest phi (the longest path)
  # is drawn first, each smaller one over it.
  plot for [i = n:1:-1] phi_i(i) with lines dt (2, 4) lw 1.2 lc rgb series_color(i) notitle, \
       for [i = n:1:-1] f using "axial_strain":(in_block(blk(i), column("phi_mob_fcr_deg"))) with lines dt 2 lw 2 lc rgb series_color(i) notitle, \
       for [i = n:1:-1] f using "axial_strain":(in_block(blk(i), column("phi_mob_deg"))) with lines lw 2.5 lc rgb series_color(i) title sprintf("%g°", phi_i(i))
  unset label 1

  # lower panel: the gap, with the claim's tolerance (claims.tsv of the run)
  set tmargin at screen 0.37; set bmargin at screen 0.09
  set format x "%g"
  set xlabel "axial compressive log strain  |ε_{axial}|"
  set ylabel "φ_{mob}^{fcr} − φ_{mob}^{Hencky}  [deg]"
  set autoscale y
  unset key
  if (gap_tol == gap_tol) {
    set label 2 sprintf("claim tolerance ±%g° (p_{conf} ≤ 5 kPa)", gap_tol) at graph 0.02, first gap_tol \
      offset 0, 0.7 font ",10" tc rgb "#b00020"
    plot gap_tol with lines dt 3 lw 1.5 lc rgb "#b00020" notitle, \
         -gap_tol with lines dt 3 lw 1.5 lc rgb "#b00020" notitle, \
         for [i = n:1:-1] f using "axial_strain":(in_block(blk(i), column("phi_mob_fcr_deg") - column("phi_mob_deg"))) with lines lw 2 lc rgb series_color(i) notitle
    unset label 2
  } else {
    plot for [i = n:1:-1] f using "axial_strain":(in_block(blk(i), column("phi_mob_fcr_deg") - column("phi_mob_deg"))) with lines lw 2 lc rgb series_color(i) notitle
  }
  unset multiplot
  unset output
}
