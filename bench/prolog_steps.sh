#!/bin/bash
# Prolog/Epilog on every node, once per job (docs/benchmarks.md, "Prolog
# and epilog"): a batch job of 3 nodes running S srun steps over all of
# them, on t/cluster.sh, with no scripts and with an empty Prolog and
# Epilog (`#!/bin/sh` + `exit 0`). Figures: seconds per job from submit to
# the end sbatch sees (mean of J jobs), and how many times the Prolog ran
# per node per job (1 whatever S is: the steps after the first on a node
# only check its record).
# Usage: make && SLUICE_BUILD=$PWD/build bench/prolog_steps.sh [S] [J]   (default 10 5)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
S=${1:-10}
J=${2:-5}
RES=${RES:-$here/results/latest.txt}
mkdir -p "$(dirname "$RES")"
rec() { echo "$1=$2" | tee -a "$RES"; }

D=$(mktemp -d /tmp/sluice-bench-pes.XXXXXX)
chmod 755 "$D"
printf '#!/bin/sh\nexit 0\n' >"$D/empty" && chmod 755 "$D/empty"
printf '#!/bin/sh\necho x >>%s/runs.$SLURM_JOB_ID.$SLURMD_NODENAME\n' "$D" >"$D/count" &&
	chmod 755 "$D/count"
wrap="for i in \$(seq $S); do srun -N3 true; done"

run() { # run [conf lines]: mean seconds per job over J jobs, in $MEAN
	cluster_start 3 "$@" >"$D/start.log" 2>&1 || { echo "cluster failed" >&2; cat "$D/start.log" >&2; exit 1; }
	sbatch --wait -N3 -o /dev/null --wrap=true >/dev/null   # warm-up
	local t0 t1
	t0=$(date +%s.%N)
	for _ in $(seq "$J"); do sbatch --wait -N3 -o /dev/null --wrap="$wrap" >/dev/null; done
	t1=$(date +%s.%N)
	MEAN=$(echo "scale=4; ($t1 - $t0) / $J" | bc)
}

run
without=$MEAN
cluster_stop
run "Prolog=$D/empty" "Epilog=$D/empty"
with=$MEAN
cluster_stop
# how many Prolog runs per node per job (a script that counts)
run "Prolog=$D/count"
runs=$(cat "$D"/runs.* | wc -l)
files=$(ls "$D"/runs.* | wc -l)
cluster_stop
rec prolog_steps_job_s_none "$without"
rec prolog_steps_job_s_empty "$with"
rec prolog_steps_runs_per_node_job "$(echo "scale=2; $runs / $files" | bc)"
rm -rf "$D"
