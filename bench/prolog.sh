#!/bin/bash
# Prolog/Epilog overhead per job (issue 11): the same jobs with no scripts
# and with an empty Prolog and Epilog (`#!/bin/sh` + `exit 0`), on one node
# daemon of t/cluster.sh. Two figures (docs/benchmarks.md, "Prolog and
# epilog"):
#   - latency: N jobs one after another (`sbatch --wait`), mean seconds per
#     job from submit to its end as sbatch sees it, with and without;
#   - script time: the supervisor's own measure of each run (its debug line
#     "prolog ran in N ms"), mean over the jobs.
# Usage: make && SLUICE_BUILD=$PWD/build bench/prolog.sh [N]   (default 50)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
N=${1:-50}
RES=${RES:-$here/results/latest.txt}
mkdir -p "$(dirname "$RES")"
rec() { echo "$1=$2" | tee -a "$RES"; }

run() { # run LABEL [conf lines]: mean seconds per job over N sequential jobs, in $MEAN
	shift
	cluster_start 1 "SlurmdDebug=debug" "$@" >"$D/start.log" 2>&1 || { echo "cluster failed" >&2; cat "$D/start.log" >&2; exit 1; }
	sbatch --wait -o /dev/null --wrap=true >/dev/null   # warm-up
	local t0 t1
	t0=$(date +%s.%N)
	for _ in $(seq "$N"); do sbatch --wait -o /dev/null --wrap=true >/dev/null; done
	t1=$(date +%s.%N)
	MEAN=$(echo "scale=4; ($t1 - $t0) / $N" | bc)
}

D=$(mktemp -d /tmp/sluice-bench-pe.XXXXXX)
chmod 755 "$D"
printf '#!/bin/sh\nexit 0\n' >"$D/empty" && chmod 755 "$D/empty"

run none
without=$MEAN
cluster_stop
run empty "Prolog=$D/empty" "Epilog=$D/empty"
with=$MEAN
pro=$(grep -ho 'prolog ran in [0-9.]* ms' "$CL"/log/noded-comp001.* | awk '{ s += $4; n++ } END { if (n) printf "%.2f", s / n }')
epi=$(grep -ho 'epilog ran in [0-9.]* ms' "$CL"/log/noded-comp001.* | awk '{ s += $4; n++ } END { if (n) printf "%.2f", s / n }')
cluster_stop
rm -rf "$D"
rec prolog_bench_jobs "$N"
rec prolog_job_s_without "$without"
rec prolog_job_s_with_empty "$with"
rec prolog_overhead_ms_per_job "$(echo "scale=1; ($with - $without) * 1000 / 1" | bc)"
rec prolog_script_ms_mean "$pro"
rec epilog_script_ms_mean "$epi"
