#!/bin/bash
# Sluice benchmarks, measured the way ../shared/compat/slurm-22.05/BENCH.md
# measured real Slurm 22.05 (same client commands, one process per command,
# run as root, same job counts), so the two can be compared as ratios.
#
# Usage: [BENCH_CONF="Key=Value ..."] bench/run.sh [base|a|c|d|e|f|all]   (key=value lines to stdout and
# to $RES, default bench/results/latest.txt). Builds nothing: run `make` first.
# Every wait is bounded.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RES=${RES:-$here/results/latest.txt}
mkdir -p "$(dirname "$RES")"
NODES=${NODES:-4}

now() { date +%s.%N; }
rec() { echo "$1=$2" | tee -a "$RES"; }
calc() { echo "scale=${2:-2}; $1" | bc; }
qlen() { squeue -h -o %i 2>/dev/null | wc -l; }
rss_kb() { awk '/VmRSS/{print $2}' "/proc/$CTLD_PID/status"; }
last_pid() { cat /proc/sys/kernel/ns_last_pid; }
daemons_cpu_ms() { # user+system CPU of the controller and node daemons so far
	local f t=0 pid
	for f in "$CL"/ctld.pid "$CL"/noded-*.pid; do
		pid=$(cat "$f" 2>/dev/null) || continue
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
	done
	echo $((t * 1000 / $(getconf CLK_TCK)))
}
wait_empty() { # wait_empty LIMIT_S: until no job is pending/running; prints the time
	local lim=${1:-300} t0
	t0=$(date +%s)
	while [ "$(squeue -h -t PD,R,CG -o %i | wc -l)" -gt 0 ]; do
		sleep 0.1
		[ $(( $(date +%s) - t0 )) -lt "$lim" ] || { echo TIMEOUT >&2; break; }
	done
	now
}
submit_n() { # submit_n N [sbatch args]: sequential, one process per job
	local n=$1; shift
	for ((i = 0; i < n; i++)); do sbatch --parsable -o /dev/null "$@" --wrap=true; done
}
clean() { scancel -u root >/dev/null 2>&1; wait_empty 120 >/dev/null; }

# BENCH_CONF: more slurm.conf lines, space separated (e.g.
# "JobAcctGatherType=jobacct_gather/linux JobAcctGatherFrequency=task=30").
start() {
	local extra
	read -ra extra <<<"${BENCH_CONF:-}"
	cluster_write_conf "$NODES" "MaxJobCount=1000000" "${extra[@]}" || exit 1
	ctld_start || exit 1
	for i in $(seq 1 "$NODES"); do noded_start "$(printf 'comp%03d' "$i")"; done
	wait_for 30 nodes_idle || exit 1
	cd "$CL/work"
}
trap 'cluster_stop' EXIT
fresh() { cd /; cluster_stop; start; }

bench_base() { # the floor: creating a trivial process on this machine
	local t0 t1
	t0=$(now); for ((i = 0; i < 2000; i++)); do /bin/true; done; t1=$(now)
	rec base_true_ms "$(calc "($t1 - $t0) * 1000 / 2000" 3)"
}

bench_a() { # submission throughput, held jobs: nothing executes
	clean
	local t0 t1 n
	t0=$(now); submit_n 2000 -H >a.ids; t1=$(now)
	n=$(wc -l <a.ids)
	rec a_held_seq_submitted "$n"
	rec a_held_seq_jobs_per_s "$(calc "$n / ($t1 - $t0)" 1)"
	rec a_held_seq_ms_per_sbatch "$(calc "($t1 - $t0) * 1000 / $n" 3)"
	clean
	t0=$(now)
	submit_n 1000 -H >a2.1 & submit_n 1000 -H >a2.2 & wait
	t1=$(now)
	rec a_held_par2_jobs_per_s "$(calc "$(cat a2.* | wc -l) / ($t1 - $t0)" 1)"
	clean
	t0=$(now)
	for k in 1 2 3 4; do submit_n 500 -H >a4.$k & done; wait
	t1=$(now)
	rec a_held_par4_jobs_per_s "$(calc "$(cat a4.* | wc -l) / ($t1 - $t0)" 1)"
	clean
}

latency_ms() { # median of 5 runs (after 1 warm-up) of a command, in ms
	"$@" >/dev/null 2>&1
	for _ in 1 2 3 4 5; do
		local t0 t1
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		calc "($t1 - $t0) * 1000 / 1" 1   # "/ 1": bc applies scale only to division
	done | sort -n | sed -n 3p
}

fill_held() { # fill_held N: N held jobs, 4 parallel submitters
	local per=$(( $1 / 4 ))
	for k in 1 2 3 4; do submit_n "$per" -H >/dev/null & done; wait
}

bench_c() { # query latency with 10,000 and 100,000 pending jobs
	clean
	fill_held 10000
	rec c_pending_10k "$(squeue -h -t PD -o %i | wc -l)"
	rec c_squeue_10k_ms "$(latency_ms squeue)"
	rec c_squeue_u_t_10k_ms "$(latency_ms squeue -u root -t PD)"
	rec c_sinfo_10k_ms "$(latency_ms sinfo)"
	rec c_scontrol_show_job_10k_ms "$(latency_ms scontrol show job "$(squeue -h -o %i | head -1)")"
	if [ "${BIG:-1}" = 1 ]; then
		fill_held 90000
		rec c_pending_100k "$(squeue -h -t PD -o %i | wc -l)"
		rec c_squeue_100k_ms "$(latency_ms squeue)"
	fi
	clean
}

bench_d() { # end to end: 2 submitters x 1000 `true` until all COMPLETED
	clean
	local t0 t1 t2 p0 p1 n done_n
	p0=$(last_pid)
	c0=$(daemons_cpu_ms)
	t0=$(now)
	submit_n 1000 >d.1 & submit_n 1000 >d.2 & wait
	t1=$(now)
	t2=$(wait_empty 300)
	p1=$(last_pid)
	n=$(cat d.* | wc -l)
	done_n=$(squeue -h -t CD -o %i | sort | comm -12 - <(cat d.* | sort) | wc -l)
	rec d_par2_submitted "$n"
	rec d_par2_completed "$done_n"
	rec d_par2_left_in_queue "$(squeue -h -t PD,R,CG -o %i | wc -l)"
	rec d_par2_submit_phase_s "$(calc "($t1 - $t0) / 1")"
	rec d_par2_first_submit_to_all_done_s "$(calc "($t2 - $t0) / 1")"
	rec d_par2_completed_per_s "$(calc "$done_n / ($t2 - $t0)" 1)"
	# processes created during the run, per job (includes the 2 submitter
	# loops' sbatch processes and the squeue polling)
	rec d_processes_per_job "$(calc "($p1 - $p0) / $n" 2)"
	# CPU the controller and the node daemons used (not the detached job
	# supervisors), per job: steadier than wall time on a loaded machine
	rec d_daemons_cpu_ms_per_job "$(calc "($(daemons_cpu_ms) - $c0) / $n" 3)"
	clean
}

bench_e() { # controller memory: idle and with 10,000 held jobs
	clean
	rec e_rss_kb_idle "$(rss_kb)"
	local r0; r0=$(rss_kb)
	fill_held 10000
	rec e_rss_kb_10k_held "$(rss_kb)"
	rec e_bytes_per_held_job "$(( ($(rss_kb) - r0) * 1024 / 10000 ))"
	clean
}

bench_f() { # crash: 500 submits, kill -9 0.2 s after the last returned
	clean
	submit_n 500 -H >f.ids
	sleep 0.2
	ctld_kill9
	ctld_start
	squeue -h -o %i | sort >f.after
	rec f_accepted "$(wc -l <f.ids)"
	rec f_lost_after_kill9 "$(sort f.ids | comm -23 - f.after | wc -l)"
	rec f_last_accepted_id "$(tail -1 f.ids)"
	rec f_next_new_id "$(sbatch --parsable -H -o /dev/null --wrap=true)"
	clean
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) nproc=$(nproc) nodes=$NODES" >>"$RES"
start
case "${1:-all}" in
base) bench_base ;; a) bench_a ;; c) bench_c ;; d) bench_d ;; e) bench_e ;; f) bench_f ;;
# Each section on a fresh cluster: finished jobs stay in the controller's
# memory for MinJobAge=300 s, so after another section the controller
# would be neither idle (e) nor holding only the 10,000 pending jobs (c).
all) bench_base; for s in e a f d c; do fresh; "bench_$s"; done ;;
*) echo "usage: $0 [base|a|c|d|e|f|all]" >&2; exit 1 ;;
esac
