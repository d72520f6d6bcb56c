#!/bin/bash
test_description='job dependencies: every type, +time, any-of and all-of,
the Dependency text and reasons as Slurm 22.05 shows them, --kill-on-invalid-dep,
scontrol update Dependency=, and singleton as a workflow barrier'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

dep_of() { job_field "$1" Dependency; }

test_expect_success 'afterok/afterany/afternotok and any-of: reasons and text' '
	cd "$CL/work" &&
	ok=$(sbatch --parsable -o /dev/null --wrap="sleep 2") &&
	bad=$(sbatch --parsable -o /dev/null --wrap="sleep 2; false") &&
	a=$(sbatch --parsable -o /dev/null -d afterok:$ok --wrap=true) &&
	b=$(sbatch --parsable -o /dev/null -d afterok:$bad --wrap=true) &&
	c=$(sbatch --parsable -o /dev/null -d "afterok:$bad?afterany:$ok" --wrap=true) &&
	d=$(sbatch --parsable -o /dev/null -d "afternotok:$bad,afterok:$ok" --wrap=true) &&
	e=$(sbatch --parsable -o /dev/null -d afternotok:$ok --wrap=true) &&
	echo "$ok $bad $a $b $c $d $e" >ids &&
	test "$(dep_of $c)" = "afterok:$bad(unfulfilled)?afterany:$ok(unfulfilled)" &&
	test "$(dep_of $d)" = "afternotok:$bad(unfulfilled),afterok:$ok(unfulfilled)" &&
	wait_job_state $a COMPLETED 30 &&
	wait_job_state $c COMPLETED 30 &&
	wait_job_state $d COMPLETED 30 &&
	wait_for 10 test_reason $b DependencyNeverSatisfied &&
	test "$(dep_of $b)" = "afterok:$bad(failed)" &&
	wait_for 10 test_reason $e DependencyNeverSatisfied &&
	test "$(dep_of $e)" = "afternotok:$ok(failed)" &&
	test "$(dep_of $a)" = "(null)" &&
	squeue -h -j $b -o "%E %r" >out &&
	echo "afterok:$bad(failed) DependencyNeverSatisfied" >expect && test_cmp expect out &&
	test_job_state $b PENDING && scancel $b $e
'

test_expect_success 'after: waits for the start; after+1 for one minute after it' '
	cd "$CL/work" &&
	r=$(sbatch --parsable -o /dev/null --begin=now+3 --wrap="sleep 100") &&
	a=$(sbatch --parsable -o /dev/null -d after:$r --wrap=true) &&
	t=$(sbatch --parsable -o /dev/null -d after:$r+1 --wrap=true) &&
	wait_for 10 test_reason $a Dependency &&
	test "$(dep_of $t)" = "after:$r+1(unfulfilled)" &&
	wait_job_state $r RUNNING 20 &&
	wait_job_state $a COMPLETED 20 &&
	test_job_state $t PENDING &&
	test_reason $t Dependency &&
	echo "$r $t" >after_ids
'

test_expect_success 'syntax errors are refused as Slurm refuses them' '
	for d in afterok afterok: afterok:abc afterok:0 after:1+0 after:1+x bogus:1 "afterok:1,"; do
		test_expect_code 1 sbatch -o /dev/null -d "$d" --wrap=true 2>err &&
		echo "sbatch: error: Batch job submission failed: Job dependency problem" >expect &&
		test_cmp expect err || return 1
	done &&
	test_expect_code 1 sbatch -o /dev/null -d expand:1 --wrap=true 2>err &&
	grep -q "Requested operation not supported on this system" err &&
	test_expect_code 255 sbatch -o /dev/null --kill-on-invalid-dep=maybe --wrap=true 2>err &&
	echo "sbatch: error: Invalid --kill-on-invalid-dep specification" >expect &&
	test_cmp expect err &&
	j=$(sbatch --parsable -o /dev/null -d afterok:999999 --wrap=true) &&
	wait_job_state $j COMPLETED 20
'

test_expect_success '--kill-on-invalid-dep=yes cancels a job that can never run' '
	cd "$CL/work" && read ok bad rest <ids &&
	k=$(sbatch --parsable -o /dev/null --kill-on-invalid-dep=yes -d afterok:$bad --wrap=true) &&
	wait_job_state $k CANCELLED 20 &&
	test "$(job_field $k Reason)" = DependencyNeverSatisfied &&
	test "$(dep_of $k)" = "afterok:$bad(failed)" &&
	scontrol show job $k | grep -qx "   KillOInInvalidDependent=Yes" &&
	n=$(sbatch --parsable -o /dev/null --kill-on-invalid-dep=no -d afterok:$bad --wrap=true) &&
	wait_for 10 test_reason $n DependencyNeverSatisfied &&
	scontrol show job $n | grep -qx "   KillOInInvalidDependent=No" &&
	scancel $n
'

test_expect_success USERS 'scontrol update Dependency=: set, clear, refusals' '
	cd "$CL/work" &&
	h=$(sbatch --parsable -o /dev/null -H --wrap="sleep 100") &&
	j=$(sbatch --parsable -o /dev/null -d afterany:$h --wrap=true) &&
	scontrol update jobid=$j Dependency=afterok:$h+2 &&
	test "$(dep_of $j)" = "afterok:$h+2(unfulfilled)" &&
	test_expect_code 1 scontrol update jobid=$j Dependency=afterok:abc 2>err &&
	echo "Job dependency problem for job $j" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update jobid=$j Dependency=afterok:$j 2>err &&
	test_cmp expect err &&
	test "$(dep_of $j)" = "afterok:$h+2(unfulfilled)" &&
	scontrol update jobid=$j Dependency= &&
	test "$(dep_of $j)" = "(null)" &&
	wait_job_state $j COMPLETED 20 &&
	read r t <after_ids &&
	test_expect_code 1 scontrol update jobid=$r Dependency=afterok:$h 2>err &&
	echo "Job is no longer pending execution for job $r" >expect && test_cmp expect err &&
	runuser -u alice -- sh -c "scontrol update jobid=$h Dependency=afterok:1" 2>err;
	test $? = 1 && grep -q "for job $h" err &&
	scancel $h
'

test_expect_success USERS 'singleton by name and user: a workflow barrier' '
	cd "$CL/work" &&
	s1=$(sbatch --parsable -J wave -o /dev/null -d singleton --wrap="sleep 2") &&
	s2=$(sbatch --parsable -J wave -o /dev/null -d singleton --wrap="sleep 2") &&
	s3=$(sbatch --parsable -J wave -o /dev/null -d singleton --wrap="sleep 2") &&
	o=$(sbatch --parsable -J other -o /dev/null -d singleton --wrap="sleep 2") &&
	a=$(runuser -u alice -- sbatch --parsable -J wave -D /tmp -o /dev/null -d singleton --wrap="sleep 2") &&
	wait_job_state $s1 RUNNING 20 &&
	wait_job_state $o RUNNING 20 &&
	wait_job_state $a RUNNING 20 &&
	test_reason $s2 Dependency && test_reason $s3 Dependency &&
	test "$(dep_of $s3)" = "singleton(unfulfilled)" &&
	# poll as a workflow engine does: never two of the wave at once
	for i in $(seq 1 60); do
		n=$(squeue -h -u root -n wave -t R | wc -l) &&
		test "$n" -le 1 || return 1
		test_job_state $s3 COMPLETED && break
		sleep 0.5
	done &&
	test_job_state $s3 COMPLETED &&
	s1e=$(date -d "$(job_field $s1 EndTime)" +%s) &&
	s2s=$(date -d "$(job_field $s2 StartTime)" +%s) &&
	s2e=$(date -d "$(job_field $s2 EndTime)" +%s) &&
	s3s=$(date -d "$(job_field $s3 StartTime)" +%s) &&
	test $s2s -ge $s1e && test $s3s -ge $s2e
'

test_expect_success 'after+1 starts once the minute has passed' '
	cd "$CL/work" && read r t <after_ids &&
	wait_job_state $t COMPLETED 90 &&
	rs=$(date -d "$(job_field $r StartTime)" +%s) &&
	ts=$(date -d "$(job_field $t StartTime)" +%s) &&
	test $((ts - rs)) -ge 60 &&
	scancel $r
'

test_expect_success 'a dependency survives a controller restart' '
	cd "$CL/work" && read ok bad rest <ids &&
	h=$(sbatch --parsable -o /dev/null -H --wrap=true) &&
	j=$(sbatch --parsable -o /dev/null -d "afterok:$h?afterok:$bad" --wrap=true) &&
	wait_for 10 test_reason $j Dependency &&
	ctld_kill9 && ctld_start &&
	wait_for 10 test_reason $j Dependency &&
	test "$(dep_of $j)" = "afterok:$h(unfulfilled)?afterok:$bad(failed)" &&
	scontrol release $h &&
	wait_job_state $j COMPLETED 30
'

test_done
