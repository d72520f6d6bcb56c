#!/bin/bash
test_description='srun standalone and as a step inside a batch job'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
# the node daemons run as real daemons (not -D) here
NODED_DAEMON=1
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'srun -N2 -l runs on both nodes with labels' '
	cd "$CL/work" &&
	srun -N2 -l sh -c "echo \$SLURMD_NODENAME" >out 2>err &&
	sort out >actual &&
	printf "0: comp001\n1: comp002\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'srun returns the command exit status' '
	test_expect_code 3 srun sh -c "exit 3" 2>/dev/null
'

test_expect_success 'srun streams stdout and stderr apart' '
	srun sh -c "echo out; echo err >&2" >o 2>e &&
	echo out >expect && test_cmp expect o &&
	grep -q "^err$" e
'

test_expect_success 'srun -n4 sets ranks' '
	srun -n4 sh -c "echo \$SLURM_PROCID" | sort >out &&
	printf "0\n1\n2\n3\n" >expect &&
	test_cmp expect out
'

test_expect_success 'srun inside a batch script runs a step on the job nodes' '
	cd "$CL/work" &&
	cat >steps.sh <<-\EOF &&
	#!/bin/sh
	#SBATCH -N 2
	srun -l sh -c "echo step \$SLURM_STEP_ID on \$SLURMD_NODENAME" | sort
	EOF
	id=$(sbatch --parsable -o steps.out steps.sh) &&
	wait_job_state $id COMPLETED &&
	grep -q "^0: step 0 on comp001$" steps.out &&
	grep -q "^1: step 0 on comp002$" steps.out
'

test_expect_success 'srun waits for resources with Slurm'"'"'s messages' '
	a=$(sbatch --parsable -N2 --exclusive -o /dev/null --wrap="sleep 2") &&
	wait_job_state $a RUNNING &&
	srun -N1 true 2>err &&
	grep -Eq "^srun: job [0-9]+ queued and waiting for resources$" err &&
	grep -Eq "^srun: job [0-9]+ has been allocated resources$" err
'

test_expect_success 'stdin reaches every task (Slurm'"'"'s default), or task N with -i N' '
	echo "hello world" | srun cat >out &&
	echo "hello world" >expect && test_cmp expect out &&
	printf "b\na\n" | srun -N2 -n2 -l sort | sort >out &&
	printf "0: a\n0: b\n1: a\n1: b\n" >expect && test_cmp expect out &&
	printf "x\n" | srun -n2 -i 1 -l cat >out &&
	echo "1: x" >expect && test_cmp expect out &&
	echo x | srun -i none cat >out && test_must_be_empty out &&
	echo x | srun -n2 -i 7 cat >out 2>err && test_must_be_empty out &&
	grep -qx "srun: error: --input=7: the step has no task 7 (tasks 0-1): stdin not forwarded" err
'

test_expect_success 'large stdin, a task that ignores it, and a late writer' '
	seq 1 200000 >big &&
	srun -i big wc -l >out && echo 200000 >expect && test_cmp expect out &&
	seq 1 300000 | srun -n2 wc -l >out &&
	printf "300000\n300000\n" >expect && test_cmp expect out &&
	timeout 60 srun true </dev/zero &&
	(sleep 1; echo late) | srun head -1 >out &&
	echo late >expect && test_cmp expect out
'

test_expect_success 'a missing command fails like Slurm' '
	test_must_fail srun nosuchcmd 2>err &&
	grep -q "execve(): nosuchcmd: No such file or directory" err
'

test_done
