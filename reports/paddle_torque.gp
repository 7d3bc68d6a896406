# paddle_torque.gp: a paddle wheel turned by a motor in 2D sand. Top: the
# resisting torque per metre of depth against the motor's angular velocity
# (log axis; the Froude number tip^2 / (g depth) on the top axis), the
# window's mean with the sd of its samples as bars, the first quarter turn's
# mean, the window's stress part (experiments/common/bg_contact.h: the
# contact torque less the transfers' residue, which grows as dt shrinks;
# what the claims read) with its standard error, and resistive force
# theory's torque at the same poses with the rft_torque claim's tolerance
# band; the rate claim's points filled. Bottom: the torque through the
# spin, one colour per omega, its stress part at each sample's end (dots),
# with RFT's (dashed) and the averaging window shaded.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/paddle_torque.gp
#
# Data: RUN_DIR/torque.tsv (omega_rad_s, froude, torque_N_m_m,
# torque_sd_N_m_m, torque_first_N_m_m, rft_torque_N_m_m, in_rate_claim,
# window_from_turns, window_turns, torque_stress_N_m_m, torque_stress_se_N_m_m),
# RUN_DIR/series.tsv (omega_nominal_rad_s, turns, torque_N_m_m,
# rft_torque_N_m_m, torque_stress_N_m_m) and RUN_DIR/claims.tsv (the
# rft_torque claim's tolerance).

here = ""
do for [i = strlen(ARG0):1:-1] { if (here eq "" && ARG0[i:i] eq "/") { here = ARG0[1:i] } }
load here."common.gp"

t = in."/torque.tsv"
s = in."/series.tsv"
CLAIM_ID = "paddle.rft_torque"; CLAIM_COL = "tolerance"; eval load_claim
tol = claim_value
undefine STATS_*
stats t using "omega_rad_s" nooutput
w_lo = STATS_min; w_hi = STATS_max
x2tic_list = system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) c[$i] = i; h = 1; next} !/^#/ && NF {printf \"%%s\\\"%%.2g\\\" %%s\", n++ ? \", \" : \"\", $c[\"froude\"], $c[\"omega_rad_s\"]}' '%s'", t))
undefine STATS_*
stats t using "window_from_turns" nooutput
win0 = STATS_min
undefine STATS_*
stats t using (column("window_from_turns") + column("window_turns")) nooutput
win1 = STATS_max
undefine STATS_*
stats t using "rft_torque_N_m_m" nooutput
rft_max = STATS_max
omegas = system(sprintf("awk -F'\t' '!/^#/ && !h {for (i = 1; i <= NF; ++i) if ($i == \"omega_nominal_rad_s\") c = i; h = 1; next} !/^#/ && NF {printf \"%%s \", $c}' '%s'", t))
near(x, y) = abs(x - y) < 1e-9 * (1 + abs(y))
# runs recorded before the contact split have no stress part: its points are left out
has_stress = int(system(sprintf("head -n 3 '%s' | grep -c torque_stress_N_m_m", t)))
stress(c) = has_stress ? column(c) : NaN
claimed = has_stress ? "torque_stress_N_m_m" : "torque_N_m_m" # what the rate claim read
band(v) = valid(1) ? v : NaN

fig_h = 1100
do for [fmt in "png svg"] {
  eval term_cmd(fmt)
  set output out.".".fmt
  set multiplot layout 2,1 title "Paddle wheel (four arms, reach R = 5 cm) under a motor in 2D sand: torque against angular velocity"
  # top: torque against omega
  set logscale x
  set xrange [w_lo / 1.4 : w_hi * 1.4]
  AXIS = "x"; eval log_tics
  set xlabel "motor angular velocity ω (rad/s)"
  # the top axis: each point's Froude number, at its omega
  set logscale x2
  set x2range [w_lo / 1.4 : w_hi * 1.4]
  set x2tics out nomirror
  eval "set x2tics (".x2tic_list.")"
  set x2label "Froude number (ω R)^2 / (g depth) of each point"
  set yrange [0 : 1.9 * rft_max]
  set tmargin 6
  set ylabel "resisting torque (N m per m of depth)"
  set key top left maxrows 6
  plot t using "omega_rad_s":(column("rft_torque_N_m_m") * (1 - tol)):(column("rft_torque_N_m_m") * (1 + tol)) \
         with filledcurves lc rgb "#e8730c" fs transparent solid 0.15 noborder title sprintf("RFT ± %.3g (claim's tolerance)", tol), \
       t using "omega_rad_s":"rft_torque_N_m_m" with linespoints lw 2 dt 2 pt 4 ps 1.3 lc rgb "#e8730c" \
         title "resistive force theory (ζ measured, same poses)", \
       t using "omega_rad_s":"torque_first_N_m_m" with points pt 8 ps 1.6 lc rgb "#6a6a6a" \
         title "simulation: first quarter turn (fresh sand)", \
       t using "omega_rad_s":"torque_N_m_m":"torque_sd_N_m_m" with yerrorbars pt 6 ps 1.8 lw 1.5 lc rgb "#3b528b" \
         title "simulation: contact torque, window mean ± sd of its samples", \
       t using "omega_rad_s":(stress("torque_stress_N_m_m")):(stress("torque_stress_se_N_m_m")) with yerrorbars pt 5 ps 1.2 lw 1.5 \
         lc rgb "#21918c" title (has_stress ? "its stress part ± se (the claims read it)" : ""), \
       t using "omega_rad_s":(column("in_rate_claim") > 0.5 ? column(claimed) : NaN) with points pt 7 ps 2.2 \
         lc rgb "#21918c" title "the rate claim's points (Froude below its bound)"
  unset logscale x
  unset logscale x2
  unset x2tics
  unset x2label
  set xtics autofreq
  set mxtics default
  # bottom: the torque through the spin
  set xrange [0 : win1]
  set tmargin
  set yrange [0 : 1.35 * rft_max]
  set xlabel "turns since the motor started"
  set ylabel "resisting torque (N m per m of depth)"
  set object 1 rect from win0, graph 0 to win1, graph 1 back fc rgb "#3b528b" fs transparent solid 0.08 noborder
  set label 1 "averaging window" at win0 + 0.005, graph 0.05 left tc rgb "#3b528b"
  set key top right maxrows 4 width -3
  plot for [k = 1:words(omegas)] s using "turns":(near(column("omega_nominal_rad_s"), real(word(omegas, k))) ? column("torque_N_m_m") : NaN) \
         with lines lw 2 lc rgb series_color(k) title sprintf("ω = %s rad/s", word(omegas, k)), \
       for [k = 1:words(omegas)] s using "turns":(near(column("omega_nominal_rad_s"), real(word(omegas, k))) ? stress("torque_stress_N_m_m") : NaN) \
         with points pt 7 ps 0.6 lc rgb series_color(k) notitle, \
       s using "turns":(near(column("omega_nominal_rad_s"), real(word(omegas, 1))) ? column("rft_torque_N_m_m") : NaN) \
         with lines lw 2 dt 2 lc rgb "#e8730c" title "RFT at the same poses"
  unset object 1
  unset label 1
  unset multiplot
  unset output
}
