#!/bin/bash
test_description='the caller'"'"'s resource limits and umask reach the tasks: PropagateResourceLimits[Except], --propagate'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts (NOFILE is not propagated unless asked)' '
	cluster_start 1 "PropagateResourceLimitsExcept=NOFILE" &&
	daemon_nofile=$(ulimit -S -n) &&
	test "$daemon_nofile" != 100
'

test_expect_success 'batch job: CORE and umask follow the caller, NOFILE stays the node'"'"'s' '
	id=$( (ulimit -S -c 4096 && ulimit -S -n 100 && umask 027 &&
	       sbatch --parsable -o out1 --wrap="bash -c \"ulimit -S -c; ulimit -S -n; umask\"; env | grep -c ^SLURM_RLIMIT_ || :") ) &&
	wait_job_state $id COMPLETED 30 &&
	printf "4096\n%s\n0027\n0\n" "$daemon_nofile" >expect &&
	test_cmp expect out1
'

test_expect_success '--propagate=NOFILE applies it whatever the config says' '
	id=$( (ulimit -S -n 100 && sbatch --parsable --propagate=NOFILE -o out2 --wrap="ulimit -S -n") ) &&
	wait_job_state $id COMPLETED 30 &&
	echo 100 >expect &&
	test_cmp expect out2
'

test_expect_success 'srun --propagate and srun inside a job' '
	(ulimit -S -n 77 && srun --propagate=NOFILE -n1 bash -c "ulimit -S -n") >out3 &&
	echo 77 >expect &&
	test_cmp expect out3 &&
	id=$( (ulimit -S -c 2048 && sbatch --parsable -o out4 --wrap="srun -n1 bash -c \"ulimit -S -c\"") ) &&
	wait_job_state $id COMPLETED 30 &&
	echo 2048 >expect &&
	test_cmp expect out4
'

test_expect_success 'a limit above the hard limit is clamped, not an error' '
	id=$( (ulimit -S -c unlimited 2>/dev/null; sbatch --parsable -o out5 --wrap="ulimit -S -c") ) &&
	wait_job_state $id COMPLETED 30 &&
	test -s out5
'

test_expect_success 'bad --propagate names fail as in Slurm' '
	test_expect_code 1 sbatch --propagate=FOO --wrap=true 2>err &&
	printf "sbatch: error: Bad rlimit name: FOO\nsbatch: error: --propagate=FOO is not valid.\n" >expect &&
	test_cmp expect err &&
	test_expect_code 1 sbatch --propagate=nofile,CORE --wrap=true 2>err &&
	grep -qx "sbatch: error: Bad rlimit name: nofile" err
'

test_expect_success 'sbatch -vv says what it propagates' '
	(ulimit -S -c 0 && umask 022 && sbatch -vv -H --propagate=CORE -o /dev/null --wrap=true) >out 2>err &&
	grep -qx "sbatch: propagate           : CORE" err &&
	grep -qx "sbatch: debug:  propagating RLIMIT_CORE=0" err &&
	grep -qx "sbatch: debug:  propagating UMASK=0022" err &&
	! grep -q "RLIMIT_NOFILE" err &&
	scancel $(awk "{print \$4}" out)
'

test_done
