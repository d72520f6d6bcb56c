#!/bin/bash
# Accounting benchmarks: sacct over 1,000,000 finished job records.
#
# Usage: bench/acct.sh [N]   (N records, default 1000000; key=value lines to
# stdout and to $RES, default bench/results/acct.txt). Builds nothing.
#
# The records are loaded fast, not by running jobs: SQL straight into the
# acct_job table of a stopped controller's state DB (the controller made
# the schema on a first start), 10,000 jobs a day over N/10,000 days ending
# yesterday, 1,000 users, 50 accounts; then the controller is started on
# it and the queries are timed (median of 5 runs after a warm-up, as
# bench/run.sh):
#   base_*_ms         /bin/true, sacct -V, scontrol ping: what any command
#                     costs here before it does its work
#   sacct_j_ms        sacct -j ID (one job among N)
#   sacct_day_ms      sacct -a -S D -E D+1 over one day's 10,000 jobs
#   sacct_day_rows    the rows it printed
#   *_cpu_ms          the same commands' own CPU (user+sys of the client
#                     processes, mean of 100 runs): what a loaded machine
#                     does not inflate the way it inflates wall time
# and the controller loop's longest turn (logged at its stop) while
# sbatch -H is run 200 times, without and then with 4 heavy sacct (-a over
# ten days, 100,000 jobs) running meanwhile:
#   loop_max_turn_us_idle_sacct, loop_max_turn_us_heavy_sacct
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RES=${RES:-$here/results/acct.txt}
mkdir -p "$(dirname "$RES")"
N=${1:-1000000}
PER_DAY=10000

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
cpu_ms() { # mean user+sys CPU of the command's process over 100 runs, in ms
	local out
	out=$( ( for _ in $(seq 100); do "$@" >/dev/null 2>&1; done; times ) | sed -n 2p)
	# "0m0.120s 0m0.080s": the children's user and system time
	echo "$out" | awk '{ split($1, u, "[ms]"); split($2, s, "[ms]");
		printf "%.2f", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000 / 100 }'
}
trap 'cluster_stop' EXIT

ctld_stop() { kill -TERM "$CTLD_PID"; wait_gone "$CTLD_PID"; }
longest_turn() { # the figures of the controller's last "stopped" line: wall/CPU us
	cat "$CL"/log/ctld.* | sed -n 's/.*the longest \([0-9]*\) us, \([0-9]*\) us of CPU.*/\1\/\2/p' | tail -1
}

cluster_write_conf 1 "MaxJobCount=1000000" || exit 1
ctld_start || exit 1
ctld_stop
days=$(( (N + PER_DAY - 1) / PER_DAY ))
midnight=$(date -d "today 00:00" +%s)
t0=$(( midnight - days * 86400 ))
# job i: submitted at t0 + i * 8.64 s, starts 10 s later, runs 1-10 minutes
load0=$(now)
sqlite3 "$CL/state/sluice.db" <<EOF || exit 1
PRAGMA journal_mode=WAL;
PRAGMA synchronous=OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $N)
INSERT INTO acct_job(job_id, cluster, partition, account, qos, assoc_id, qos_id, uid, gid,
  user, grp, name, state, reason, exit_code, derived_ec, submit, eligible, start, end,
  suspended, timelimit, priority, nice, req_cpus, req_mem, req_mem_per_cpu, req_nodes,
  alloc_cpus, alloc_nodes, nodelist, req_tres, alloc_tres, workdir, flags, requeues)
SELECT i, 'test', 'defq', 'acct' || (i % 50), 'normal', 0, 1, 2000 + i % 1000, 2000,
  'user' || (i % 1000), 'users', 'job' || i, CASE WHEN i % 10 = 0 THEN 5 ELSE 3 END, 0,
  CASE WHEN i % 10 = 0 THEN 256 ELSE 0 END, 0,
  $t0 + i * 864 / 100, $t0 + i * 864 / 100, $t0 + i * 864 / 100 + 10,
  $t0 + i * 864 / 100 + 70 + i % 540, 0, 60, 1000, 0, 4, 4096, 0, 1, 4, 1,
  'comp001', 'billing=4,cpu=4,mem=4G,node=1', 'billing=4,cpu=4,mem=4G,node=1', '/home/u', 0, 0
FROM n;
INSERT OR REPLACE INTO meta(key, value) VALUES('next_job_id', $N + 1);
COMMIT;
EOF
load1=$(now)
rec acct_records "$N"
rec acct_load_s "$(calc "$load1 - $load0" 1)"
rec acct_db_mb "$(( $(stat -c %s "$CL/state/sluice.db") / 1048576 ))"
ctld_start || exit 1
noded_start comp001
wait_for 30 nodes_idle || exit 1
cd "$CL/work"

# the floor on this machine: a process, the binary's start, one RPC
rec base_true_ms "$(latency_ms /bin/true)"
rec base_sacct_V_ms "$(latency_ms sacct -V)"
rec base_ping_ms "$(latency_ms scontrol ping)"
rec sacct_j_ms "$(latency_ms sacct -j $(( N / 2 )))"
rec base_true_cpu_ms "$(cpu_ms /bin/true)"
rec base_sacct_V_cpu_ms "$(cpu_ms sacct -V)"
rec sacct_j_cpu_ms "$(cpu_ms sacct -j $(( N / 2 )))"
test "$(sacct -n -X -P -j $(( N / 2 )) -o JobID)" = $(( N / 2 )) || echo "sacct -j: wrong answer" >&2
d0=$(date -d "@$(( midnight - 2 * 86400 ))" +%Y-%m-%dT%H:%M:%S)
d1=$(date -d "@$(( midnight - 86400 ))" +%Y-%m-%dT%H:%M:%S)
rec sacct_day_ms "$(latency_ms sacct -a -S "$d0" -E "$d1")"
rec sacct_day_rows "$(sacct -a -n -S "$d0" -E "$d1" | wc -l)"

# The loop's longest turn while submits are served, without and with
# heavy queries running.
submits() { for ((i = 0; i < 200; i++)); do sbatch -H -o /dev/null --wrap=true >/dev/null; done; }
ctld_stop && ctld_start || exit 1
submits
ctld_stop
rec loop_max_turn_us_idle_sacct "$(longest_turn)"
ctld_start || exit 1
d10=$(date -d "@$(( midnight - 11 * 86400 ))" +%Y-%m-%dT%H:%M:%S)
heavy() { for _ in 1 2 3; do sacct -a -S "$d10" -E "$d1" >/dev/null; done; }
t0h=$(now)
for _ in 1 2 3 4; do heavy & done
submits
wait
t1h=$(now)
ctld_stop
rec loop_max_turn_us_heavy_sacct "$(longest_turn)"
rec heavy_phase_s "$(calc "$t1h - $t0h" 1)"
