#!/bin/bash
test_description='MPI through PMI-2: srun --mpi=list/none/pmi2, MpiDefault, SLURM_MPI_TYPE; an MPICH program (MPI_Init, Allreduce, Barrier, Abort) across two nodes'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# make deps installs mpich (mpicc.mpich); without it the MPI runs skip
command -v mpicc.mpich >/dev/null && test_set_prereq MPICH

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'srun --mpi=list prints the types this build serves, as Slurm 22.05 does' '
	srun --mpi=list >out 2>err &&
	printf "MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\nspecific pmix plugin versions available: pmix_v4\n" >expect &&
	test_cmp expect out &&
	test_must_be_empty err
'

test_expect_success 'an unknown --mpi (or SLURM_MPI_TYPE) is refused with Slurm'"'"'s line' '
	test_expect_code 1 srun --mpi=bogus true 2>err &&
	echo "srun: error: Invalid MPI type '"'"'bogus'"'"', --mpi=list for acceptable types" >expect &&
	test_cmp expect err &&
	SLURM_MPI_TYPE=bogus test_expect_code 1 srun true 2>err &&
	test_cmp expect err
'

test_expect_success 'tasks of --mpi=pmi2 get SLURM_MPI_TYPE and PMI_FD/RANK/SIZE/JOBID; --mpi=none none of PMI' '
	srun -N2 -n4 -l --mpi=pmi2 sh -c "echo \$SLURM_MPI_TYPE \$PMI_RANK \$PMI_SIZE \$PMI_JOBID; test -S /proc/self/fd/\$PMI_FD || readlink /proc/self/fd/\$PMI_FD" >out 2>err &&
	sort out >actual &&
	grep -c "pmi2 [0-3] 4 [0-9]*\.[0-9]*$" actual >n && echo 4 >expect && test_cmp expect n &&
	awk "{print \$1, \$3}" actual >ranks && printf "0: 0\n1: 1\n2: 2\n3: 3\n" >expect && test_cmp expect ranks &&
	srun -n2 --mpi=none sh -c "echo \${PMI_FD:-none} \${SLURM_MPI_TYPE:-unset}" >out &&
	printf "none unset\nnone unset\n" >expect && test_cmp expect out
'

test_expect_success MPICH 'compile the MPICH test program' '
	mpicc.mpich -O0 -o "$CL/work/mpi_allreduce" "$SHARNESS_TEST_DIRECTORY/fixtures/mpi_allreduce.c"
'

test_expect_success MPICH 'srun -N2 -n4 --mpi=pmi2: MPI_Init, Allreduce of the ranks, Barrier over both nodes' '
	cd "$CL/work" &&
	timeout 120 srun -N2 -n4 --mpi=pmi2 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 4 sum 6 ok\n" 0 1 2 3 >expect &&
	test_cmp expect actual
'

test_expect_success MPICH 'one node, -n3 --mpi=pmi2' '
	cd "$CL/work" &&
	timeout 120 srun -N1 -n3 --mpi=pmi2 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 3 sum 3 ok\n" 0 1 2 >expect &&
	test_cmp expect actual
'

test_expect_success MPICH 'uneven layout (-N2 -n3): PMI_process_mapping follows it' '
	cd "$CL/work" &&
	timeout 120 srun -N2 -n3 --mpi=pmi2 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 3 sum 3 ok\n" 0 1 2 >expect &&
	test_cmp expect actual
'

test_expect_success MPICH 'MpiDefault=pmi2 in slurm.conf: plain srun runs the MPI program' '
	cd "$CL/work" &&
	sed "/^MpiDefault=/d" "$CL/etc/slurm.conf" >"$CL/etc/pmi2.conf" &&
	echo MpiDefault=pmi2 >>"$CL/etc/pmi2.conf" &&
	SLURM_CONF="$CL/etc/pmi2.conf" timeout 120 srun -N2 -n4 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 4 sum 6 ok\n" 0 1 2 3 >expect &&
	test_cmp expect actual
'

test_expect_success MPICH 'SLURM_MPI_TYPE=pmi2 in the environment is the default' '
	cd "$CL/work" &&
	SLURM_MPI_TYPE=pmi2 timeout 120 srun -N2 -n2 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 2 sum 1 ok\n" 0 1 >expect &&
	test_cmp expect actual
'

test_expect_success MPICH 'without PMI (--mpi=none) each MPICH task is a singleton' '
	cd "$CL/work" &&
	timeout 120 srun -n2 --mpi=none ./mpi_allreduce >out 2>err &&
	printf "rank 0 of 1 sum 0 ok\nrank 0 of 1 sum 0 ok\n" >expect &&
	test_cmp expect out
'

test_expect_success MPICH 'MPI_Abort in one rank ends the whole step' '
	cd "$CL/work" &&
	start=$(date +%s) &&
	{ timeout 50 srun -N2 -n4 --mpi=pmi2 ./mpi_allreduce 7 >out 2>err; rc=$?; } ;
	# the tasks were ended (not timeout'"'"'s 124), not left to their sleep
	test $rc != 0 && test $rc != 124 &&
	grep "Terminating StepId" err &&
	grep "PMI abort by task 1 (exit code 7)" err &&
	test "$(wc -l <out)" = 4 &&
	test $(( $(date +%s) - start )) -lt 45
'

test_done
