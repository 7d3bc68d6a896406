#!/bin/bash
cd /work/main
A="--scale quick --backend cpu --betas 90 --gammas 0 --phi-control 0 --threads 1 --travel 3 --window 2 --cells 20,24 --references references --ahead 5"
D=/tmp/rftc20/a5
(for k in 3 4; do build/bin/exp_rft $A --point $k --out $D; done) > /tmp/rftc20/qa.log 2>&1 &
(for k in 2 5 0; do build/bin/exp_rft $A --point $k --out $D; done) > /tmp/rftc20/qb.log 2>&1 &
wait
build/bin/exp_rft $A --gather --out $D > /tmp/rftc20/gather.log 2>&1
echo done >> /tmp/rftc20/gather.log
