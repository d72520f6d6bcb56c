#!/bin/bash
test_description='MPI through PMIx (OpenPMIx server library in the step supervisor): srun --mpi=pmix/pmix_v4, MpiDefault=pmix; an OpenMPI program and mpi4py across two nodes, MPI_Abort; mpirun inside salloc'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# make deps installs openmpi, mpi4py and libpmix-dev; without them the MPI
# runs skip. OpenMPI refuses root without these; tcp between the ranks
# (this VM's shared-memory transport is not what is tested here).
command -v mpicc.openmpi >/dev/null && test -e /usr/lib/x86_64-linux-gnu/libpmix.so.2 &&
	test_set_prereq OMPI
/usr/bin/python3 -c "import mpi4py" 2>/dev/null && test_set_prereq MPI4PY
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,tcp OMPI_MCA_pml=ob1 OMPI_MCA_btl_tcp_if_include=lo

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'srun --mpi=list names pmix and pmix_v4 as Slurm 22.05 does' '
	srun --mpi=list >out 2>err &&
	printf "MPI plugin types are...\n\tnone\n\tpmi2\n\tpmix\nspecific pmix plugin versions available: pmix_v4\n" >expect &&
	test_cmp expect out &&
	test_must_be_empty err
'

test_expect_success 'the PMIx rendezvous directory is per node and step, mode 0700, the job user'"'"'s, and goes with the step' '
	runuser -u alice -- srun -N2 -n2 -l --mpi=pmix sh -c "stat -c \"%a %U %n\" \$PMIX_SERVER_TMPDIR" >out 2>err &&
	sort out >actual &&
	awk "{print \$1, \$2, \$3}" actual >got &&
	printf "0: 700 alice\n1: 700 alice\n" >expect && test_cmp expect got &&
	grep -c "^0: .*/sluice-pmix\.comp001\.[0-9]*\.0$" actual &&
	grep -c "^1: .*/sluice-pmix\.comp002\.[0-9]*\.0$" actual &&
	for d in $(awk "{print \$4}" actual); do test ! -e "$d" || return 1; done
'

test_expect_success 'tasks of --mpi=pmix get PMIx'"'"'s environment: namespace, rank, server URI' '
	srun -N2 -n4 -l --mpi=pmix sh -c "echo \$SLURM_MPI_TYPE \$PMIX_NAMESPACE \$PMIX_RANK; test -n \"\$PMIX_SERVER_URI4\$PMIX_SERVER_URI3\$PMIX_SERVER_URI2\"" >out 2>err &&
	sort out >actual &&
	grep -c "pmix slurm.pmix.[0-9]*.[0-9]* [0-3]$" actual >n && echo 4 >expect && test_cmp expect n &&
	awk "{print \$1, \$4}" actual >ranks && printf "0: 0\n1: 1\n2: 2\n3: 3\n" >expect && test_cmp expect ranks
'

test_expect_success OMPI 'compile the OpenMPI test program' '
	mpicc.openmpi -O0 -o "$CL/work/mpi_allreduce" "$SHARNESS_TEST_DIRECTORY/fixtures/mpi_allreduce.c"
'

test_expect_success OMPI 'srun -n4 --mpi=pmix on one node: OpenMPI MPI_Init, Allreduce, Barrier' '
	cd "$CL/work" &&
	timeout 120 srun -N1 -n4 --mpi=pmix ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 4 sum 6 ok\n" 0 1 2 3 >expect &&
	test_cmp expect actual
'

test_expect_success OMPI 'srun -N2 -n4 --mpi=pmix: the fence crosses the nodes through srun' '
	cd "$CL/work" &&
	timeout 120 srun -N2 -n4 --mpi=pmix ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 4 sum 6 ok\n" 0 1 2 3 >expect &&
	test_cmp expect actual
'

test_expect_success OMPI 'pmix_v4 is pmix; MpiDefault=pmix in slurm.conf runs the program with a plain srun' '
	cd "$CL/work" &&
	timeout 120 srun -N2 -n2 --mpi=pmix_v4 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 2 sum 1 ok\n" 0 1 >expect &&
	test_cmp expect actual &&
	sed "/^MpiDefault=/d" "$CL/etc/slurm.conf" >"$CL/etc/pmix.conf" &&
	echo MpiDefault=pmix >>"$CL/etc/pmix.conf" &&
	SLURM_CONF="$CL/etc/pmix.conf" timeout 120 srun -N2 -n4 ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 4 sum 6 ok\n" 0 1 2 3 >expect &&
	test_cmp expect actual
'

test_expect_success OMPI 'an uneven layout (-N2 -n3) and a job user that is not root' '
	cd "$CL/work" &&
	chmod 755 mpi_allreduce &&
	runuser -u alice -- env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
		timeout 120 srun -N2 -n3 --mpi=pmix ./mpi_allreduce >out 2>err &&
	sort out >actual &&
	printf "rank %d of 3 sum 3 ok\n" 0 1 2 >expect &&
	test_cmp expect actual
'

test_expect_success MPI4PY 'mpi4py (Debian'"'"'s, over OpenMPI) under srun -N2 -n4 --mpi=pmix: allreduce' '
	cd "$CL/work" &&
	timeout 120 srun -N2 -n4 --mpi=pmix /usr/bin/python3 -c "from mpi4py import MPI; c = MPI.COMM_WORLD; print(c.rank, c.size, c.allreduce(c.rank))" >out 2>err &&
	sort out >actual &&
	printf "0 4 6\n1 4 6\n2 4 6\n3 4 6\n" >expect &&
	test_cmp expect actual
'

test_expect_success OMPI 'MPI_Abort in one rank ends the whole step' '
	cd "$CL/work" &&
	start=$(date +%s) &&
	{ timeout 50 srun -N2 -n4 --mpi=pmix ./mpi_allreduce 7 >out 2>err; rc=$?; } ;
	test $rc != 0 && test $rc != 124 &&
	grep "Terminating StepId" err &&
	grep "PMI abort by task 1 (exit code 7)" err &&
	test "$(wc -l <out)" = 4 &&
	test $(( $(date +%s) - start )) -lt 45
'

test_expect_success OMPI 'mpirun inside salloc -N2 still starts its daemons with srun --mpi=none' '
	cd "$CL/work" &&
	timeout 120 salloc -N2 -n4 sh -c "mpirun -np 4 ./mpi_allreduce && mpirun -np 4 sh -c \"echo \\\$SLURMD_NODENAME\"" >out 2>err &&
	grep "^rank" out | sort >actual &&
	printf "rank %d of 4 sum 6 ok\n" 0 1 2 3 >expect &&
	test_cmp expect actual &&
	grep "^comp" out | sort | uniq -c | awk "{print \$1, \$2}" >actual &&
	printf "2 comp001\n2 comp002\n" >expect &&
	test_cmp expect actual
'

test_done
