#!/bin/bash
# squeue_large.sh: squeue's latency with many pending jobs, for this build
# and, when OLD_BUILD names another build directory (e.g. one of main), for
# that one too, against the same controller: before/after in one run.
#
# A cluster of 2 node daemons, JOBS held jobs (default 100,000, 8 parallel
# sbatch loops), then the median of RUNS runs (one process per command,
# output discarded; the two builds in turns) of: `squeue` (default format),
# `squeue -t all`, `squeue -h -o %all` (every field), `squeue -j ID` and
# `squeue --json`.
#
# Usage: [OLD_BUILD=dir] [JOBS=N] bench/squeue_large.sh [RUNS]   (key=value
# lines on stdout). Builds nothing: run `make` first. Every wait is bounded.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RUNS=${1:-5}
JOBS=${JOBS:-100000}
NEW=${SLUICE_BUILD:-$here/../build}
export PATH="$NEW/bin:$PATH"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

trap 'cluster_stop >/dev/null 2>&1' EXIT
cluster_write_conf 2 "MaxJobCount=1000000" || exit 1
ctld_start || exit 1
for n in comp001 comp002; do noded_start $n; done
wait_for 30 nodes_idle || exit 1
cd "$CL/work" || exit 1

t0=$(date +%s)
per=$((JOBS / 8))
for k in 1 2 3 4 5 6 7 8; do
	( for ((i = 0; i < per; i++)); do sbatch -H -o /dev/null --wrap=true >/dev/null || exit 1; done ) &
done
wait
echo "jobs_pending=$(squeue -h -t PD -o %i | wc -l)"
echo "fill_s=$(( $(date +%s) - t0 ))"
id=$(squeue -h -o %i | tail -1)

# Old and new run in turns, so a load change on the machine hits both.
sq_new=$NEW/bin/squeue
sq_old=${OLD_BUILD:+$OLD_BUILD/bin/squeue}
cmp_ms() { # cmp_ms NAME ARGS...: median ms of each build's runs, in turns
	local name=$1 i t0 t1 b
	shift
	for b in $sq_new $sq_old; do "$b" "$@" >/dev/null 2>&1; done
	for ((i = 0; i < RUNS; i++)); do
		for b in $sq_new $sq_old; do
			t0=$(date +%s%N)
			"$b" "$@" >/dev/null 2>&1
			t1=$(date +%s%N)
			echo "$b $(( (t1 - t0) / 100000 ))"
		done
	done >times.$name
	echo "new_${name}_ms=$(awk -v b="$sq_new" '$1 == b { print $2 / 10 }' times.$name | median)"
	[ -z "$sq_old" ] ||
		echo "old_${name}_ms=$(awk -v b="$sq_old" '$1 == b { print $2 / 10 }' times.$name | median)"
}
cmp_ms squeue
cmp_ms squeue_t_all -t all
cmp_ms squeue_o_all -h -o %all
cmp_ms squeue_j -j "$id"
cmp_ms squeue_json --json
