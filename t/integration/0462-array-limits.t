#!/bin/bash
test_description='job arrays under accounting limits (issue 19): every task counts against MaxSubmitJobs*/GrpSubmitJobs, an array over a submit limit is refused whole, MaxJobs and GrpTRES hold back tasks as they start, MaxArraySize and max_array_tasks refuse with Slurm'"'"'s message'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

if ! test_have_prereq USERS; then
	skip_all='needs root and the users alice and bob'
	test_done
fi

# 1 node x 8 CPUs. Jobs are submitted as alice and bob from /tmp.
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
sub() { local u=$1; shift; as "$u" sbatch --parsable -D /tmp -o /dev/null "$@"; }
# the tasks of a user in the queue (pending ones one row each)
n_tasks() { test "$(squeue -h -r -u $1 -t PD,R | wc -l)" = $2; }
# array ID has N running tasks
n_running() { test "$(squeue -h -j $1 -t R | wc -l)" = $2; }
# the reason of array ID's pending record
pend_reason() { test "$(squeue -h -j $1 -t PD -o %r)" = "$2"; }
all_gone() { test -z "$(squeue -h -u $1 -t PD,R,CG)"; }
policy() {
	cat >expect <<-EOF
	sbatch: error: $1
	sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)
	EOF
}

test_expect_success 'cluster enforcing limits, max_array_tasks=1000; QOS lim MaxSubmitJobsPerUser=3, bob MaxSubmitJobs=2' '
	cluster_start 1 "AccountingStorageEnforce=associations,limits,qos" \
		"SchedulerParameters=max_array_tasks=1000" &&
	sacctmgr -i add qos lim MaxSubmitJobsPerUser=3 >/dev/null &&
	sacctmgr -i add account lab >/dev/null &&
	sacctmgr -i add user alice account=lab >/dev/null &&
	sacctmgr -i modify user alice set qos+=lim >/dev/null &&
	sacctmgr -i add user bob account=lab MaxSubmitJobs=2 >/dev/null
'

test_expect_success 'QOS MaxSubmitJobsPerUser=3: --array=0-999 is refused whole, as a single job over it is' '
	test_expect_code 1 sub alice -A lab -H --qos=lim --array=0-999 --wrap=true 2>err &&
	policy QOSMaxSubmitJobPerUserLimit &&
	test_cmp expect err &&
	test_expect_code 1 sub alice -A lab -H --qos=lim --array=0-3 --wrap=true 2>err &&
	test_cmp expect err &&
	n_tasks alice 0
'

test_expect_success 'an array of 3 is accepted; then a single job is refused' '
	a=$(sub alice -A lab -H --qos=lim --array=0-2 --wrap="sleep 300") &&
	n_tasks alice 3 &&
	test_expect_code 1 sub alice -A lab -H --qos=lim --wrap=true 2>err &&
	policy QOSMaxSubmitJobPerUserLimit &&
	test_cmp expect err &&
	echo $a >lim_array
'

test_expect_success 'running tasks split off the array are counted once: still refused, accepted once one ends' '
	a=$(cat lim_array) &&
	scontrol release $a &&
	wait_for 30 n_running $a 3 &&
	test_expect_code 1 sub alice -A lab --qos=lim --wrap=true 2>err &&
	test_cmp expect err &&
	scancel ${a}_1 &&
	wait_for 20 n_tasks alice 2 &&
	s=$(sub alice -A lab -H --qos=lim --wrap=true) &&
	test_expect_code 1 sub alice -A lab -H --qos=lim --wrap=true 2>err &&
	test_cmp expect err &&
	scancel $a $s &&
	wait_for 20 all_gone alice
'

test_expect_success 'association MaxSubmitJobs=2: --array=0-999 refused, --array=0-1 accepted, then a single job refused' '
	test_expect_code 1 sub bob -A lab -H --array=0-999 --wrap=true 2>err &&
	policy AssocMaxSubmitJobLimit &&
	test_cmp expect err &&
	b=$(sub bob -A lab -H --array=0-1 --wrap=true) &&
	test_expect_code 1 sub bob -A lab -H --wrap=true 2>err &&
	test_cmp expect err &&
	scancel $b &&
	wait_for 20 all_gone bob
'

test_expect_success 'GrpSubmitJobs=4 on the account counts the tasks of both users' '
	sacctmgr -i modify user bob set MaxSubmitJobs=-1 >/dev/null &&
	sacctmgr -i modify account lab set GrpSubmitJobs=4 >/dev/null &&
	a=$(sub alice -A lab -H --array=0-2 --wrap=true) &&
	test_expect_code 1 sub bob -A lab -H --array=0-1 --wrap=true 2>err &&
	policy AssocGrpSubmitJobsLimit &&
	test_cmp expect err &&
	b=$(sub bob -A lab -H --wrap=true) &&
	scancel $a $b &&
	wait_for 20 all_gone alice && wait_for 20 all_gone bob &&
	sacctmgr -i modify account lab set GrpSubmitJobs=-1 >/dev/null
'

test_expect_success 'MaxJobs=2: two tasks of an array run at once, the rest wait with AssocMaxJobsLimit' '
	sacctmgr -i modify user bob set MaxJobs=2 >/dev/null &&
	b=$(sub bob -A lab --array=0-5 --wrap="sleep 300") &&
	wait_for 30 n_running $b 2 &&
	wait_for 20 pend_reason $b AssocMaxJobsLimit &&
	n_running $b 2 &&
	test "$(squeue -h -r -j $b -t PD | wc -l)" = 4 &&
	scancel ${b}_0 &&
	wait_for 30 sh -c "test \"\$(squeue -h -r -j $b -t PD | wc -l)\" = 3" &&
	wait_for 30 n_running $b 2 &&
	wait_for 20 pend_reason $b AssocMaxJobsLimit &&
	scancel $b &&
	wait_for 20 all_gone bob &&
	sacctmgr -i modify user bob set MaxJobs=-1 >/dev/null
'

test_expect_success 'GrpTRES=cpu=4 on the account: tasks of 2 CPUs start two at a time (AssocGrpCpuLimit)' '
	sacctmgr -i modify account lab set GrpTRES=cpu=4 >/dev/null &&
	b=$(sub bob -A lab -c 2 --array=0-3 --wrap="sleep 300") &&
	wait_for 30 n_running $b 2 &&
	wait_for 20 pend_reason $b AssocGrpCpuLimit &&
	n_running $b 2 &&
	scancel $b &&
	wait_for 20 all_gone bob &&
	sacctmgr -i modify account lab set GrpTRES=cpu=-1 >/dev/null
'

test_expect_success 'MaxArraySize (1001) and max_array_tasks=1000 refuse as Slurm does' '
	echo "sbatch: error: Batch job submission failed: Invalid job array specification" >expect &&
	test_expect_code 1 sub bob -A lab -H --array=1001 --wrap=true 2>err &&
	test_cmp expect err &&
	test_expect_code 1 sub bob -A lab -H --array=0-1000 --wrap=true 2>err &&
	test_cmp expect err &&
	b=$(sub bob -A lab -H --array=1-1000 --wrap=true) &&
	n_tasks bob 1000 &&
	scancel $b
'

test_done
