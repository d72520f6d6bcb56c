#!/bin/bash
test_description='steps spread over their allocation: srun -N1 --exact steps take the
least used node that has room and wait only when no node has any'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

# Two CPUs a node: four one-CPU steps fill both nodes at once (each waits
# until all four run, so queueing would time out), a fifth waits for one
# of them with Slurm's two lines.
test_expect_success 'four srun -N1 -n1 --exact run at once, two per node; a fifth waits' '
	cd "$CL/work" &&
	cat >spread.sh <<-\EOF &&
	#!/bin/bash
	for i in 1 2 3 4; do
		srun -N1 -n1 --exact bash -c "echo \$SLURM_STEP_NODELIST \$SLURMD_NODENAME \$SLURM_STEP_NUM_TASKS \$SLURM_STEP_TASKS_PER_NODE >node.$i; touch run.$i; n=0; while [ \$(ls run.* | wc -l) -lt 4 ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done; ls run.* | wc -l >seen.$i; sleep 2" &
	done
	n=0; while [ $(ls run.* 2>/dev/null | wc -l) -lt 4 ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done
	srun -N1 -n1 --exact bash -c "echo fifth \$SLURMD_NODENAME"
	wait
	EOF
	id=$(sbatch --parsable -N2 --ntasks-per-node=2 -o spread.out -e spread.err spread.sh) &&
	wait_job_state $id COMPLETED &&
	for i in 1 2 3 4; do echo 4 >expect && test_cmp expect seen.$i || return 1; done &&
	cat node.* | sort >nodes &&
	printf "comp001 comp001 1 1\ncomp001 comp001 1 1\ncomp002 comp002 1 1\ncomp002 comp002 1 1\n" >expect &&
	test_cmp expect nodes &&
	grep -q "^fifth comp00[12]\$" spread.out &&
	printf "srun: Job $id step creation temporarily disabled, retrying (Requested nodes are busy)\nsrun: Step created for job $id\n" >expect &&
	test_cmp expect spread.err
'

test_expect_success 'a whole-node step goes to the node the other one leaves free' '
	cat >whole.sh <<-\EOF &&
	#!/bin/bash
	srun -N1 -n1 bash -c "echo \$SLURMD_NODENAME >w.1; touch w1.run; n=0; while [ ! -e w2.run ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done" &
	n=0; while [ ! -e w1.run ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done
	srun -N1 -n1 bash -c "echo \$SLURMD_NODENAME >w.2; touch w2.run"
	wait
	EOF
	id=$(sbatch --parsable -N2 --ntasks-per-node=2 -o whole.out -e whole.err whole.sh) &&
	wait_job_state $id COMPLETED &&
	test_must_be_empty whole.err &&
	test "$(cat w.1)" != "$(cat w.2)"
'

test_expect_success 'cluster stops' '
	cluster_stop
'

test_done
