#!/bin/bash
# What the accounting records cost the controller: the same code built
# twice, with records (the normal build) and without (make NORECORDS=1:
# no job, step or usage rows are written), run in alternation on the
# workloads of bench/run.sh sections a and d.
#
# Usage: bench/acct_cost.sh [ROUNDS] [REC_BUILD] [NOREC_BUILD]
#   defaults: 3 rounds, build, build-norec (make first:
#   `make && make BUILD=build-norec NORECORDS=1 all`).
# Key=value lines to stdout and $RES (default bench/results/acct_cost.txt),
# one set per build and round, then the medians and their ratios:
#   held_cpu_ms_per_job   controller CPU (utime+stime) per `sbatch -H`,
#                         2,000 sequential submits (section a)
#   held_jobs_per_s       the same submits' rate (wall clock)
#   held_wchar_per_job    bytes the controller wrote per submit (WAL
#                         frames, log, sockets: /proc/PID/io wchar)
#   e2e_cpu_ms_per_job    controller CPU per job, 2 submitters x N
#                         `sbatch --wrap=true` until all completed
#                         (section d, N=$E2E, default 500)
#   e2e_jobs_per_s        their rate, first submit to last completion
#   e2e_wchar_per_job
# CPU time is the figure to trust on a shared machine: wall clock moves
# with whatever else runs; the rounds alternate the builds so both see
# the same load.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
RES=${RES:-$here/results/acct_cost.txt}
ROUNDS=${1:-3}
REC=$(cd "${2:-$top/build}" && pwd) || exit 1
NOREC=$(cd "${3:-$top/build-norec}" && pwd) || exit 1
HELD=${HELD:-2000}
E2E=${E2E:-500}
mkdir -p "$(dirname "$RES")"
: >"$RES"
for b in "$REC" "$NOREC"; do
	[ -x "$b/sluice" ] || { echo "acct_cost: no $b/sluice: build it first" >&2; exit 1; }
done

now() { date +%s.%N; }
calc() { echo "scale=${2:-3}; $1" | bc; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

one_round() { # one_round BUILD LABEL: a cluster of 4 nodes, both workloads
	local label=$2
	(
		export SLUICE_BUILD=$1
		. "$top/t/cluster.sh"
		trap 'cluster_stop' EXIT
		cluster_write_conf 4 "MaxJobCount=1000000" || exit 1
		ctld_start || exit 1
		for i in 1 2 3 4; do noded_start "$(printf 'comp%03d' "$i")"; done
		wait_for 30 nodes_idle || exit 1
		cd "$CL/work" || exit 1
		local p t0 t1 c0 c1 w0 w1
		p=$(cat "$CL/ctld.pid")
		cpu() { awk '{ print $14 + $15 }' "/proc/$p/stat"; }
		wch() { awk '/^wchar/ { print $2 }' "/proc/$p/io"; }
		tck=$(getconf CLK_TCK)
		empty() {
			local t=$(($(date +%s) + 300))
			while [ "$(squeue -h -t PD,R,CG -o %i | wc -l)" -gt 0 ] && [ "$(date +%s)" -lt $t ]; do
				sleep 0.1
			done
		}
		for ((i = 0; i < 20; i++)); do sbatch -H -o /dev/null --wrap=true >/dev/null; done
		scancel -u root; empty
		c0=$(cpu) w0=$(wch) t0=$(now)
		for ((i = 0; i < HELD; i++)); do sbatch -H -o /dev/null --wrap=true >/dev/null; done
		t1=$(now) c1=$(cpu) w1=$(wch)
		echo "${label}_held_cpu_ms_per_job=$(calc "($c1 - $c0) * 1000 / $tck / $HELD")"
		echo "${label}_held_jobs_per_s=$(calc "$HELD / ($t1 - $t0)" 1)"
		echo "${label}_held_wchar_per_job=$(((w1 - w0) / HELD))"
		scancel -u root; empty
		c0=$(cpu) w0=$(wch) t0=$(now)
		for k in 1 2; do
			( for ((i = 0; i < E2E; i++)); do sbatch -o /dev/null --wrap=true >/dev/null; done ) &
		done
		wait
		empty
		t1=$(now) c1=$(cpu) w1=$(wch)
		local n=$((2 * E2E))
		echo "${label}_e2e_cpu_ms_per_job=$(calc "($c1 - $c0) * 1000 / $tck / $n")"
		echo "${label}_e2e_jobs_per_s=$(calc "$n / ($t1 - $t0)" 1)"
		echo "${label}_e2e_wchar_per_job=$(((w1 - w0) / n))"
	)
}

for ((r = 1; r <= ROUNDS; r++)); do
	one_round "$REC" rec | tee -a "$RES"
	one_round "$NOREC" norec | tee -a "$RES"
done
echo "load_average=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)" | tee -a "$RES"
for k in held_cpu_ms_per_job held_jobs_per_s held_wchar_per_job \
	 e2e_cpu_ms_per_job e2e_jobs_per_s e2e_wchar_per_job; do
	a=$(sed -n "s/^rec_$k=//p" "$RES" | median)
	b=$(sed -n "s/^norec_$k=//p" "$RES" | median)
	echo "median_rec_$k=$a median_norec_$k=$b ratio_$k=$(calc "$a / $b")" | tee -a "$RES"
done
