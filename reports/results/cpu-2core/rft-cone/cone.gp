# gnuplot cone.gp: the flat plate pushed down (beta 0, gamma 90, centre 2 L deep) against its travel;
# left: Klar's compression-matched cone at three grids (L/dx) and three stiffnesses, beside 1 centre
# depth of bed; right: the plane-strain match (references/derivations/cone.md) at the same stiffnesses
# and at several bed widths. From series.tsv (README.md says which run is which).
set terminal pngcairo size 1200,520 font ",10"
set output "cone.png"
set multiplot layout 1,2
set xlabel "travel (L)"; set ylabel "alpha_z = F_z / (L |z|) (N/cm^3)"
set key outside bottom center horizontal maxrows 3
set grid
set yrange [0:6]
f(r) = sprintf("< awk -F'\t' '$1==\"%s\"' series.tsv", r)
set title "compression cone (the lab's default), side 1: grid and stiffness"
plot f("comp_E_s1_c12") u 2:6 w l lw 2 lc 1 t "E, L/dx 12", \
     f("comp_E_s1_c24") u 2:6 w l lw 2 lc 1 dt 2 t "E, L/dx 24", \
     f("comp_10E_s1_c12") u 2:6 w l lw 2 lc 2 t "10 E, L/dx 12", \
     f("comp_10E_s1_c16") u 2:6 w l lw 2 lc 2 dt 3 t "10 E, L/dx 16", \
     f("comp_10E_s1_c24") u 2:6 w l lw 2 lc 2 dt 2 t "10 E, L/dx 24", \
     f("comp_100E_s1_c12") u 2:6 w l lw 2 lc 7 t "100 E, L/dx 12", \
     f("comp_100E_s1_c16") u 2:6 w l lw 2 lc 7 dt 3 t "100 E, L/dx 16"
set title "plane-strain cone, L/dx 12: stiffness and bed width (side)"
set yrange [0:1.2]
plot f("ps_E_s1") u 2:6 w l lw 2 lc 1 t "E, side 1", \
     f("ps_E_s3") u 2:6 w l lw 2 lc 1 dt 2 t "E, side 3", \
     f("ps_E_s8") u 2:6 w l lw 2 lc 1 dt 3 t "E, side 8", \
     f("ps_10E_s1") u 2:6 w l lw 2 lc 2 t "10 E, side 1", \
     f("ps_10E_s3") u 2:6 w l lw 2 lc 2 dt 2 t "10 E, side 3", \
     f("ps_10E_s8") u 2:6 w l lw 2 lc 2 dt 3 t "10 E, side 8", \
     f("ps_100E_s1") u 2:6 w l lw 2 lc 7 t "100 E, side 1"
unset multiplot
