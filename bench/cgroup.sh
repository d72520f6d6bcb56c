#!/bin/bash
# cgroup.sh: the end-to-end cost of jobs in cgroups (issue 11), measured as
# bench/run.sh d measures the end-to-end rate (2 parallel submitters of
# `sbatch --wrap=true` until every job COMPLETED), once without cgroups
# (ProctrackType=proctrack/pgid) and once with them (proctrack/cgroup,
# task/affinity,task/cgroup, cgroup.conf ConstrainCores, ConstrainRAMSpace,
# ConstrainDevices on this machine's v1 hierarchy), interleaved RUNS times
# (default 2) on fresh clusters of NODES nodes (default 4).
#
# Usage: [N=300] [RUNS=2] bench/cgroup.sh   (key=value lines to stdout and
# to $RES, default bench/results/cgroup.txt). Needs root and writable
# cgroups (else it says so and stops). Every wait is bounded.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RES=${RES:-$here/results/cgroup.txt}
N=${N:-300}
RUNS=${RUNS:-2}
NODES=${NODES:-4}
mkdir -p "$(dirname "$RES")"
now() { date +%s.%N; }
rec() { echo "$1=$2" | tee -a "$RES"; }
calc() { echo "scale=${2:-2}; $1" | bc; }
daemons_cpu_ms() {
	local f t=0 pid
	for f in "$CL"/ctld.pid "$CL"/noded-*.pid; do
		pid=$(cat "$f" 2>/dev/null) || continue
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
	done
	echo $((t * 1000 / $(getconf CLK_TCK)))
}
submit_n() { for ((i = 0; i < $1; i++)); do sbatch --parsable -o /dev/null --wrap=true; done; }

probe=/sys/fs/cgroup/freezer/sluice-bench-probe-$$
if ! mkdir "$probe" 2>/dev/null; then
	echo "cgroup_bench=skipped (no writable cgroup v1 freezer hierarchy)" | tee -a "$RES"
	exit 0
fi
rmdir "$probe"
trap 'cd /; cluster_stop' EXIT

one() { # one off|on
	local mode=$1 t0 t2 c0 n done_n left
	if [ "$mode" = on ]; then
		cluster_write_conf "$NODES" "MaxJobCount=1000000" "ProctrackType=proctrack/cgroup" \
			"TaskPlugin=task/affinity,task/cgroup" || exit 1
		printf 'CgroupPlugin=cgroup/v1\nConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n' \
			>"$CL/etc/cgroup.conf"
	else
		cluster_write_conf "$NODES" "MaxJobCount=1000000" "ProctrackType=proctrack/pgid" || exit 1
	fi
	ctld_start || exit 1
	for i in $(seq 1 "$NODES"); do noded_start "$(printf 'comp%03d' "$i")"; done
	wait_for 30 nodes_idle || exit 1
	cd "$CL/work" || exit 1
	c0=$(daemons_cpu_ms)
	t0=$(now)
	submit_n "$N" >d.1 & submit_n "$N" >d.2 & wait
	local lim=$(( $(date +%s) + 300 ))
	while [ "$(squeue -h -t PD,R,CG -o %i | wc -l)" -gt 0 ] && [ "$(date +%s)" -lt $lim ]; do sleep 0.1; done
	t2=$(now)
	n=$(cat d.* | wc -l)
	done_n=$(squeue -h -t CD -o %i | sort | comm -12 - <(cat d.* | sort) | wc -l)
	left=$(find /sys/fs/cgroup/freezer/"$SLUICE_CGROUP_PREFIX"_* -name 'job_*' 2>/dev/null | wc -l)
	rec "${mode}_completed" "$done_n/$n"
	rec "${mode}_completed_per_s" "$(calc "$done_n / ($t2 - $t0)" 1)"
	rec "${mode}_daemons_cpu_ms_per_job" "$(calc "($(daemons_cpu_ms) - $c0) / $n" 3)"
	[ "$mode" = on ] && rec "${mode}_job_cgroups_left" "$left"
	cd / && cluster_stop
}

rec date "$(date -u +%FT%TZ)"
rec load_before "$(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$RUNS"); do
	one off
	one on
done
rec load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
