#!/bin/bash
# Job array benchmarks (issue 10): what a big array costs the controller.
#
# Usage: bench/arrays.sh [TASKS] [E2E]   (defaults 100000 and 10000;
# key=value lines to stdout and to $RES, default bench/results/arrays.txt).
# Builds nothing: run `make all` first. On a cluster of 4 node daemons
# (8 CPUs each) on loopback:
#   sbatch_one_ms        sbatch -H --wrap=true (median of 5, after a warm-up)
#   sbatch_array_ms      sbatch -H --array=0-(TASKS-1) (median of 5)
#   ctld_rss_kb_before   the controller's RSS after the one-job submissions
#                        (cancelled), the baseline
#   ctld_rss_kb_after    its RSS with one TASKS-task array pending (held)
#   ctld_rss_kb_delta    the difference
#   squeue_ms            squeue with that array pending (median of 5)
#   squeue_r_ms          squeue -r (one row per task, TASKS rows; median of 5)
#   squeue_r_rows        the rows squeue -r printed
#   e2e_tasks, e2e_s     an array of E2E tasks of `true`, from sbatch until
#                        the last task has ended (squeue shows none left)
#   e2e_tasks_per_s
# With SLURM_E2E=N (and /tmp/realslurm/env.sh present), the same end to end
# run on the shared real Slurm 22.05 (32 nodes): slurm_e2e_tasks, slurm_e2e_s.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RES=${RES:-$here/results/arrays.txt}
mkdir -p "$(dirname "$RES")"
TASKS=${1:-100000}
E2E=${2:-10000}

now() { date +%s.%N; }
rec() { echo "$1=$2" | tee -a "$RES"; }
calc() { echo "scale=${2:-2}; $1" | bc; }
latency_ms() { # median of 5 runs (after 1 warm-up) of a command, in ms
	"$@" >/dev/null 2>&1
	for _ in 1 2 3 4 5; do
		local t0 t1
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		calc "($t1 - $t0) * 1000 / 1" 1
	done | sort -n | sed -n 3p
}
rss_kb() { ps -o rss= -p "$CTLD_PID" | tr -d ' '; }
left() { squeue -h -j "$1" -t PD,R,CG -o %i | wc -l; }
trap 'cluster_stop' EXIT

echo "# $(date -u +%FT%TZ) arrays.sh TASKS=$TASKS E2E=$E2E" >>"$RES"
cluster_start 4 "MaxArraySize=$((TASKS + 1))" "MaxJobCount=$((TASKS + 100000))" || exit 1
cd "$CL/work" || exit 1

rec sbatch_one_ms "$(latency_ms sbatch -H -o /dev/null --wrap=true)"
scancel -t PD 2>/dev/null
rss0=$(rss_kb)
rec ctld_rss_kb_before "$rss0"
# One array kept for the views; the latency runs submit (and cancel) others.
id=$(sbatch --parsable -H -o /dev/null --array=0-$((TASKS - 1)) --wrap=true) || exit 1
rss1=$(rss_kb)
rec ctld_rss_kb_after "$rss1"
rec ctld_rss_kb_delta $((rss1 - rss0))
# the submission alone (the scancel after it is not timed)
for _ in 1 2 3 4 5 6; do
	t0=$(now)
	a=$(sbatch --parsable -H -o /dev/null --array=0-$((TASKS - 1)) --wrap=true)
	t1=$(now)
	scancel "$a"
	calc "($t1 - $t0) * 1000 / 1" 1
done | tail -5 | sort -n | sed -n 3p | { read -r v; rec sbatch_array_ms "$v"; }
rec squeue_ms "$(latency_ms squeue)"
rec squeue_r_ms "$(latency_ms squeue -r)"
rec squeue_r_rows "$(squeue -h -r | wc -l)"
scancel "$id"

# End to end: E2E tasks of true.
t0=$(now)
e=$(sbatch --parsable -o /dev/null --array=0-$((E2E - 1)) --wrap=true) || exit 1
while [ "$(left "$e")" != 0 ]; do sleep 0.2; done
t1=$(now)
rec e2e_tasks "$E2E"
rec e2e_s "$(calc "($t1 - $t0) / 1" 1)"
rec e2e_tasks_per_s "$(calc "$E2E / ($t1 - $t0)" 1)"
rec e2e_completed "$(sacct -n -X -j "$e" -o State | grep -c COMPLETED)"

if [ -n "${SLURM_E2E:-}" ] && [ -f /tmp/realslurm/env.sh ]; then
	(
		. /tmp/realslurm/env.sh
		export PATH=/usr/bin:$PATH
		cd /tmp || exit 1
		t0=$(now)
		s=$(sbatch --parsable -J arr_bench -o /dev/null --array=0-$((SLURM_E2E - 1)) --wrap=true) || exit 1
		while [ -n "$(squeue -h -j "$s" -t PD,R,CG -o %i 2>/dev/null)" ]; do sleep 0.2; done
		t1=$(now)
		rec slurm_e2e_tasks "$SLURM_E2E"
		rec slurm_e2e_s "$(calc "($t1 - $t0) / 1" 1)"
		rec slurm_e2e_tasks_per_s "$(calc "$SLURM_E2E / ($t1 - $t0)" 1)"
	)
fi
