#!/bin/bash
test_description='-v with the new options and srun -v launch lines, as Slurm 22.05 prints them (captured on realslurm; its plugin lines have no counterpart)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	NODE_ATTRS_2="TmpDisk=4096" cluster_start 2
'

test_expect_success 'sbatch -v lists deadline, mincpus, overcommit, test-only, tmp as Slurm' '
	sbatch -v --test-only --tmp=1G -O --mincpus=2 -J v_t --deadline=2037-01-01T10:00:00 \
		--wrap=true 2>err &&
	head -12 err >head &&
	cat >expect <<-\EOF &&
	sbatch: defined options
	sbatch: -------------------- --------------------
	sbatch: deadline            : 2037-01-01T10:00:00
	sbatch: job-name            : v_t
	sbatch: mincpus             : 2
	sbatch: overcommit          : set
	sbatch: test-only           : set
	sbatch: tmp                 : 1G
	sbatch: verbose             : 1
	sbatch: wrap                : true
	sbatch: -------------------- --------------------
	sbatch: end of defined options
	EOF
	test_cmp expect head &&
	sed -n 13p err | grep -q "^sbatch: Job [0-9]* to start at .* using 1 processors on nodes comp002 in partition defq$" &&
	test $(wc -l <err) = 13
'

test_expect_success 'srun -v: the jobid line and one launching line per node' '
	srun -v -n4 true 2>err &&
	sed -n "/end of defined options/,\$p" err | tail -n +2 >got &&
	id=$(squeue -h -t all -o %i | sort -n | tail -1) &&
	cat >expect <<-EOF &&
	srun: jobid $id: nodes(1):\`comp001'"'"', cpu counts: 4(x1)
	srun: launching StepId=$id.0 on host comp001, 4 tasks: [0-3]
	EOF
	test_cmp expect got &&
	srun -v -N2 -n3 true 2>err &&
	sed -n "/end of defined options/,\$p" err | tail -n +2 >got &&
	id=$((id + 1)) &&
	cat >expect <<-EOF &&
	srun: jobid $id: nodes(2):\`comp[001-002]'"'"', cpu counts: 2(x1),1(x1)
	srun: launching StepId=$id.0 on host comp001, 2 tasks: [0-1]
	srun: launching StepId=$id.0 on host comp002, 1 tasks: 2
	EOF
	test_cmp expect got
'

test_expect_success 'srun -v in a batch job: the step'"'"'s lines' '
	id=$(sbatch --parsable -n2 -o b.out --wrap="srun -v true") &&
	wait_job_state $id COMPLETED &&
	grep -v "^srun: [a-z -]* *: \|defined options\|-----" b.out >got &&
	cat >expect <<-EOF &&
	srun: jobid $id: nodes(1):\`comp001'"'"', cpu counts: 2(x1)
	srun: launching StepId=$id.0 on host comp001, 2 tasks: [0-1]
	EOF
	test_cmp expect got
'

test_done
