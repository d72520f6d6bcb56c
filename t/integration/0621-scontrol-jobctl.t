#!/bin/bash
test_description='scontrol job control: hold/uhold/release, requeue/requeuehold,
top, suspend/resume and the keys of update jobid=, with Slurm 22.05 permission
rules, messages and exit codes'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

as_alice() { runuser -u alice -- "$@"; }

test_expect_success USERS 'hold, uhold, release: reasons, a running job, other users' '
	cd /tmp &&
	a=$(as_alice sbatch --parsable -o /dev/null -t 10 --begin=now+1hour --wrap=true) &&
	r=$(sbatch --parsable -o /dev/null -t 10 --wrap="sleep 100") &&
	wait_job_state $r RUNNING &&
	scontrol hold $r && test_job_state $r RUNNING &&
	scontrol release $r && test_job_state $r RUNNING &&
	scontrol hold $a && test_reason $a JobHeldAdmin &&
	test "$(job_field $a Priority)" = 0 &&
	test_expect_code 1 as_alice scontrol release $a 2>err &&
	printf "%s\n" "Access/permission denied for job $a" \
		"slurm_suspend error: Access/permission denied" >expect &&
	test_cmp expect err &&
	scontrol release $a && as_alice scontrol uhold $a && test_reason $a JobHeldUser &&
	as_alice scontrol release $a &&
	test_expect_code 1 as_alice scontrol hold $r 2>err &&
	printf "%s\n" "Invalid user id for job $r" "slurm_suspend error: Invalid user id" >expect &&
	test_cmp expect err &&
	test_expect_code 1 scontrol hold 999999 2>err &&
	printf "%s\n" "Invalid job id specified for job 999999" \
		"slurm_suspend error: Invalid job id specified" >expect &&
	test_cmp expect err &&
	echo "$a $r" >"$TRASH_DIRECTORY/ids"
'

test_expect_success USERS 'update: permission rules (time limit, nice, priority, stranger)' '
	cd /tmp && read a r <"$TRASH_DIRECTORY/ids" &&
	as_alice scontrol update jobid=$a TimeLimit=20 &&
	test "$(job_field $a TimeLimit)" = 00:20:00 &&
	as_alice scontrol update jobid=$a TimeLimit=5 &&
	test_expect_code 1 as_alice scontrol update jobid=$a Nice=-5 2>err &&
	echo "Access/permission denied for job $a" >expect && test_cmp expect err &&
	test_expect_code 1 as_alice scontrol update jobid=$a Priority=5 2>err &&
	test_cmp expect err &&
	test_expect_code 1 as_alice scontrol update jobid=$r TimeLimit=5 2>err &&
	echo "Invalid user id for job $r" >expect && test_cmp expect err &&
	test_expect_code 1 as_alice scontrol update jobid=$r TimeLimit=5 2>err &&
	scontrol update jobid=$r TimeLimit=20 &&
	test "$(job_field $r TimeLimit)" = 00:20:00
'

test_expect_success 'update: pending-only keys on a pending job' '
	cd /tmp && read a r <"$TRASH_DIRECTORY/ids" &&
	scontrol update jobid=$a NumNodes=2 NumTasks=4 MinMemoryCPU=200 &&
	test "$(job_field $a NumNodes)" = 2-2 &&
	test "$(job_field $a NumTasks)" = 4 &&
	test "$(job_field $a MinMemoryCPU)" = 200M &&
	scontrol update jobid=$a NumNodes=1 NumTasks=1 MinMemoryNode=100 &&
	test "$(job_field $a MinMemoryNode)" = 100M &&
	scontrol update jobid=$a ExcNodeList=comp002 &&
	test "$(job_field $a ExcNodeList)" = comp002 &&
	scontrol update jobid=$a ExcNodeList= ReqNodeList=comp001 &&
	test "$(job_field $a ReqNodeList)" = comp001 &&
	scontrol update jobid=$a ReqNodeList= &&
	test "$(job_field $a ReqNodeList)" = "(null)" &&
	scontrol update jobid=$a StartTime=2030-01-01T00:00:00 &&
	test "$(job_field $a EligibleTime)" = 2030-01-01T00:00:00 &&
	scontrol update jobid=$a Requeue=0 && test "$(job_field $a Requeue)" = 0 &&
	scontrol update jobid=$a Requeue=1 && test "$(job_field $a Requeue)" = 1 &&
	scontrol update jobid=$a Partition=short && test "$(job_field $a Partition)" = short
'

test_expect_success 'update: Slurm errors and exit codes' '
	cd /tmp && read a r <"$TRASH_DIRECTORY/ids" &&
	test_expect_code 1 scontrol update jobid=$a Features=nosuchfeature 2>err &&
	echo "Invalid feature specification for job $a" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a ExcNodeList=nosuch 2>err &&
	echo "Invalid node name specified for job $a" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a Gres=bogus:1 2>err &&
	echo "Invalid generic resource (gres) specification for job $a" >expect &&
	test_cmp expect err &&
	for kv in NumTasks=2 MinMemoryNode=100 Features=x ExcNodeList=comp001 Gres=gpu:1 \
		  StartTime=now+1hour Partition=short Dependency=afterok:1; do
		test_expect_code 1 scontrol update jobid=$r $kv 2>err &&
		echo "Job is no longer pending execution for job $r" >expect &&
		test_cmp expect err || return 1
	done &&
	test_expect_code 1 scontrol update jobid=$r NumNodes=2 2>err &&
	echo "Requested operation not supported on this system for job $r" >expect &&
	test_cmp expect err &&
	scontrol update jobid=$r Requeue=0 && scontrol update jobid=$r Requeue=1 &&
	test_expect_code 1 scontrol update jobid=$a Bogus=1 2>err &&
	printf "%s\n" "Update of this parameter is not supported: Bogus=1" "Request aborted" >expect &&
	test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a NumTasks=x 2>err &&
	echo "scontrol: error: Invalid NumTasks value: x" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a MinMemoryNode=2G 2>err &&
	echo "scontrol: error: Invalid MinMemoryNode value: 2G" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a Requeue=x 2>err &&
	echo "scontrol: error: Invalid Requeue value: x" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a StartTime=garbage 2>err &&
	printf "%s\n" "Invalid time specification (pos=0): garbage" "No changes specified" >expect &&
	test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$a TimeLimit=abc 2>err &&
	echo "scontrol: error: Invalid TimeLimit value" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=999999 TimeLimit=5 2>err &&
	echo "Invalid job id specified for job 999999" >expect && test_cmp expect err
'

test_expect_success USERS 'requeue and requeuehold' '
	cd "$CL/work" && read a r <"$TRASH_DIRECTORY/ids" &&
	test_expect_code 1 scontrol requeue $a 2>err &&
	echo "Job is pending execution for job $a" >expect && test_cmp expect err &&
	n=$(sbatch --parsable --no-requeue -o /dev/null --wrap="sleep 100") &&
	wait_job_state $n RUNNING &&
	test_expect_code 1 scontrol requeue $n 2>err &&
	echo "Requested operation is presently disabled for job $n" >expect && test_cmp expect err &&
	test_expect_code 1 as_alice scontrol requeue $r 2>err &&
	echo "Access/permission denied for job $r" >expect && test_cmp expect err &&
	scontrol requeuehold $r &&
	wait_job_state $r PENDING &&
	test "$(job_field $r Reason)" = job_requeued_in_held_state &&
	test "$(job_field $r Restarts)" = 1 &&
	squeue -h -j $r -o "%r" >out && echo "job requeued in held state" >expect && test_cmp expect out &&
	scontrol release $r &&
	wait_job_state $r RUNNING 30 &&
	c=$(sbatch --parsable -o /dev/null --wrap=true) &&
	wait_job_state $c COMPLETED &&
	wait_for 10 sh -c "scontrol requeue $c" &&
	test "$(job_field $c Restarts)" = 1 &&
	wait_job_state $c COMPLETED 30 &&
	scancel $n
'

test_expect_success USERS 'top: a job moves ahead of its owner'"'"'s others; operators only' '
	cd /tmp &&
	j1=$(as_alice sbatch --parsable -o /dev/null -t 10 --begin=now+1hour --wrap=true) &&
	j2=$(as_alice sbatch --parsable -o /dev/null -t 10 --begin=now+1hour --wrap=true) &&
	j3=$(as_alice sbatch --parsable -o /dev/null -t 10 --begin=now+1hour --wrap=true) &&
	test_expect_code 1 as_alice scontrol top $j3 2>err &&
	echo "Access/permission denied for job $j3" >expect && test_cmp expect err &&
	scontrol top $j3 &&
	p1=$(job_field $j1 Priority) && p2=$(job_field $j2 Priority) && p3=$(job_field $j3 Priority) &&
	test $p3 -gt $p1 && test $p3 -gt $p2 &&
	test "$(job_field $j1 Nice)" -gt 0 &&
	scontrol top $j1,$j2 &&
	p1=$(job_field $j1 Priority) && p2=$(job_field $j2 Priority) && p3=$(job_field $j3 Priority) &&
	test $p1 -gt $p2 && test $p2 -gt $p3 &&
	scancel $j1 $j2 $j3
'

test_expect_success USERS 'suspend and resume stop and continue the job; the limit waits' '
	cd "$CL/work" && read a r <"$TRASH_DIRECTORY/ids" &&
	s=$(sbatch --parsable -o /dev/null -t 10 --wrap="while :; do date +%s >>$CL/work/tick; sleep 0.2; done") &&
	wait_job_state $s RUNNING && wait_for 10 test -s tick &&
	test_expect_code 1 as_alice scontrol suspend $s 2>err &&
	echo "Access/permission denied for job $s" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol resume $s 2>err &&
	echo "Job is not suspended for job $s" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol suspend $a 2>err &&
	echo "Job is pending execution for job $a" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol suspend 999999 2>err &&
	echo "Unexpected message received for job 999999" >expect && test_cmp expect err &&
	end0=$(job_field $s EndTime) &&
	scontrol suspend $s && test_job_state $s SUSPENDED &&
	squeue -h -j $s -o %t >out && echo S >expect && test_cmp expect out &&
	sleep 1 && n1=$(wc -l <tick) && sleep 2 && n2=$(wc -l <tick) &&
	test "$n1" = "$n2" &&
	test "$(job_field $s EndTime)" = "$end0" &&
	rt=$(job_field $s RunTime) && sleep 1 && test "$(job_field $s RunTime)" = "$rt" &&
	scontrol suspend $s &&
	scontrol resume $s && test_job_state $s RUNNING &&
	wait_for 10 sh -c "test \$(wc -l <tick) -gt $n2" &&
	e0=$(date -d "$end0" +%s) && e1=$(date -d "$(job_field $s EndTime)" +%s) &&
	test $((e1 - e0)) -ge 3 &&
	scancel $s && scancel $a
'

test_expect_success USERS 'write batch_script: to a file, to stdout, refusals' '
	cd "$CL/work" &&
	j=$(sbatch --parsable -H -o /dev/null --wrap="echo hi") &&
	scontrol write batch_script $j >out &&
	echo "batch script for job $j written to slurm-$j.sh" >expect && test_cmp expect out &&
	printf "#!/bin/sh\n# This script was created by sbatch --wrap.\n\necho hi\n" >script &&
	test_cmp script slurm-$j.sh &&
	scontrol write batch_script $j - >out && test_cmp script out &&
	scontrol write batch_script $j my.sh && test_cmp script my.sh &&
	runuser -u alice -- scontrol write batch_script $j - >out 2>err &&
	echo "job script retrieval failed: Invalid user id" >expect && test_cmp expect err &&
	! test -s out &&
	test_expect_code 1 scontrol write bogus $j 2>err &&
	echo "invalid write argument:bogus" >expect && test_cmp expect err &&
	scancel $j
'

test_expect_success USERS 'notify: a line in the batch job'"'"'s stderr' '
	cd "$CL/work" &&
	j=$(sbatch --parsable -o notify.out --wrap="sleep 100") &&
	wait_job_state $j RUNNING && wait_for 10 job_launched $j &&
	scontrol notify $j hello there &&
	wait_for 10 grep -q "^slurmstepd-comp00[12]: error: hello there$" notify.out &&
	test_expect_code 1 scontrol notify $j 2>err &&
	echo "too few arguments for keyword:notify" >expect && test_cmp expect err &&
	test_expect_code 1 runuser -u alice -- scontrol notify $j hi 2>err &&
	echo "job notify failure: Invalid user id" >expect && test_cmp expect err &&
	p=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	test_expect_code 1 scontrol notify $p hi 2>err &&
	echo "job notify failure: Requested operation is presently disabled" >expect &&
	test_cmp expect err &&
	scancel $j $p
'

test_done
