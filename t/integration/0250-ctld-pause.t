#!/bin/bash
test_description='node liveness: a paused controller downs no node; a paused
node daemon is declared DOWN after a ping it does not answer, and returns to
service on its own connection (ReturnToService=2)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# SlurmdTimeout=8: the node lease is 16 s (2 x SlurmdTimeout), so a 10 s
# pause of the controller is longer than SlurmdTimeout but well within the lease.
SLURMD_TIMEOUT=8
test_expect_success 'cluster starts (SlurmdTimeout=8, ReturnToService=2)' '
	cluster_start 2 &&
	grep -q "^ReturnToService=2$" "$SLURM_CONF"
'

down_or_noresp() { sinfo -h -N -o "%N %t" | grep -E "down|drain|\*|fail"; }
ctld_log() { cat "$CL"/log/ctld.*; }

test_expect_success 'a controller stopped longer than SlurmdTimeout downs no node and kills no job' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -w comp001 -o pause.out --wrap="sleep 20; echo done") &&
	wait_job_state $id RUNNING && wait_for 10 job_launched $id &&
	kill -STOP $CTLD_PID &&
	sleep 10 &&
	kill -CONT $CTLD_PID &&
	wait_for 10 scontrol ping &&
	# watch for a while after the resume: the timeouts are judged now
	end=$(( $(date +%s) + 5 )) &&
	while [ "$(date +%s)" -lt $end ]; do
		! down_or_noresp || { sinfo -N; return 1; }
		test_job_state $id RUNNING || { scontrol show job $id; return 1; }
		sleep 0.5
	done &&
	wait_job_state $id COMPLETED 40 &&
	test "$(job_field $id Restarts)" = 0 &&
	echo done >expect && test_cmp expect pause.out &&
	! ctld_log | grep -q "not responding" &&
	ctld_log | grep -q "the controller did not run for about"
'

test_expect_success 'a stopped node daemon, answering no ping, is declared DOWN (Not responding)' '
	regs=$(ctld_log | grep -c "node comp002 registered") &&
	pid=$(cat "$CL/noded-comp002.pid") &&
	kill -STOP $pid &&
	wait_for 30 test_node_state comp002 "down*" &&
	scontrol show node comp002 | grep -q "Reason=Not responding" &&
	test_node_state comp001 idle &&
	kill -CONT $pid &&
	echo $regs >regs
'

test_expect_success 'heard from again on its connection, it returns to service (ReturnToService=2)' '
	wait_for 20 test_node_state comp002 idle &&
	! scontrol show node comp002 | grep -q Reason= &&
	ctld_log | grep -q "node comp002: heard from again on its connection" &&
	# no new registration: the connection never dropped
	test "$(ctld_log | grep -c "node comp002 registered")" = "$(cat regs)" &&
	srun -w comp002 hostname >/dev/null
'

test_done
