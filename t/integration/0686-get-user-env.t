#!/bin/bash
test_description='--get-user-env, and --export=NONE|names loading the user'"'"'s login environment on the node, as Slurm 22.05 does'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

id alice >/dev/null 2>&1 && test_set_prereq ALICE

test_expect_success 'cluster starts' '
	cluster_start 1 &&
	chmod 777 . &&
	home=$(getent passwd alice | cut -d: -f6) &&
	shell=$(getent passwd alice | cut -d: -f7)
'

env_job() { # env_job OUT SBATCH-OPTIONS...: run "env" as alice, wait for it
	local out=$1; shift
	local id
	id=$(su alice -s /bin/sh -c "cd '$PWD' && FOO=bar sbatch --parsable -o $out $* --wrap=env") &&
	wait_job_state "$id" COMPLETED 30
}

test_expect_success ALICE '--export=NONE: the login environment, not the caller'"'"'s' '
	env_job e1.out --export=NONE &&
	grep -qx "HOME=$home" e1.out &&
	grep -qx "USER=alice" e1.out &&
	grep -qx "LOGNAME=alice" e1.out &&
	grep -qx "SHELL=$shell" e1.out &&
	grep -q "^PATH=" e1.out &&
	grep -q "^SLURM_JOB_ID=" e1.out &&
	! grep -q "^FOO=" e1.out &&
	! grep -q "^SLURM_RLIMIT_" e1.out
'

test_expect_success ALICE '--export=FOO: the named variable over the login environment' '
	env_job e2.out --export=FOO,BAZ=1 &&
	grep -qx "FOO=bar" e2.out &&
	grep -qx "BAZ=1" e2.out &&
	grep -qx "HOME=$home" e2.out
'

test_expect_success ALICE 'default (ALL): the caller'"'"'s environment as it is; --get-user-env=10L adds the login one under it' '
	env_job e3.out &&
	grep -qx "FOO=bar" e3.out &&
	env_job e4.out --get-user-env=10L &&
	grep -qx "FOO=bar" e4.out &&
	grep -qx "LOGNAME=alice" e4.out
'

test_expect_success 'bad --get-user-env values fail as in Slurm' '
	test_expect_code 255 sbatch --get-user-env=X --wrap=true 2>err &&
	echo "sbatch: error: Invalid --get-user-env specification" >expect &&
	test_cmp expect err &&
	test_expect_code 255 sbatch --get-user-env=10Q --wrap=true 2>err &&
	test_cmp expect err
'

test_done
