#!/bin/bash
test_description='sbatch --uid/--gid: root submits for another user, as Slurm 22.05 does'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

id alice >/dev/null 2>&1 && id bob >/dev/null 2>&1 && test_set_prereq USERS

test_expect_success 'cluster starts' '
	cluster_start 1 &&
	chmod 777 .
'

test_expect_success USERS 'root --uid=alice: the job is alice'"'"'s and runs as alice, in root'"'"'s group (as Slurm)' '
	id=$(sbatch --parsable --uid=alice -o uid.out --wrap="id -un; id -gn") &&
	test "$(job_field $id UserId)" = "alice($(id -u alice))" &&
	test "$(job_field $id GroupId)" = "root(0)" &&
	wait_job_state $id COMPLETED 30 &&
	printf "alice\nroot\n" >expect &&
	test_cmp expect uid.out
'

test_expect_success USERS '--uid by number with --gid by name' '
	id=$(sbatch --parsable --uid=$(id -u bob) --gid=bob -H -o /dev/null --wrap=true) &&
	test "$(job_field $id UserId)" = "bob($(id -u bob))" &&
	test "$(job_field $id GroupId)" = "bob($(id -g bob))" &&
	scancel $id
'

test_expect_success USERS 'not root: refused with Slurm'"'"'s text, by the client and by the controller' '
	test_expect_code 255 su alice -s /bin/sh -c "sbatch --uid=bob --wrap=true" 2>err &&
	echo "sbatch: error: --uid only permitted by root user" >expect &&
	test_cmp expect err
'

test_expect_success 'unknown user or group' '
	test_expect_code 255 sbatch --uid=nosuchuser --wrap=true 2>err &&
	echo "sbatch: error: Invalid --uid specification" >expect &&
	test_cmp expect err &&
	test_expect_code 255 sbatch --gid=nosuchgrp --wrap=true 2>err &&
	echo "sbatch: error: Invalid --gid specification" >expect &&
	test_cmp expect err
'

test_done
