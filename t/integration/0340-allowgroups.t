#!/bin/bash
test_description='AllowGroups: members resolved off the controller loop, refreshed by reconfigure'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# A group of our own (bob in it, alice not), removed at the end.
GRP=sluicet$$
test_have_prereq USERS && command -v groupadd >/dev/null && command -v gpasswd >/dev/null &&
	test_set_prereq GROUPS

submit_grpq() { # USER: a held job in grpq as USER
	runuser -u "$1" -- sbatch --parsable -p grpq -H -D /tmp -o /dev/null --wrap=true
}
submit_grpq_id() { submit_grpq "$1" >id; }   # for wait_for, which hides stdout

test_expect_success GROUPS 'cluster starts with an AllowGroups partition' '
	groupadd "$GRP" &&
	gpasswd -a bob "$GRP" >/dev/null &&
	cluster_start 1 "PartitionName=grpq Nodes=comp001 AllowGroups=$GRP State=UP"
'

test_expect_success GROUPS 'a member may submit, a non-member is refused with Slurm'"'"'s error' '
	id=$(submit_grpq bob) &&
	scancel $id &&
	test_must_fail submit_grpq alice 2>err &&
	grep -q "User.s group not permitted to use this partition" err
'

test_expect_success GROUPS 'the primary group counts (from the credential)' '
	id=$(runuser -u alice -g "$GRP" -- sbatch --parsable -p grpq -H -D /tmp -o /dev/null --wrap=true) &&
	scancel $id
'

test_expect_success GROUPS 'a new membership is not looked up at submission, but seen after scontrol reconfigure' '
	gpasswd -a alice "$GRP" >/dev/null &&
	test_must_fail submit_grpq alice 2>err &&
	grep -q "User.s group not permitted" err &&
	scontrol reconfigure &&
	wait_for 10 submit_grpq_id alice &&
	scancel $(cat id)
'

test_expect_success GROUPS 'a removed membership is seen after reconfigure too' '
	gpasswd -d alice "$GRP" >/dev/null &&
	scontrol reconfigure &&
	wait_for 10 sh -c "! runuser -u alice -- sbatch -p grpq -H -D /tmp -o /dev/null --wrap=true" &&
	id=$(submit_grpq bob) &&
	scancel $id
'

# last, and whatever failed before
test_expect_success GROUPS 'the test group is removed' '
	groupdel "$GRP"
'

test_done
