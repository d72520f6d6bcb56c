#!/bin/bash
test_description='Account and QOS of jobs: defaults, AccountingStorageEnforce=associations,qos refusals as Slurm, scontrol/squeue show them, operators and coordinators act on others jobs'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }

test_expect_success USERS 'cluster starts with AccountingStorageEnforce=associations,qos' '
	cluster_start 1 "AccountingStorageEnforce=associations,qos" &&
	chmod 777 "$CL/work"
'

test_expect_success USERS 'a user without an association is refused as Slurm refuses it' '
	cd "$CL/work" &&
	test_expect_code 1 as alice sbatch -o /dev/null --wrap=true >out 2>err &&
	echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" >expect &&
	test_cmp expect err && test_must_be_empty out
'

test_expect_success USERS 'with an association: the default account and QOS normal, shown by scontrol and squeue' '
	sacctmgr -i add account physics >/dev/null &&
	sacctmgr -i add account chem >/dev/null &&
	sacctmgr -i add user alice account=physics >/dev/null &&
	sacctmgr -i add user bob account=chem >/dev/null &&
	cd "$CL/work" &&
	id=$(as alice sbatch --parsable -H -o /dev/null --wrap=true) &&
	test "$(job_field $id Account)" = physics &&
	test "$(job_field $id QOS)" = normal &&
	squeue -h -j $id -o "%a %q" >out &&
	echo "physics normal" >expect && test_cmp expect out &&
	squeue -h -j $id -O account,qos >out &&
	grep "^physics *normal" out &&
	scancel $id
'

test_expect_success USERS 'an account the user has no association with, an unknown or not allowed QOS' '
	cd "$CL/work" &&
	test_expect_code 1 as alice sbatch -A chem -o /dev/null --wrap=true 2>err &&
	grep "Invalid account or account/partition combination specified" err &&
	test_expect_code 1 as alice sbatch -A nosuch -o /dev/null --wrap=true 2>err &&
	grep "Invalid account or account/partition combination specified" err &&
	test_expect_code 1 as alice sbatch -q nosuch -o /dev/null --wrap=true >out 2>err &&
	echo "sbatch: error: Batch job submission failed: Invalid qos specification" >expect &&
	test_cmp expect err &&
	sacctmgr -i add qos high >/dev/null &&
	test_expect_code 1 as alice sbatch -q high -o /dev/null --wrap=true 2>err &&
	test_cmp expect err &&
	sacctmgr -i modify user alice set qos+=high >/dev/null &&
	id=$(as alice sbatch --parsable -H -q high -o /dev/null --wrap=true) &&
	test "$(job_field $id QOS)" = high &&
	scancel $id
'

test_expect_success USERS 'DefaultQOS of the association, per-partition association' '
	cd "$CL/work" &&
	sacctmgr -i modify user alice set defaultqos=high >/dev/null &&
	id=$(as alice sbatch --parsable -H -o /dev/null --wrap=true) &&
	test "$(job_field $id QOS)" = high &&
	scancel $id &&
	sacctmgr -i add user bob account=physics partition=short >/dev/null &&
	test_expect_code 1 as bob sbatch -A physics -p defq -o /dev/null --wrap=true 2>err &&
	grep "Invalid account" err &&
	id=$(as bob sbatch --parsable -H -A physics -p short -o /dev/null --wrap=true) &&
	test "$(job_field $id Account)" = physics &&
	scancel $id
'

test_expect_success USERS 'scontrol update Account= and QOS= are checked as a submission' '
	cd "$CL/work" &&
	id=$(as alice sbatch --parsable -H -q normal -o /dev/null --wrap=true) &&
	test_expect_code 1 as alice scontrol update jobid=$id account=chem 2>err &&
	grep "Invalid account" err &&
	test "$(job_field $id Account)" = physics &&
	sacctmgr -i add user alice account=chem >/dev/null &&
	as alice scontrol update jobid=$id account=chem &&
	test "$(job_field $id Account)" = chem &&
	test_expect_code 1 as alice scontrol update jobid=$id qos=nosuch 2>err &&
	grep "Invalid qos specification" err &&
	test_expect_code 1 as alice scontrol update jobid=$id qos=high 2>err &&
	grep "Invalid qos specification" err &&
	test "$(job_field $id QOS)" = normal &&
	scancel $id
'

test_expect_success USERS 'operators and coordinators act on other users jobs; plain users do not' '
	cd "$CL/work" &&
	j1=$(as bob sbatch --parsable -H -A chem -o /dev/null --wrap="sleep 60") &&
	test_expect_code 210 as alice scancel $j1 2>err &&
	grep "Access/permission denied" err &&
	sacctmgr -i add coordinator account=chem names=alice >/dev/null &&
	as alice scontrol hold $j1 &&
	as alice scontrol release $j1 &&
	as alice scancel $j1 &&
	wait_job_state $j1 CANCELLED &&
	j2=$(as bob sbatch --parsable -H -A physics -p short -o /dev/null --wrap=true) &&
	test_expect_code 210 as alice scancel $j2 2>err &&
	sacctmgr -i modify user alice set adminlevel=operator >/dev/null &&
	as alice scancel $j2 &&
	wait_job_state $j2 CANCELLED &&
	test_expect_code 1 as alice scontrol update nodename=comp001 state=drain reason=x 2>err &&
	sacctmgr -i modify user alice set adminlevel=administrator >/dev/null &&
	as alice scontrol update nodename=comp001 state=drain reason=x &&
	as alice scontrol update nodename=comp001 state=resume
'

test_expect_success USERS 'jobs keep their association and QOS across a controller restart' '
	cd "$CL/work" &&
	id=$(as alice sbatch --parsable -H -A physics -q high -o /dev/null --wrap=true) &&
	ctld_kill9 && ctld_start && wait_for 20 scontrol ping &&
	test "$(job_field $id Account)" = physics &&
	test "$(job_field $id QOS)" = high &&
	as alice scontrol release $id &&
	wait_job_state $id COMPLETED 30
'

test_expect_success USERS 'an association with jobs not finished cannot be removed' '
	cd "$CL/work" &&
	sacctmgr -i add account theory >/dev/null &&
	sacctmgr -i add user alice account=theory >/dev/null &&
	id=$(as alice sbatch --parsable -H -A theory -o /dev/null --wrap=true) &&
	test_expect_code 1 sacctmgr -i delete user alice account=theory 2>err &&
	grep "Job(s) active, cancel job(s) before remove" err &&
	grep "JobID = $id" err &&
	test_expect_code 1 sacctmgr -i delete account theory 2>err &&
	grep "Job(s) active" err &&
	scancel $id && wait_job_state $id CANCELLED &&
	sacctmgr -i delete user alice account=theory >/dev/null &&
	sacctmgr -i delete account theory >/dev/null
'

test_expect_success USERS 'scontrol reconfigure applies a new AccountingStorageEnforce' '
	cd "$CL/work" &&
	test_expect_code 1 as bob sbatch -A nosuch -o /dev/null --wrap=true 2>err &&
	sed -i "/^AccountingStorageEnforce=/d" "$CL/etc/slurm.conf" &&
	scontrol reconfigure &&
	id=$(as bob sbatch --parsable -H -A nosuch -o /dev/null --wrap=true) &&
	test "$(job_field $id Account)" = chem &&
	scancel $id
'

test_done
