#!/usr/bin/env bash
# device call Q: issue 37's paper records of rft and paddle (registry paper args)
set -uo pipefail
O=$OUT; T0=$SECONDS
eval "$(scripts/gpu/carry_bins.sh unpack .devc/cb)"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $O/info.txt 2>&1
scripts/gpu/paper_runs.sh $O/q rft:330 paddle:220 > $O/paper_runs.log 2>&1; echo "paper_runs rc=$? $((SECONDS-T0)) s" >> $O/paper_runs.log
tar czf $O/q.tgz -C $O q && rm -rf $O/q; ls -la $O
