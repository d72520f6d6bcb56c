#!/bin/bash
test_description='accounting limits end to end: an account tree built with sacctmgr, jobs of two users pending with Slurm'"'"'s limit reasons, submit refusals'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# Jobs of alice and bob: root and the test users (t/setup-users.sh).
if ! test_have_prereq USERS; then
	skip_all='needs root and the users alice and bob'
	test_done
fi

# 2 nodes x 8 CPUs x 8 GPUs. Jobs are submitted as alice and bob from /tmp.
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
sub() { local u=$1; shift; as "$u" sbatch --parsable -D /tmp -o /dev/null "$@"; }

test_expect_success 'cluster enforcing limits; a tree: lab > alice (MaxJobs=1), bob' '
	cluster_start 2 "AccountingStorageEnforce=associations,limits,qos" &&
	sacctmgr -i add account lab >/dev/null &&
	sacctmgr -i add user alice account=lab MaxJobs=1 >/dev/null &&
	sacctmgr -i add user bob account=lab >/dev/null
'

test_expect_success 'MaxJobs: alice'"'"'s second job waits with AssocMaxJobsLimit, bob'"'"'s runs' '
	a1=$(sub alice -A lab --wrap="sleep 300") &&
	a2=$(sub alice -A lab --wrap="sleep 300") &&
	b1=$(sub bob -A lab --wrap="sleep 300") &&
	wait_job_state $a1 RUNNING &&
	wait_job_state $b1 RUNNING &&
	wait_for 10 test_reason $a2 AssocMaxJobsLimit &&
	test "$(squeue -h -j $a2 -o %r)" = AssocMaxJobsLimit &&
	test_job_state $a2 PENDING
'

test_expect_success 'ending the running job lets the waiting one start' '
	scancel $a1 &&
	wait_job_state $a2 RUNNING &&
	scancel $a2 $b1
'

test_expect_success 'GrpTRES=gres/gpu=4 on the account: AssocGrpGRES for bob' '
	sacctmgr -i modify account lab set GrpTRES=gres/gpu=4 >/dev/null &&
	g1=$(sub alice -A lab --gres=gpu:3 --wrap="sleep 300") &&
	wait_job_state $g1 RUNNING &&
	g2=$(sub bob -A lab --gres=gpu:2 --wrap="sleep 300") &&
	wait_for 10 test_reason $g2 AssocGrpGRES &&
	g3=$(sub bob -A lab --gres=gpu:1 --wrap="sleep 300") &&
	wait_job_state $g3 RUNNING &&
	scancel $g1 $g2 $g3 &&
	sacctmgr -i modify account lab set GrpTRES=gres/gpu=-1 >/dev/null
'

test_expect_success 'MaxWall on the account, inherited: AssocMaxWallDurationPerJobLimit' '
	sacctmgr -i modify account lab set MaxWall=10 >/dev/null &&
	w1=$(sub bob -A lab -t 20 --wrap="sleep 300") &&
	wait_for 10 test_reason $w1 AssocMaxWallDurationPerJobLimit &&
	w2=$(sub bob -A lab --wrap="sleep 300") &&
	wait_job_state $w2 RUNNING &&
	test "$(squeue -h -j $w2 -o %l)" = 10:00 &&
	scancel $w1 $w2 &&
	sacctmgr -i modify account lab set MaxWall=-1 >/dev/null
'

test_expect_success 'GrpJobs=1 on the account: AssocGrpJobsLimit' '
	sacctmgr -i modify account lab set GrpJobs=1 >/dev/null &&
	j1=$(sub bob -A lab --wrap="sleep 300") &&
	wait_job_state $j1 RUNNING &&
	j2=$(sub alice -A lab --wrap="sleep 300") &&
	wait_for 10 test_reason $j2 AssocGrpJobsLimit &&
	scancel $j1 $j2 &&
	sacctmgr -i modify account lab set GrpJobs=-1 >/dev/null
'

test_expect_success 'QOS MaxTRESPerUser=gres/gpu=2: QOSMaxGRESPerUser' '
	sacctmgr -i add qos gpu2 MaxTRESPerUser=gres/gpu=2 >/dev/null &&
	sacctmgr -i modify user bob set qos+=gpu2 >/dev/null &&
	q1=$(sub bob -A lab -q gpu2 --gres=gpu:2 --wrap="sleep 300") &&
	wait_job_state $q1 RUNNING &&
	q2=$(sub bob -A lab -q gpu2 --gres=gpu:1 --wrap="sleep 300") &&
	wait_for 10 test_reason $q2 QOSMaxGRESPerUser &&
	scontrol show job $q2 | grep -q "Reason=QOSMaxGRESPerUser" &&
	scancel $q1 $q2
'

test_expect_success 'MaxSubmitJobsPerUser=1: the second submission is refused as Slurm' '
	sacctmgr -i add qos sub1 MaxSubmitJobsPerUser=1 >/dev/null &&
	sacctmgr -i modify user bob set qos+=sub1 >/dev/null &&
	s1=$(sub bob -A lab -q sub1 --wrap="sleep 300") &&
	test_expect_code 1 sub bob -A lab -q sub1 --wrap=true 2>err &&
	cat >expect <<-\EOF &&
	sbatch: error: QOSMaxSubmitJobPerUserLimit
	sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user'"'"'s size and/or time limits)
	EOF
	test_cmp expect err &&
	scancel $s1
'

test_expect_success 'DenyOnLimit: over MaxTRES refused at submit; without it the job pends' '
	sacctmgr -i add qos deny Flags=DenyOnLimit MaxTRES=cpu=2 >/dev/null &&
	sacctmgr -i add qos nodeny MaxTRES=cpu=2 >/dev/null &&
	sacctmgr -i modify user bob set qos+=deny,nodeny >/dev/null &&
	test_expect_code 1 sub bob -A lab -q deny -c 4 --wrap=true 2>err &&
	head -1 err >actual &&
	echo "sbatch: error: QOSMaxCpuPerJobLimit" >expect &&
	test_cmp expect actual &&
	n1=$(sub bob -A lab -q nodeny -c 4 --wrap=true) &&
	wait_for 10 test_reason $n1 QOSMaxCpuPerJobLimit &&
	scancel $n1
'

test_expect_success 'limits are enforced again after a controller restart' '
	sacctmgr -i modify user alice set MaxJobs=0 >/dev/null &&
	r1=$(sub alice -A lab --wrap=true) &&
	wait_for 10 test_reason $r1 AssocMaxJobsLimit &&
	ctld_kill9 && ctld_start &&
	wait_for 20 test_reason $r1 AssocMaxJobsLimit &&
	scancel $r1
'

test_done
