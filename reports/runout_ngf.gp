# runout_ngf.gp: the figure of the runout-ngf entry: the runout sweep of
# every material model against Lube 2004 (runout_models.gp, drawn from the
# nonlocal-fluidity run, so that all three models are on it).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/runout_ngf.gp
load (ARG0[1:strlen(ARG0) - strlen("runout_ngf.gp")])."runout_models.gp"
