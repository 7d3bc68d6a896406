#!/usr/bin/env bash
# device call U: the peers' wheels installed (staged by six calls before), then the head-to-head at 1M on both
# scenes with genesis-world, and genesis' collapse with its dt scaled or its fast math off
set -uo pipefail
O=$OUT; T0=$SECONDS
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cb)"; B=$BAGNOLD_BIN
python3 scripts/gpu/carry_wheels.py install .devw/manifest.tsv > $O/install.log 2>&1; echo "install rc=$? ($((SECONDS-T0)) s)"; tail -3 $O/install.log
L=$((540 - (SECONDS - T0)))
PYTHONPATH=/tmp/site GENESIS_PYTHON=/tmp/gpy WHEEL_DIR=/none BAGNOLD_BENCH_SCENE=$B/bench_scene BUDGET_S=$L \
  FF_REPS=2 COL_REPS=1 FF_PARTICLES="1048576 1048576" COL_PARTICLES=1048576 \
  scripts/gpu/peers_gpu.sh $O/u ff1M col1M col1M-genesis-dt col1M-genesis-nofm > $O/peers.log 2>&1
echo "peers rc=$? ($((SECONDS-T0)) s)"; cat $O/u/summary.txt
find $O/u \( -name "*.vtu" -o -name "*.pvd" -o -name "*.npz" \) -delete
tar czf /tmp/u.tgz -C $O u peers.log install.log; rm -rf $O/u; mv /tmp/u.tgz $O/u.tgz; ls -la $O
