# compare.gp: throughput of bagnold, Taichi and Warp on the head-to-head scene
# (median particle-steps/s, bars min..max over the interleaved repetitions).
# bagnold's bars red, the peers' blue. Called by compare.py with in='chart.dat' out='compare.png' ttl='...'.
if (!exists("in")) in = 'chart.dat'
if (!exists("out")) out = 'compare.png'
if (!exists("ttl")) ttl = ''
set terminal pngcairo size 1200,680 font "DejaVu Sans,11"
set output out
set title "Head-to-head MLS-MPM sand: ".ttl noenhanced
set ylabel "M particle-steps/s (median; bar: min..max)"
set style fill solid 0.75 border -1
set boxwidth 0.6
set xtics rotate by -25 left noenhanced
set bmargin 9
set rmargin 20
set grid ytics
set yrange [0:*]
set offsets 0.5, 0.5, 0, 0
set key off
set datafile separator "\t"
set datafile columnheaders
stats in using "max" nooutput
set yrange [0:STATS_max * 1.18]
plot in using "index":"median":"colour":xtic(stringcolumn("label")) with boxes lc rgb variable, \
     '' using "index":"median":"min":"max" with yerrorbars lc rgb "black" pt 0, \
     '' using "index":(column("max") + STATS_max * 0.03):(stringcolumn("ratio_text")) with labels font ",9" noenhanced, \
     '' using "index":(column("median") / 2):(sprintf("%.2f", column("median"))) with labels tc rgb "white" noenhanced
