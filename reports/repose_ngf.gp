# repose_ngf.gp: the figure of the repose-ngf entry: the deposit-convergence
# study of every material model (repose_models.gp, drawn from the
# nonlocal-fluidity run, so that all three models are on it).
#
#   gnuplot -e "in='RUN_DIR'; out='PREFIX'" reports/repose_ngf.gp
load (ARG0[1:strlen(ARG0) - strlen("repose_ngf.gp")])."repose_models.gp"
