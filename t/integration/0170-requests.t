#!/bin/bash
test_description='odd and forged requests: the controller answers, refuses what a user may not do, and lives on'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

REQ=$SLUICE_BUILD/t/test_ctld_requests

# a low cap, so the waiter test needs few connections
export SLUICE_MAX_JOB_WAITERS=5

test_expect_success 'cluster starts (with a RootOnly and an AllowGroups partition)' '
	cluster_start 1 "PartitionName=rootq Nodes=comp001 RootOnly=YES State=UP" \
		"PartitionName=bobq Nodes=comp001 AllowGroups=bob State=UP"
'

test_expect_success 'every request type with empty, NULL and huge fields (as root)' '
	"$REQ" robust >out 2>&1 || { cat out; false; } &&
	scontrol ping | grep -q "is UP"
'

test_expect_success USERS 'every request type with odd fields (as a user, local socket)' '
	runuser -u alice -- "$REQ" robust >out 2>&1 || { cat out; false; } &&
	scontrol ping | grep -q "is UP"
'

test_expect_success USERS 'a user cannot end her running batch job by a forged completion; step credentials live 120 s' '
	d=$(mktemp -d) && chmod 777 $d &&
	id=$(runuser -u alice -- sbatch --parsable -D $d -o /dev/null --wrap="sleep 60") &&
	wait_job_state $id RUNNING &&
	test "$(runuser -u alice -- "$REQ" complete $id 1)" = 2002 &&
	test "$(runuser -u bob -- "$REQ" complete $id 1)" = 2002 &&
	test_job_state $id RUNNING &&
	ttl=$("$REQ" credttl $id) &&
	test "$ttl" -gt 100 && test "$ttl" -le 121 &&
	scancel $id && wait_job_state $id CANCELLED
'

test_expect_success USERS 'a user cannot turn an admin hold into her own and release it' '
	id=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	scontrol hold $id &&
	test_reason $id JobHeldAdmin &&
	runuser -u alice -- scontrol uhold $id &&   # Slurm 22.05: exit 0, nothing changes
	test_reason $id JobHeldAdmin &&
	test_must_fail runuser -u alice -- scontrol release $id 2>err &&
	test_reason $id JobHeldAdmin &&
	scancel $id
'

test_expect_success USERS 'RootOnly and AllowGroups partitions refuse other users' '
	test_must_fail runuser -u alice -- sbatch -p rootq -H -D /tmp -o /dev/null --wrap=true 2>err &&
	grep -q "Access/permission denied" err &&
	test_must_fail runuser -u alice -- sbatch -p bobq -H -D /tmp -o /dev/null --wrap=true 2>err &&
	grep -q "User.s group not permitted to use this partition" err &&
	id=$(runuser -u bob -- sbatch --parsable -p bobq -H -D /tmp -o /dev/null --wrap=true) &&
	scancel $id &&
	id=$(sbatch --parsable -p rootq -H -D /tmp -o /dev/null --wrap=true) &&
	scancel $id
'

test_expect_success USERS 'a user cannot move her job into a partition she may not use' '
	id=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	test_must_fail runuser -u alice -- scontrol update jobid=$id partition=rootq 2>err &&
	test_must_fail runuser -u alice -- scontrol update jobid=$id partition=bobq 2>err &&
	test "$(job_field $id Partition)" = defq &&
	runuser -u alice -- scontrol update jobid=$id partition=short &&
	test "$(job_field $id Partition)" = short &&
	scancel $id
'

test_expect_success 'a step credential is revoked on the node once its job ends' '
	# the job runs until the test lets it end (no race with a slow machine)
	go=$(mktemp -u /tmp/sluice-go.XXXXXX) &&
	id=$(sbatch --parsable -D /tmp -o /dev/null --wrap="while [ ! -e $go ]; do sleep 0.1; done") &&
	wait_job_state $id RUNNING &&
	"$REQ" stepcred $id cred.a &&
	"$REQ" stepcred $id cred.b &&
	"$REQ" launch cred.a >out && grep -q "^0 " out &&
	touch $go &&
	wait_job_state $id COMPLETED &&
	rm -f $go &&
	"$REQ" launch cred.b >out &&
	echo "4008 Job credential revoked" >expect && test_cmp expect out &&
	test_must_fail "$REQ" stepcred $id cred.c >out &&
	grep -q "already completing" out &&
	id=$(sbatch --parsable -D /tmp -o /dev/null --wrap="sleep 60") &&
	wait_job_state $id RUNNING &&
	"$REQ" stepcred $id cred.a &&
	scancel $id && wait_job_state $id CANCELLED &&
	wait_for 10 test_node_state comp001 idle &&
	"$REQ" launch cred.a >out && test_cmp expect out
'

test_expect_success USERS 'a user cannot hold more than the cap of job waits; root can' '
	id=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	runuser -u alice -- "$REQ" waiters $id 5 >out &&
	echo "5 11 too many waiting requests for uid $(id -u alice) (limit 5)" >expect &&
	test_cmp expect out &&
	"$REQ" waiters $id 5 >out && test_must_be_empty out &&
	scontrol ping | grep -q "is UP" &&
	scancel $id
'

test_done
