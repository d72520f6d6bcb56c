#!/bin/bash
test_description='a job supervisor killed with SIGKILL: noded kills what is left
of its job and reports it ended (NODE_FAIL); no phantom job, no node left
COMPLETING'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

# sup_pid ID [STEP]: the supervisor's pid from its spool record.
sup_pid() { sed -n "s/^pid=//p" "$CL/spool/comp001/${2:+step$1.$2}${2:-job$1}/state"; }
# task_pgid PID: the process group of the (first) task a supervisor
# started (each task leads its own session).
task_pgid() { pgrep -o -P "$1"; }

test_expect_success 'kill -9 of a batch supervisor: the job processes die, the job ends NODE_FAIL' '
	id=$(sbatch --parsable -o /dev/null --wrap="(sleep 1000 &); sleep 1000; echo never") &&
	wait_job_state $id RUNNING && wait_for 10 job_launched $id &&
	sp=$(sup_pid $id) && test -n "$sp" &&
	wait_for 10 task_pgid $sp && pg=$(task_pgid $sp) &&
	wait_for 10 sh -c "test \$(ps -o pid= -s $pg | wc -l) -ge 3" &&
	kill -9 $sp &&
	wait_for 10 sh -c "! ps -e -o sid=,pgid= | awk -v s=$pg \"\\\$1 == s || \\\$2 == s { f = 1 } END { exit !f }\"" &&
	wait_job_state $id NODE_FAIL 15 &&
	test "$(job_field $id Reason)" = NodeDown &&
	wait_for 10 test_node_state comp001 idle &&
	! test -e "$CL/spool/comp001/job$id" &&
	grep -q "job $id: its supervisor (pid $sp) died; killed 1 process group left" "$CL"/log/noded-comp001.*
'

test_expect_success 'a cancel of such a job leaves no node COMPLETING' '
	id=$(sbatch --parsable -o /dev/null --wrap="sleep 1000; echo never") &&
	wait_job_state $id RUNNING && wait_for 10 job_launched $id &&
	sp=$(sup_pid $id) && test -n "$sp" &&
	wait_for 10 task_pgid $sp && pg=$(task_pgid $sp) &&
	kill -9 $sp && scancel $id &&
	wait_for 10 sh -c "! ps -o pid= -s $pg | grep -q ." &&
	wait_for 10 test_node_state comp001 idle &&
	st=$(job_state $id) && { test "$st" = CANCELLED || test "$st" = NODE_FAIL; }
'

test_expect_success 'kill -9 of a step supervisor: its tasks die, srun is told' '
	cd "$CL/work" &&
	{ srun -w comp001 sleep 1000 >srun.out 2>srun.err & } &&
	srun_pid=$! &&
	wait_for 15 sh -c "ls \"$CL\"/spool/comp001/step*.0/state 2>/dev/null | grep -q ." &&
	dir=$(ls -d "$CL"/spool/comp001/step*.0 | head -1) &&
	sp=$(sed -n "s/^pid=//p" "$dir/state") && test -n "$sp" &&
	wait_for 10 task_pgid $sp && pg=$(task_pgid $sp) &&
	kill -9 $sp &&
	wait_for 10 sh -c "! ps -o pid= -s $pg | grep -q ." &&
	wait_for 15 sh -c "! kill -0 $srun_pid 2>/dev/null" &&
	{ wait $srun_pid; rc=$?; true; } &&
	echo "srun rc=$rc" && test "$rc" != 0 &&
	wait_for 10 sh -c "! test -e \"$dir\""
'

test_done
