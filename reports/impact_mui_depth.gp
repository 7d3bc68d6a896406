# impact_mui_depth.gp: impact_depth.gp for the impact-mui entry (its run
# folder); a figure's name is unique across the registry's runs, the drawing
# is one.
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/impact_mui_depth.gp

here_w = ""
do for [i = strlen(ARG0):1:-1] { if (here_w eq "" && ARG0[i:i] eq "/") { here_w = ARG0[1:i] } }
load here_w."impact_depth.gp"
