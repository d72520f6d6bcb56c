#!/bin/bash
# mpi_init.sh: how long an MPICH program takes from srun to MPI_Init done
# under --mpi=pmi2 (issue 18), on 2 and 4 virtual nodes x 4 tasks each, on
# one fresh cluster of 4 nodes. The program (t/integration/fixtures/
# mpi_init_time.c) has every rank pass MPI_Init and an MPI_Barrier, then
# rank 0 prints the wall clock; srun's start is taken just before it runs.
# The same layout running /bin/true is the baseline (the launch itself).
# RUNS (default 5) runs of each; the median is recorded.
#
# Usage: [RUNS=5] bench/mpi_init.sh   (key=value lines to stdout and to
# $RES, default bench/results/mpi_init.txt). Needs mpicc.mpich.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RES=${RES:-$here/results/mpi_init.txt}
RUNS=${RUNS:-5}
mkdir -p "$(dirname "$RES")"
rec() { echo "$1=$2" | tee -a "$RES"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
command -v mpicc.mpich >/dev/null || { echo "mpi_init_bench=skipped (no mpicc.mpich)" | tee -a "$RES"; exit 0; }
trap 'cd /; cluster_stop' EXIT
cluster_start 4 || exit 1
cd "$CL/work" || exit 1
mpicc.mpich -O1 -o mpi_init_time "$here/../t/integration/fixtures/mpi_init_time.c" || exit 1
rec date "$(date -u +%FT%TZ)"
rec load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
for nodes in 2 4; do
	n=$((nodes * 4))
	for r in $(seq 1 "$RUNS"); do
		t0=$(date +%s%N)
		t1=$(timeout 120 srun -N$nodes -n$n --mpi=pmi2 ./mpi_init_time) || exit 1
		echo $(( (t1 - t0) / 1000000 )) >>init.$nodes
		t0=$(date +%s%N)
		timeout 120 srun -N$nodes -n$n true || exit 1
		echo $(( ($(date +%s%N) - t0) / 1000000 )) >>true.$nodes
	done
	rec "nodes${nodes}_tasks${n}_srun_to_mpi_init_ms_median" "$(median <init.$nodes)"
	rec "nodes${nodes}_tasks${n}_srun_true_whole_ms_median" "$(median <true.$nodes)"
done
rec load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
