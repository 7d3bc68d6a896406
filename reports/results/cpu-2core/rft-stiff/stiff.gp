# gnuplot stiff.gp: the flat plate pushed down (beta 0, gamma 90, centre 2 L deep) against its travel,
# at several stiffnesses E of the sand (Klar's E = 3.537e5 Pa) and bed widths; from series.tsv
set terminal pngcairo size 1100,500 font ",10"
set output "stiff.png"
set multiplot layout 1,2
set xlabel "travel (L)"; set ylabel "alpha_z = F_z / (L |z|) (N/cm^3)"
set key outside bottom center horizontal
set grid
set yrange [0:5]
f(r) = sprintf("< awk -F'\t' '$1==\"%s\"' series.tsv", r)
set title "bed 1 centre depth beside the plate (side 1)"
plot f("E1.179e5_side1_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 t "E/3", \
     f("E3.537e6_side1_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 t "10 E", \
     f("E1.061e7_side1_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 t "30 E", \
     f("E3.537e7_side1_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 t "100 E"
set title "beds 3 and 8 depths beside it"
set yrange [0:2]
plot f("E1.179e5_side3_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 lc 1 t "E/3, side 3", \
     f("E1.179e5_side8_beta0_gamma90") u 2:6 w lp pt 6 ps 0.5 lc 1 dt 2 t "E/3, side 8", \
     f("E3.537e5_side3_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 lc 4 t "E, side 3 (rft-bed)", \
     f("E3.537e6_side3_beta0_gamma90") u 2:6 w lp pt 7 ps 0.5 lc 2 t "10 E, side 3", \
     f("E3.537e6_side8_beta0_gamma90") u 2:6 w lp pt 6 ps 0.5 lc 2 dt 2 t "10 E, side 8"
unset multiplot
