#!/bin/bash
test_description='privilege through options: negative nice, moving a job between partitions'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts (EnforcePartLimits, exclusive, small and drained partitions)' '
	cluster_start 2 "EnforcePartLimits=ALL" \
		"PartitionName=excl Nodes=comp[001-002] OverSubscribe=EXCLUSIVE State=UP" \
		"PartitionName=euser Nodes=comp[001-002] ExclusiveUser=YES State=UP" \
		"PartitionName=tiny Nodes=comp[001-002] MaxTime=5 MaxNodes=1 State=UP" \
		"PartitionName=bobq Nodes=comp001 AllowGroups=bob State=UP" \
		"PartitionName=drained Nodes=comp001 State=DRAIN"
'

hold() { runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null "$@" --wrap=true; }

test_expect_success USERS 'a user cannot submit with a negative nice; an operator can' '
	test_must_fail runuser -u alice -- sbatch -H -D /tmp -o /dev/null --nice=-100 --wrap=true 2>err &&
	grep -q "Access/permission denied" err &&
	test "$(squeue -h -u alice | wc -l)" = 0 &&
	id=$(sbatch --parsable -H -D /tmp -o /dev/null --nice=-100 --wrap=true) &&
	test "$(squeue -h -j $id -o %y)" = -100 &&
	scancel $id &&
	id=$(hold --nice=10) &&
	test "$(squeue -h -j $id -o %y)" = 10 &&
	scancel $id
'

test_expect_success USERS 'a user sets any nice from 0 up on her job, never a negative one; an operator can' '
	id=$(hold --nice=10) &&
	test_must_fail runuser -u alice -- scontrol update jobid=$id nice=-5 2>err &&
	grep -q "Access/permission denied" err &&
	test "$(squeue -h -j $id -o %y)" = 10 &&
	runuser -u alice -- scontrol update jobid=$id nice=20 &&
	test "$(squeue -h -j $id -o %y)" = 20 &&
	runuser -u alice -- scontrol update jobid=$id nice=0 &&
	test "$(squeue -h -j $id -o %y)" = 0 &&
	scontrol update jobid=$id nice=-5 &&
	test "$(squeue -h -j $id -o %y)" = -5 &&
	scancel $id
'

# refused_like PART ARGS: submitting with ARGS to PART fails, and moving a
# held job with ARGS there fails with the same error; the job stays put.
refused_like() {
	local part=$1 id; shift
	test_must_fail runuser -u alice -- sbatch -p $part -H -D /tmp -o /dev/null "$@" --wrap=true 2>submit.err &&
	id=$(hold "$@") &&
	test_must_fail runuser -u alice -- scontrol update jobid=$id partition=$part 2>move.err &&
	cat submit.err move.err &&
	sed -n "s/.*error: .*: //p; s/.*error: //p" submit.err | tail -1 >submit.why &&
	test -s submit.why &&
	grep -qF "$(cat submit.why)" move.err &&
	test "$(job_field $id Partition)" = defq &&
	scancel $id
}

test_expect_success USERS 'a move beyond the partition MaxTime is refused as a submission is' '
	refused_like tiny -t 30
'

test_expect_success USERS 'a move beyond the partition MaxNodes is refused as a submission is' '
	refused_like tiny -N 2 -t 3
'

test_expect_success USERS 'a move into a partition the user may not use is refused as a submission is' '
	refused_like bobq
'

test_expect_success USERS 'a move into a drained partition is refused as a submission is' '
	refused_like drained
'

test_expect_success USERS 'a job that fits may move; its limits are checked against the new partition' '
	id=$(hold -t 3) &&
	runuser -u alice -- scontrol update jobid=$id partition=tiny &&
	test "$(job_field $id Partition)" = tiny &&
	scancel $id
'

test_expect_success USERS 'a move into an EXCLUSIVE partition makes the job exclusive, as a submission there' '
	direct=$(runuser -u alice -- sbatch --parsable -p excl -H -D /tmp -o /dev/null --wrap=true) &&
	id=$(hold) &&
	test "$(job_field $id OverSubscribe)" != "$(job_field $direct OverSubscribe)" &&
	runuser -u alice -- scontrol update jobid=$id partition=excl &&
	test "$(job_field $id OverSubscribe)" = "$(job_field $direct OverSubscribe)" &&
	scontrol release $id &&
	wait_job_state $id COMPLETED &&
	scancel $direct
'

test_expect_success USERS 'a move into an ExclusiveUser partition makes the job user-exclusive' '
	direct=$(runuser -u alice -- sbatch --parsable -p euser -H -D /tmp -o /dev/null --wrap=true) &&
	id=$(hold) &&
	runuser -u alice -- scontrol update jobid=$id partition=euser &&
	test "$(job_field $id OverSubscribe)" = "$(job_field $direct OverSubscribe)" &&
	scancel $id $direct
'

test_expect_success USERS 'the policy a move gave survives a controller restart' '
	id=$(hold) &&
	runuser -u alice -- scontrol update jobid=$id partition=excl &&
	before=$(job_field $id OverSubscribe) &&
	ctld_kill9 && ctld_start &&
	test "$(job_field $id OverSubscribe)" = "$before" &&
	scancel $id
'

test_done
