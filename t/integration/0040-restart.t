#!/bin/bash
test_description='jobs survive restarts of node daemons and of the controller'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The controller runs as a real daemon (no -D) in this script.
export CTLD_DAEMON=1

test_expect_success 'cluster starts' '
	cluster_start 1
'

test_expect_success 'a job outlives kill -9 of its node daemon and completes after restart' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o r1.out --wrap="sleep 3; echo done") &&
	wait_job_state $id RUNNING &&
	wait_for 10 job_launched $id &&
	noded_kill comp001 KILL &&
	noded_start comp001 &&
	wait_job_state $id COMPLETED 30 &&
	echo done >expect && test_cmp expect r1.out
'

test_expect_success 'a job outlives kill -9 of the controller; its completion is recorded' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o r2.out --wrap="sleep 3; echo done; exit 4") &&
	wait_job_state $id RUNNING &&
	wait_for 10 job_launched $id &&
	ctld_kill9 &&
	ctld_start &&
	wait_job_state $id FAILED 30 &&
	test "$(job_field $id ExitCode)" = "4:0" &&
	echo done >expect && test_cmp expect r2.out
'

test_expect_success 'node drain reason survives a controller restart' '
	scontrol update nodename=comp001 state=drain reason="bad gpu" &&
	ctld_kill9 && ctld_start &&
	wait_for 10 test_node_state comp001 drained &&
	sinfo -R -h -o "%E" >out &&
	echo "bad gpu" >expect && test_cmp expect out &&
	scontrol update nodename=comp001 state=resume
'

test_expect_success 'a node weight set by scontrol survives a controller restart' '
	scontrol update nodename=comp001 weight=7 &&
	test "$(scontrol show node comp001 | sed -n "s/.*Weight=\([0-9]*\).*/\1/p")" = 7 &&
	ctld_kill9 && ctld_start &&
	wait_for 10 scontrol ping &&
	test "$(scontrol show node comp001 | sed -n "s/.*Weight=\([0-9]*\).*/\1/p")" = 7 &&
	scontrol update nodename=comp001 weight=1
'

test_done
