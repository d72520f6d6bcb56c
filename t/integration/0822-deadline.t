#!/bin/bash
test_description='--deadline: a job that cannot end by its deadline ends DEADLINE (reason DeadLine), as Slurm 22.05 (captured on realslurm); no time limit: TimeMin 1 minute and the limit fitted at start; held jobs wait for their release; refusals'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

test_expect_success 'bad --deadline and --begin after it: Slurm'"'"'s errors' '
	test_expect_code 255 sbatch --deadline=garbage --wrap=true 2>err &&
	echo "sbatch: error: Invalid --deadline specification" >expect &&
	test_cmp expect err &&
	test_expect_code 1 sbatch --deadline=now+1minute --begin=now+5minutes --wrap=true 2>err &&
	echo "sbatch: error: Incompatible begin and deadline time specification" >expect &&
	test_cmp expect err &&
	test_expect_code 1 sbatch --deadline=now-5 --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)" >expect &&
	test_cmp expect err &&
	test_expect_code 1 srun --deadline=now+1minute --begin=now+5minutes true 2>err &&
	echo "srun: error: Incompatible begin and deadline time specification" >expect &&
	test_cmp expect err
'

test_expect_success 'a time limit past the deadline: DEADLINE at once, DeadLine, ExitCode 0:1' '
	id=$(sbatch --parsable --deadline=now+1minute -t 5 --wrap=true) &&
	wait_job_state $id DEADLINE &&
	scontrol show job $id >show &&
	grep -q "JobState=DEADLINE Reason=DeadLine " show &&
	grep -q "ExitCode=0:1" show &&
	grep -q "TimeLimit=00:05:00 TimeMin=N/A" show &&
	st=$(job_field $id StartTime) && test "$(job_field $id EndTime)" = "$st" &&
	grep -q "Deadline=20" show &&
	test "$(squeue -h -t all -j $id -o "%T %r")" = "DEADLINE DeadLine" &&
	test "$(squeue -h -t DL -o %i)" = "$id"
'

test_expect_success 'within the deadline it runs; no time limit: TimeMin 1 minute, the limit the minutes left' '
	id=$(sbatch --parsable --deadline=now+10minutes -o /dev/null --wrap="sleep 30") &&
	wait_job_state $id RUNNING &&
	grep -q "TimeLimit=00:0[9]:00 TimeMin=00:01:00\|TimeLimit=00:10:00 TimeMin=00:01:00" \
		<(scontrol show job $id) &&
	scancel $id &&
	id=$(sbatch --parsable --deadline=now+10minutes -t 20 --wrap=true) &&
	wait_job_state $id DEADLINE
'

test_expect_success 'a pending job passing its deadline ends DEADLINE; a held one waits for its release' '
	b=$(sbatch --parsable --exclusive -o /dev/null --wrap="sleep 60") &&
	wait_job_state $b RUNNING &&
	p=$(sbatch --parsable --deadline=now+70seconds -t 1 --wrap=true) &&
	h=$(sbatch --parsable -H --deadline=now+3seconds -t 1 --wrap=true) &&
	wait_for 10 test_reason $p Resources &&
	wait_for 30 test_job_state $p DEADLINE &&
	test_job_state $h PENDING &&
	test_reason $h JobHeldUser &&
	scontrol release $h &&
	wait_job_state $h DEADLINE &&
	scancel $b
'

test_expect_success 'the DEADLINE state survives a controller restart' '
	ctld_kill9 && ctld_start &&
	test_job_state $h DEADLINE &&
	test_reason $h DeadLine
'

test_done
