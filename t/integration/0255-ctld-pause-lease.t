#!/bin/bash
test_description='a controller paused longer than the node lease: the nodes
stop their jobs (NODE_FAIL), which the controller accepts when it resumes'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# SlurmdTimeout=4: lease 8 s (2 x SlurmdTimeout); the pause is 12 s.
SLURMD_TIMEOUT=4
test_expect_success 'cluster starts (SlurmdTimeout=4)' '
	cluster_start 1
'

test_expect_success 'past the lease the job stops itself and ends NODE_FAIL; the node stays up' '
	cd "$CL/work" &&
	id=$(sbatch --parsable --no-requeue -o lease.out --wrap="sleep 120") &&
	wait_job_state $id RUNNING && wait_for 10 job_launched $id &&
	kill -STOP $CTLD_PID &&
	wait_for 20 grep -q "DUE TO NODE FAILURE" lease.out &&
	kill -CONT $CTLD_PID &&
	wait_job_state $id NODE_FAIL 20 &&
	grep -q "job $id: the controller has not heard from this node for its lease" \
		"$CL"/log/noded-comp001.* &&
	wait_for 10 test_node_state comp001 idle &&
	! cat "$CL"/log/ctld.* | grep -q "not responding"
'

test_done
