#!/bin/bash
test_description='The node Prolog and Epilog run on every node of a job, as
Slurm 22.05 runs them without PrologFlags=Alloc: the Prolog at the job'"'"'s first
step on a node (the batch launch, or the first srun step there), once per job
and never once per step, with the same job environment on every node; the
Epilog on every node the job started on when it ends; srun-only allocations
too; a Prolog failing on one node only drains that node ("Prolog error") and
fails the srun or requeues the batch job held'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

PD=$(mktemp -d /tmp/sluice-pen.XXXXXX)
chmod 755 "$PD"

script() { # script PATH BODY: an executable sh script
	printf '#!/bin/sh\n%s\n' "$2" >"$1" && chmod 755 "$1"
}

# runs: how many times the Prolog (p) or Epilog (e) ran for job $2 on node $3
runs() { cat "$PD/$1.$2.$3" 2>/dev/null | wc -l; }
# ran COUNT p|e JOB NODE: it ran COUNT times (for wait_for)
ran() { test "$(runs "$2" "$3" "$4")" = "$1"; }

test_expect_success 'cluster of 3 nodes with a Prolog and an Epilog' '
	script "$PD/prolog" "echo run >>$PD/p.\$SLURM_JOB_ID.\$SLURMD_NODENAME; env >$PD/penv.\$SLURM_JOB_ID.\$SLURMD_NODENAME; test -e $PD/fail.\$SLURMD_NODENAME && exit 3; exit 0" &&
	script "$PD/epilog" "echo run >>$PD/e.\$SLURM_JOB_ID.\$SLURMD_NODENAME; env >$PD/eenv.\$SLURM_JOB_ID.\$SLURMD_NODENAME; exit 0" &&
	cluster_start 3 "Prolog=$PD/prolog" "Epilog=$PD/epilog"
'

test_expect_success 'a batch job of 3 nodes: the Prolog once on each node, however many steps' '
	id=$(sbatch --parsable -N3 -D /tmp -o /dev/null \
		--wrap="srun -N3 true && srun -N3 true && srun -N2 true") &&
	wait_job_state $id COMPLETED 30 &&
	for n in comp001 comp002 comp003; do
		test "$(runs p $id $n)" = 1 || { echo "prolog on $n: $(runs p $id $n)"; return 1; }
	done
'

test_expect_success 'every node gets the same job environment, and its own node name' '
	for n in comp001 comp002 comp003; do
		e=$PD/penv.$id.$n &&
		grep -qx "SLURM_JOB_ID=$id" $e &&
		grep -qx "SLURM_JOB_NODELIST=comp\\[001-003\\]" $e &&
		grep -qx "SLURM_JOB_PARTITION=defq" $e &&
		grep -qx "SLURM_JOB_USER=root" $e &&
		grep -qx "SLURM_JOB_UID=0" $e &&
		grep -qx "SLURM_JOB_NUM_NODES=3" $e &&
		grep -qx "SLURM_SCRIPT_CONTEXT=prolog_slurmd" $e &&
		grep -qx "SLURMD_NODENAME=$n" $e &&
		! grep -q "^PATH=" $e || { echo "bad env on $n"; cat $e; return 1; }
	done
'

test_expect_success 'the Epilog ran once on every node of the batch job' '
	for n in comp001 comp002 comp003; do
		wait_for 15 test -s $PD/eenv.$id.$n &&
		grep -qx "SLURM_SCRIPT_CONTEXT=epilog_slurmd" $PD/eenv.$id.$n &&
		grep -qx "SLURM_JOB_NODELIST=comp\\[001-003\\]" $PD/eenv.$id.$n || return 1
	done &&
	sleep 1 &&
	for n in comp001 comp002 comp003; do
		test "$(runs e $id $n)" = 1 || return 1
	done &&
	! ls "$CL"/spool/*/prolog.$id 2>/dev/null
'

test_expect_success 'a step that does not reach a node runs no Prolog there' '
	id=$(sbatch --parsable -N3 -D /tmp -o /dev/null --wrap="srun -N1 true") &&
	wait_job_state $id COMPLETED 30 &&
	test "$(runs p $id comp001)" = 1 &&
	test "$(runs p $id comp002)" = 0 &&
	test "$(runs p $id comp003)" = 0 &&
	wait_for 10 ran 1 e $id comp001 &&
	sleep 1 &&
	test "$(runs e $id comp002)" = 0
'

test_expect_success USERS 'srun alone: the Prolog and Epilog on each of its nodes, as its user' '
	runuser -u alice -- srun -N2 -w comp[002-003] -D /tmp sh -c "echo \$SLURM_JOB_ID" >out &&
	id=$(head -1 out) &&
	test "$(runs p $id comp002)" = 1 &&
	test "$(runs p $id comp003)" = 1 &&
	test "$(runs p $id comp001)" = 0 &&
	grep -qx "SLURM_JOB_USER=alice" $PD/penv.$id.comp003 &&
	grep -qx "SLURM_JOB_UID=$(id -u alice)" $PD/penv.$id.comp003 &&
	grep -qx "SLURM_JOB_NODELIST=comp\\[002-003\\]" $PD/penv.$id.comp003 &&
	wait_for 15 ran 1 e $id comp002 &&
	wait_for 15 ran 1 e $id comp003
'

test_expect_success 'salloc: the Prolog at the first step on each node, the Epilog at the end' '
	salloc -N2 -w comp[001-002] sh -c "srun -N2 true; srun -N2 true; echo \$SLURM_JOB_ID >$PD/salloc.id" &&
	id=$(cat $PD/salloc.id) &&
	test "$(runs p $id comp001)" = 1 &&
	test "$(runs p $id comp002)" = 1 &&
	wait_for 15 ran 1 e $id comp001 &&
	wait_for 15 ran 1 e $id comp002
'

test_expect_success 'a Prolog failing on one node: srun fails, that node alone is drained' '
	touch $PD/fail.comp003 &&
	test_must_fail srun -N3 -D /tmp true 2>err &&
	cat err &&
	grep -q "srun: error: Task launch for StepId=[0-9]*.0 failed on node comp003: Job prolog failed" err &&
	wait_for 10 test_node_state comp003 drained &&
	sinfo -h -R -o "%E|%N" | grep -qx "Prolog error|comp003" &&
	test_node_state comp001 idle &&
	test_node_state comp002 idle &&
	rm -f $PD/fail.comp003 &&
	scontrol update nodename=comp003 state=resume
'

test_expect_success 'a batch job whose step hits a failing Prolog is requeued held' '
	touch $PD/fail.comp002 &&
	id=$(sbatch --parsable -N2 -w comp[001-002] -D /tmp -o /dev/null \
		--wrap="srun -N2 true; sleep 30") &&
	wait_for 20 test_node_state comp002 drained &&
	wait_for 10 sh -c "squeue -h -j $id -o %R | grep -qx \"(launch failed requeued held)\"" &&
	test "$(job_field $id Restarts)" = 1 &&
	sinfo -h -R -o "%E|%N" | grep -qx "Prolog error|comp002" &&
	wait_for 15 ran 1 e $id comp001 &&
	rm -f $PD/fail.comp002 &&
	scancel $id &&
	scontrol update nodename=comp002 state=resume
'

rm -rf "$PD"
test_done
