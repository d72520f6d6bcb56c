#!/bin/bash
test_description='TaskProlog and TaskEpilog run as the user around each task:
the lines TaskProlog prints (export NAME=value, unset NAME, print text) change
the task environment and output as in Slurm, for batch scripts and srun tasks'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

PD=$(mktemp -d /tmp/sluice-pe.XXXXXX)
chmod 755 "$PD"

test_expect_success 'cluster starts with a TaskProlog and a TaskEpilog' '
	cat >"$PD/task_prolog" <<-EOF &&
	#!/bin/sh
	echo "export PE_FOO=bar baz"
	echo "export PE_ID=\$(id -u)"
	echo "unset PE_GONE"
	echo "print hello from the task prolog of \$SLURM_JOB_ID"
	echo "something else is ignored"
	EOF
	cat >"$PD/task_epilog" <<-EOF &&
	#!/bin/sh
	id -u >"$PD/epilog.\$SLURM_JOB_ID"
	EOF
	chmod 755 "$PD/task_prolog" "$PD/task_epilog" &&
	chmod 1777 "$PD" &&
	cluster_start 1 "TaskProlog=$PD/task_prolog" "TaskEpilog=$PD/task_epilog"
'

test_expect_success USERS 'a batch script sees what the TaskProlog exported, not what it unset' '
	cd "$CL/work" && chmod 777 . &&
	id=$(PE_GONE=1 runuser -u alice -- sbatch --parsable -o b.out \
		--wrap="echo FOO=\$PE_FOO; echo ID=\$PE_ID; echo GONE=\${PE_GONE-unset}") &&
	wait_job_state $id COMPLETED &&
	cat b.out &&
	head -1 b.out | grep -qx "hello from the task prolog of $id" &&
	grep -qx "FOO=bar baz" b.out &&
	grep -qx "ID=$(id -u alice)" b.out &&
	grep -qx "GONE=unset" b.out &&
	! grep -q "something else" b.out &&
	wait_for 10 test -s "$PD/epilog.$id" &&
	test "$(cat $PD/epilog.$id)" = "$(id -u alice)"
'

test_expect_success 'srun tasks get the TaskProlog too' '
	cd "$CL/work" &&
	PE_GONE=1 srun -n2 sh -c "echo FOO=\$PE_FOO GONE=\${PE_GONE-unset}" >s.out &&
	cat s.out &&
	test "$(grep -c "^FOO=bar baz GONE=unset$" s.out)" = 2 &&
	test "$(grep -c "^hello from the task prolog of" s.out)" = 2
'

test_expect_success 'SrunProlog runs before the step with its command as arguments, SrunEpilog after' '
	cd "$CL/work" &&
	printf "#!/bin/sh\necho \"prolog \$SLURM_JOB_ID \$*\" >>$PD/srun.log\ntest -e $PD/sfail && exit 5\nexit 0\n" >$PD/srun_prolog &&
	printf "#!/bin/sh\necho \"epilog \$*\" >>$PD/srun.log\n" >$PD/srun_epilog &&
	chmod 755 $PD/srun_prolog $PD/srun_epilog &&
	echo "SrunProlog=$PD/srun_prolog" >>"$SLURM_CONF" &&
	echo "SrunEpilog=$PD/srun_epilog" >>"$SLURM_CONF" &&
	srun -n1 sh -c "echo task >>$PD/srun.log" &&
	sed "s/prolog [0-9]* /prolog N /" $PD/srun.log >got &&
	printf "prolog N sh -c echo task >>$PD/srun.log\ntask\nepilog sh -c echo task >>$PD/srun.log\n" >want &&
	test_cmp want got
'

test_expect_success 'a failing SrunProlog aborts the step: the command never runs' '
	touch $PD/sfail && rm -f $PD/srun.log &&
	test_expect_code 1 srun -n1 touch $PD/ran 2>err &&
	grep -q "srun prolog failed rc = 5. Aborting step." err &&
	! test -e $PD/ran &&
	rm -f $PD/sfail
'

rm -rf "$PD"
test_done
