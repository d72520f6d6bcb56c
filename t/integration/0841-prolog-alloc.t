#!/bin/bash
test_description='PrologFlags=Alloc: every node of a job runs its Prolog at
allocation, the job stays CONFIGURING (and the batch script, srun and salloc
wait) until each node is done; later steps do not run it again; a Prolog
failing on one node drains that node and requeues a batch job held or ends
the srun/salloc allocation, and the other nodes run their Epilog'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

PD=$(mktemp -d /tmp/sluice-pea.XXXXXX)
chmod 755 "$PD"

script() { # script PATH BODY: an executable sh script
	printf '#!/bin/sh\n%s\n' "$2" >"$1" && chmod 755 "$1"
}

runs() { cat "$PD/$1.$2.$3" 2>/dev/null | wc -l; }
# ran COUNT p|e JOB NODE: it ran COUNT times (for wait_for)
ran() { test "$(runs "$2" "$3" "$4")" = "$1"; }

# The Prolog waits while $PD/gate exists (at most 20 s), fails on a node
# with $PD/fail.<node>.
test_expect_success 'cluster of 3 nodes with PrologFlags=Alloc' '
	script "$PD/prolog" "echo run >>$PD/p.\$SLURM_JOB_ID.\$SLURMD_NODENAME; env >$PD/penv.\$SLURM_JOB_ID.\$SLURMD_NODENAME; i=0; while test -e $PD/gate && test \$i -lt 200; do sleep 0.1; i=\$((i+1)); done; test -e $PD/fail.\$SLURMD_NODENAME && exit 3; exit 0" &&
	script "$PD/epilog" "echo run >>$PD/e.\$SLURM_JOB_ID.\$SLURMD_NODENAME; exit 0" &&
	cluster_start 3 "Prolog=$PD/prolog" "Epilog=$PD/epilog" "PrologFlags=Alloc"
'

test_expect_success 'a batch job is CONFIGURING until every node ran its Prolog, then runs' '
	touch $PD/gate &&
	id=$(sbatch --parsable -N3 -D /tmp -o /dev/null \
		--wrap="ls $PD/p.\$SLURM_JOB_ID.* | wc -l >$PD/seen.\$SLURM_JOB_ID; srun -N3 true") &&
	wait_for 10 ran 1 p $id comp003 &&
	wait_for 10 ran 1 p $id comp001 &&
	test "$(squeue -h -j $id -o %t)" = CF &&
	test "$(job_state $id)" = CONFIGURING &&
	! test -e $PD/seen.$id &&
	rm -f $PD/gate &&
	wait_job_state $id COMPLETED 30 &&
	test "$(cat $PD/seen.$id)" = 3 &&
	for n in comp001 comp002 comp003; do
		test "$(runs p $id $n)" = 1 || return 1
		grep -qx "SLURM_JOB_NODELIST=comp\\[001-003\\]" $PD/penv.$id.$n || return 1
	done &&
	for n in comp001 comp002 comp003; do
		wait_for 15 ran 1 e $id $n || return 1
	done
'

test_expect_success 'salloc waits for the Prolog of its nodes and says so' '
	touch $PD/gate &&
	{ salloc -N2 -w comp[001-002] sh -c "ls $PD/p.\$SLURM_JOB_ID.* | wc -l; echo \$SLURM_JOB_ID >$PD/salloc.id" >out 2>err & } &&
	wait_for 10 test -s err &&
	sleep 1 &&
	! test -s out &&
	rm -f $PD/gate &&
	wait_for 20 test -s $PD/salloc.id &&
	wait_for 10 grep -q "Relinquishing" err &&
	cat err &&
	id=$(cat $PD/salloc.id) &&
	test "$(cat out)" = 2 &&
	grep -qx "salloc: Granted job allocation $id" err &&
	grep -qx "salloc: Waiting for resource configuration" err &&
	grep -qx "salloc: Nodes comp\\[001-002\\] are ready for job" err
'

test_expect_success 'srun alone waits too; its steps do not run the Prolog again' '
	srun -N2 -w comp[002-003] -D /tmp sh -c "echo \$SLURM_JOB_ID" >out &&
	id=$(head -1 out) &&
	test "$(runs p $id comp002)" = 1 &&
	test "$(runs p $id comp003)" = 1 &&
	test "$(runs p $id comp001)" = 0
'

test_expect_success 'a Prolog failing on one node: drained, the batch job requeued held, never run' '
	touch $PD/fail.comp002 &&
	id=$(sbatch --parsable -N2 -w comp[001-002] -D /tmp -o /dev/null \
		--wrap="touch $PD/ran.\$SLURM_JOB_ID") &&
	wait_for 20 test_node_state comp002 drained &&
	wait_for 10 sh -c "squeue -h -j $id -o %R | grep -qx \"(launch failed requeued held)\"" &&
	test "$(job_field $id Restarts)" = 1 &&
	sinfo -h -R -o "%E|%N" | grep -qx "Prolog error|comp002" &&
	! test -e $PD/ran.$id &&
	wait_for 15 ran 1 e $id comp001 &&
	test_node_state comp001 idle &&
	scancel $id
'

test_expect_success 'a Prolog failing on one node ends an srun allocation' '
	touch $PD/fail.comp003 &&
	test_must_fail srun -N2 -w comp[001,003] -D /tmp true 2>err &&
	cat err &&
	grep -q "Job allocation [0-9]* has been revoked" err &&
	wait_for 10 test_node_state comp003 drained &&
	id=$(squeue -h -t all -o %i -n true | tail -1) &&
	test "$(job_state $id)" = FAILED &&
	rm -f $PD/fail.comp002 $PD/fail.comp003 &&
	scontrol update nodename=comp[002-003] state=resume
'

rm -rf "$PD"
test_done
