#!/bin/bash
test_description='controller metrics (MetricsType=metrics/openmetrics): families and values against squeue, sinfo and sdiag, promtool, health endpoints'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v promtool >/dev/null && test_set_prereq PROMTOOL
command -v curl >/dev/null && test_set_prereq CURL
# Timing bounds mean nothing under valgrind (make test-valgrind).
[ -z "${SLUICE_VALGRIND:-}" ] && test_set_prereq NATIVE

MPORT=$(pick_ports 1)
url() { echo "http://127.0.0.1:$MPORT$1"; }
scrape() { curl -sf "$(url "${1:-/metrics}")"; }
# value FILE SERIES: the value of the sample named exactly SERIES in FILE
value() { awk -v s="$2" 'index($0, s " ") == 1 { print $NF; found = 1; exit } END { if (!found) print "missing" }' "$1"; }

test_expect_success CURL 'cluster starts with the metrics port' '
	cluster_start 2 "SchedulerType=sched/backfill" "MetricsType=metrics/openmetrics" "MetricsPort=$MPORT" &&
	grep -q "metrics on http://\*:$MPORT/metrics" "$CL"/log/ctld.* &&
	scontrol show config >conf &&
	grep -q "^MetricsType *= metrics/openmetrics$" conf &&
	grep -q "^MetricsPort *= $MPORT$" conf
'

test_expect_success CURL 'jobs in several states, a drained node' '
	c=$(sbatch --parsable -o /dev/null --wrap=true) &&
	f=$(sbatch --parsable -o /dev/null --wrap="exit 3") &&
	wait_job_state $c COMPLETED && wait_job_state $f FAILED &&
	a=$(sbatch --parsable -N 2 --exclusive -o /dev/null --wrap="sleep 300") &&
	wait_job_state $a RUNNING &&
	p=$(sbatch --parsable -n 1 -o /dev/null --wrap=true) &&
	h=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	x=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scancel $x && wait_job_state $x CANCELLED &&
	scontrol update nodename=comp002 state=drain reason="metrics test" &&
	wait_for 10 test_reason $p Resources
'

test_expect_success PROMTOOL 'promtool check metrics passes on /metrics and each Slurm endpoint' '
	scrape >m.txt &&
	promtool check metrics <m.txt &&
	for e in jobs nodes partitions scheduler jobs-users-accts; do
		scrape /metrics/$e >e.txt && test -s e.txt && promtool check metrics <e.txt || return 1
	done
'

test_expect_success CURL 'job families agree with squeue' '
	scrape >m.txt &&
	test "$(value m.txt slurm_jobs_running)" = "$(squeue -h -t R | wc -l)" &&
	test "$(value m.txt slurm_jobs_pending)" = "$(squeue -h -t PD | wc -l)" &&
	test "$(value m.txt slurm_jobs_completed)" = "$(squeue -h -t CD | wc -l)" &&
	test "$(value m.txt slurm_jobs_failed)" = "$(squeue -h -t F | wc -l)" &&
	test "$(value m.txt slurm_jobs_cancelled)" = "$(squeue -h -t CA | wc -l)" &&
	test "$(value m.txt slurm_jobs_hold)" = 1 &&
	test "$(value m.txt slurm_jobs)" = "$(squeue -h -t all | wc -l)" &&
	test "$(value m.txt slurm_jobs_cpus_alloc)" = 16 &&
	test "$(value m.txt slurm_jobs_gpus_alloc)" = 16 &&
	squeue -h -t PD -o "%P %r" | sort | uniq -c | while read n part reason; do
		test "$(value m.txt "slurm_jobs_pending_reason{partition=\"$part\",reason=\"$reason\"}")" = "$n" || return 1
	done &&
	test "$(value m.txt "slurm_user_jobs_running{username=\"root\"}")" = 1 &&
	test "$(value m.txt "slurm_partition_jobs_pending{partition=\"defq\"}")" = 2
'

test_expect_success CURL 'node families agree with sinfo, incl. count by state' '
	scrape >m.txt &&
	sinfo -N -h -o "%N %T" | sort -u | tr -d "*" >want &&
	sed -n "s/^slurm_node_state{node=\"\([^\"]*\)\",state=\"\([^\"]*\)\"} 1$/\1 \2/p" m.txt | sort >got &&
	test_cmp want got &&
	test "$(value m.txt slurm_nodes_draining)" = 1 &&
	test "$(value m.txt slurm_nodes_drain)" = 1 &&
	test "$(value m.txt slurm_nodes_alloc)" = 2 &&
	test "$(value m.txt "slurm_node_reason{node=\"comp002\",reason=\"metrics test\"}")" = 1 &&
	test "$(value m.txt slurm_gpus)" = 16 &&
	test "$(value m.txt "slurm_partition_gpus_alloc{partition=\"defq\",type=\"h100\"}")" = 16 &&
	test "$(value m.txt slurm_cpus)" = "$(sinfo -h -o %C | cut -d/ -f4)"
'

# sdiag and the metrics read the same counters; a scheduling pass or an RPC
# may land between the two reads, so compare until one round agrees.
sdiag_matches() {
	sdiag >s.txt && scrape >m.txt || return 1
	main=$(sed -n "/^Main schedule/,/^Backfilling/p" s.txt) &&
	bf=$(sed -n "/^Backfilling/,\$p" s.txt) &&
	test "$(sed -n "s/^Jobs submitted: *//p" s.txt)" = "$(value m.txt slurm_sdiag_jobs_submitted)" &&
	test "$(sed -n "s/^Jobs started: *//p" s.txt)" = "$(value m.txt slurm_sdiag_jobs_started)" &&
	test "$(sed -n "s/^Jobs completed: *//p" s.txt)" = "$(value m.txt slurm_sdiag_jobs_completed)" &&
	test "$(sed -n "s/^Jobs canceled: *//p" s.txt)" = "$(value m.txt slurm_sdiag_jobs_canceled)" &&
	test "$(sed -n "s/^Jobs failed: *//p" s.txt)" = "$(value m.txt slurm_sdiag_jobs_failed)" &&
	test "$(echo "$main" | sed -n "s/^.Total cycles: *//p")" = "$(value m.txt slurm_schedule_cycle_cnt)" &&
	test "$(echo "$main" | sed -n "s/^.Last cycle: *//p")" = "$(value m.txt slurm_schedule_cycle_last)" &&
	test "$(echo "$main" | sed -n "s/^.Max cycle: *//p")" = "$(value m.txt slurm_schedule_cycle_max)" &&
	test "$(echo "$main" | sed -n "s/^.Mean cycle: *//p")" = "$(value m.txt slurm_sched_mean_cycle)" &&
	test "$(echo "$bf" | sed -n "s/^.Total cycles: *//p")" = "$(value m.txt slurm_bf_cycle_cnt)" &&
	test "$(echo "$bf" | sed -n "s/^.Last cycle: *//p")" = "$(value m.txt slurm_bf_cycle_last)"
}

test_expect_success CURL 'sdiag shows the same numbers as the metrics' '
	wait_for 20 sdiag_matches &&
	test "$(value m.txt slurm_sdiag_jobs_submitted)" -ge 6 &&
	grep -q "^slurm_rpc_stats{operation=\"REQUEST_SUBMIT_BATCH_JOB\"} [1-9]" m.txt &&
	grep -q "^slurm_user_rpc_stats{user=\"root\"} [1-9]" m.txt
'

test_expect_success CURL 'sdiag -r resets the sdiag families, not the sluice_*_total counters' '
	sdiag -r >/dev/null &&
	scrape >m.txt &&
	test "$(value m.txt slurm_sdiag_jobs_submitted)" = 0 &&
	test "$(value m.txt sluice_jobs_submitted_total)" -ge 6 &&
	test "$(value m.txt "sluice_jobs_ended_total{state=\"failed\"}")" = 1
'

test_expect_success CURL 'histograms and controller latency families are served' '
	scrape >m.txt &&
	grep -q "^sluice_job_wait_seconds_count{partition=\"defq\"} [1-9]" m.txt &&
	grep -q "^sluice_sched_cycle_seconds_count{kind=\"main\"} [1-9]" m.txt &&
	grep -q "^sluice_state_commit_seconds_count [1-9]" m.txt &&
	grep -q "^sluice_loop_turn_seconds_count [1-9]" m.txt &&
	test "$(value m.txt sluice_connections)" -ge 2
'

test_expect_success CURL 'health endpoints; GET only; unknown paths 404' '
	test "$(curl -s -o /dev/null -w %{http_code} "$(url /livez)")" = 200 &&
	test "$(curl -s -o /dev/null -w %{http_code} "$(url /readyz)")" = 200 &&
	test "$(curl -s -o /dev/null -w %{http_code} "$(url /healthz)")" = 200 &&
	test "$(curl -s -o /dev/null -w %{http_code} -X POST "$(url /metrics)")" = 405 &&
	test "$(curl -s -o /dev/null -w %{http_code} "$(url /metrics/nope)")" = 404 &&
	test "$(curl -s -o /dev/null -w %{http_code} "$(url /nope)")" = 404 &&
	test "$(curl -s -o /dev/null -w %{http_code} -H "Content-Length: 3" --data-binary abc -X GET "$(url /metrics)")" = 413
'

test_expect_success CURL 'scrapes do not stall the loop; the controller still answers' '
	for i in $(seq 1 50); do scrape >/dev/null || return 1; done &&
	scrape >m.txt &&
	test "$(value m.txt sluice_metrics_scrapes_total)" -ge 50 &&
	scontrol ping >/dev/null
'

test_expect_success CURL,NATIVE 'a scrape of this cluster renders in under 50 ms; no loop turn near a second' '
	awk "\$1 == \"sluice_metrics_last_scrape_seconds\" { exit !(\$2 < 0.05) }" m.txt &&
	awk "\$1 == \"sluice_loop_turn_max_seconds\" { exit !(\$2 < 1) }" m.txt
'

test_expect_success CURL 'a changed metrics key is refused by scontrol reconfigure; the port serves on' '
	cp "$SLURM_CONF" conf.saved &&
	sed -i "s/^MetricsPort=.*/MetricsPort=$((MPORT + 1))/" "$SLURM_CONF" &&
	test_must_fail scontrol reconfigure 2>err &&
	grep -q "MetricsPort changed: needs a restart of the controller" err &&
	cp conf.saved "$SLURM_CONF" &&
	scrape /livez >/dev/null
'

test_done
