#!/bin/bash
test_description='-O/--overcommit, --mincpus, --tmp and -N forms as Slurm 22.05 (captured on realslurm): parsing, scheduling, scontrol and the job environment, across a controller restart'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# comp002 alone has TmpDisk (4 GiB); nodes have 8 CPUs.
test_expect_success 'cluster starts' '
	NODE_ATTRS_2="TmpDisk=4096" cluster_start 2
'

test_expect_success 'bad values: Slurm'"'"'s messages and exit statuses' '
	test_expect_code 1 sbatch -H --mincpus=0 --wrap=true 2>err &&
	echo "sbatch: error: Invalid numeric value \"0\" for --mincpus." >expect &&
	test_cmp expect err &&
	test_expect_code 1 sbatch -H --mincpus=abc --wrap=true 2>err &&
	echo "sbatch: error: Invalid numeric value \"abc\" for --mincpus." >expect &&
	test_cmp expect err &&
	test_expect_code 255 sbatch -H --tmp=abc --wrap=true 2>err &&
	echo "sbatch: error: Invalid --tmp specification" >expect &&
	test_cmp expect err &&
	test_expect_code 255 sbatch -H -N 3-2 --wrap=true 2>err &&
	echo "sbatch: error: Maximum node count 2 is less than minimum node count 3" >expect &&
	test_cmp expect err &&
	test_expect_code 255 srun --tmp=1Q true 2>err &&
	echo "srun: error: Invalid --tmp specification" >expect &&
	test_cmp expect err
'

test_expect_success '--tmp: only a node with that much TmpDisk; MinTmpDiskNode and %d show it' '
	id=$(sbatch --parsable --tmp=10 -o /dev/null --wrap="sleep 30") &&
	wait_job_state $id RUNNING &&
	test "$(job_field $id NodeList)" = comp002 &&
	test "$(job_field $id MinTmpDiskNode)" = 10M &&
	test "$(squeue -h -j $id -o %d)" = 10M &&
	id2=$(sbatch --parsable -H --tmp=1G --wrap=true) &&
	test "$(job_field $id2 MinTmpDiskNode)" = 1G &&
	test "$(job_field $(sbatch --parsable -H --wrap=true) MinTmpDiskNode)" = 0 &&
	scancel $id $id2
'

test_expect_success '--tmp more than any node has: refused with the detail line' '
	test_expect_code 1 sbatch --tmp=8G --wrap=true 2>err &&
	cat >expect <<-\EOF &&
	sbatch: error: Temporary disk specification can not be satisfied
	sbatch: error: Batch job submission failed: Requested node configuration is not available
	EOF
	test_cmp expect err
'

test_expect_success '--mincpus: at least that many CPUs on each node; more than a node has is refused' '
	id=$(sbatch --parsable --mincpus=3 -n1 -o /dev/null --wrap="sleep 30") &&
	wait_job_state $id RUNNING &&
	test "$(job_field $id NumCPUs)" = 3 &&
	test "$(job_field $id MinCPUsNode)" = 3 &&
	scancel $id &&
	test_expect_code 1 sbatch --mincpus=9 --wrap=true 2>err &&
	cat >expect <<-\EOF &&
	sbatch: error: CPU count per node can not be satisfied
	sbatch: error: Batch job submission failed: Requested node configuration is not available
	EOF
	test_cmp expect err
'

test_expect_success '-O: 20 tasks on one 8-CPU node hold one CPU; SLURM_OVERCOMMIT=1 in the job' '
	test_expect_code 1 sbatch -N1 -n20 --wrap=true 2>err &&
	grep -q "Requested node configuration is not available" err &&
	id=$(sbatch --parsable -O -N1 -n20 -o ov.out \
		--wrap="env | grep -E \"^SLURM_(OVERCOMMIT|NTASKS|JOB_CPUS_PER_NODE)=\" | sort") &&
	wait_for 30 test -s ov.out &&
	wait_job_state $id COMPLETED &&
	cat >expect <<-\EOF &&
	SLURM_JOB_CPUS_PER_NODE=1
	SLURM_NTASKS=20
	SLURM_OVERCOMMIT=1
	EOF
	test_cmp expect ov.out &&
	test "$(job_field $id NumCPUs)" = 1 &&
	SBATCH_OVERCOMMIT=1 sbatch -H -N1 -n20 --wrap=true >out &&
	scancel $(awk "{print \$4}" out)
'

test_expect_success '-N -MAX: at least one node; -N MIN-MAX kept' '
	id=$(sbatch --parsable -H -N -2 --wrap=true) &&
	test "$(job_field $id NumNodes)" = 1-2 &&
	id2=$(sbatch --parsable -H -N 1-2 --wrap=true) &&
	test "$(job_field $id2 NumNodes)" = 1-2 &&
	scancel $id $id2
'

test_expect_success 'the new fields survive a controller restart' '
	id=$(sbatch --parsable -H --tmp=2G --mincpus=2 -O --deadline=now+1hour --wrap=true) &&
	scontrol show job $id | grep -E "MinCPUsNode|Deadline" >before &&
	ctld_kill9 && ctld_start &&
	scontrol show job $id | grep -E "MinCPUsNode|Deadline" >after &&
	test_cmp before after &&
	grep -q "MinCPUsNode=2 .* MinTmpDiskNode=2G" after &&
	grep -q "Deadline=20" after &&
	scontrol release $id &&
	wait_job_state $id COMPLETED
'

test_done
