#!/bin/bash
test_description='salloc: allocation, command, environment, release'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'salloc runs the command in the allocation and releases it' '
	cd "$CL/work" &&
	test_expect_code 3 salloc -N2 sh -c "echo \$SLURM_JOB_ID \$SLURM_NNODES \$SLURM_JOB_NODELIST; exit 3" >out 2>err &&
	id=$(cut -d" " -f1 out) &&
	echo "$id 2 comp[001-002]" >expect && test_cmp expect out &&
	printf "salloc: Granted job allocation $id\nsalloc: Relinquishing job allocation $id\n" >expect &&
	test_cmp expect err &&
	wait_for 10 sh -c "squeue -h -j $id -t all -o %T | grep -qx -e COMPLETED -e FAILED"
'

test_expect_success 'the allocation has Slurm'"'"'s variables' '
	salloc -N2 -J sa_env env >env.out 2>/dev/null &&
	grep -q "^SLURM_JOB_NAME=sa_env$" env.out &&
	grep -q "^SLURM_JOB_NUM_NODES=2$" env.out &&
	grep -q "^SLURM_NODELIST=comp\[001-002\]$" env.out &&
	grep -Eq "^SLURM_JOB_CPUS_PER_NODE=[0-9]+(\(x2\)|,[0-9]+)$" env.out &&
	grep -q "^SLURM_TASKS_PER_NODE=1(x2)$" env.out &&
	grep -q "^SLURM_JOB_PARTITION=" env.out &&
	grep -q "^SLURM_SUBMIT_DIR=$PWD$" env.out &&
	grep -q "^SLURM_CLUSTER_NAME=test$" env.out &&
	grep -q "^SLURM_NODE_ALIASES=(null)$" env.out
'

test_expect_success 'srun inside salloc runs steps on the allocation'"'"'s nodes' '
	salloc -N2 srun -l sh -c "echo \$SLURMD_NODENAME \$SLURM_STEP_ID" 2>/dev/null | sort >out &&
	printf "0: comp001 0\n1: comp002 0\n" >expect && test_cmp expect out
'

test_expect_success 'an allocation that must wait says so as Slurm' '
	a=$(sbatch --parsable -N2 --exclusive -o /dev/null --wrap="sleep 2") &&
	wait_job_state $a RUNNING &&
	salloc -N1 true 2>err &&
	id=$(sed -n "s/^salloc: Pending job allocation \([0-9]*\)$/\1/p" err) &&
	test -n "$id" &&
	printf "salloc: Pending job allocation $id\nsalloc: job $id queued and waiting for resources\nsalloc: job $id has been allocated resources\nsalloc: Granted job allocation $id\nsalloc: Relinquishing job allocation $id\n" >expect &&
	test_cmp expect err
'

test_expect_success 'a missing command fails as Slurm' '
	test_expect_code 1 salloc -N1 nosuchcmd 2>err &&
	grep -q "^salloc: error: _fork_command: Unable to find command \"nosuchcmd\"$" err &&
	grep -q "^salloc: Relinquishing job allocation" err
'

test_expect_success '--no-shell leaves the allocation for srun --jobid' '
	salloc -N1 --no-shell 2>err &&
	id=$(sed -n "s/^salloc: Granted job allocation \([0-9]*\)$/\1/p" err) &&
	test "$(squeue -h -j $id -o %T)" = RUNNING &&
	srun --jobid=$id sh -c "echo \$SLURM_JOB_ID" >out &&
	echo $id >expect && test_cmp expect out &&
	scancel $id &&
	wait_for 10 sh -c "squeue -h -j $id -t all -o %T | grep -qx CANCELLED"
'

test_expect_success 'a cancelled allocation is revoked under the command' '
	(salloc -N1 sh -c "echo \$SLURM_JOB_ID >jid; exec sleep 60" 2>err; echo $? >rc) &
	wait_for 10 test -s jid &&
	scancel $(cat jid) &&
	wait_for 20 test -s rc &&
	grep -q "^salloc: Job allocation $(cat jid) has been revoked.$" err
'

test_done
