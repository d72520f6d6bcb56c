#!/bin/bash
test_description='Prolog and Epilog on the node as Slurm runs them: globs in
name order stopping at the first failure, the environment Slurm gives them and
nothing of the daemon, a failing or timed-out prolog drains the node ("Prolog
error") and requeues the job held ("launch failed requeued held"), a failing
epilog drains the node ("Epilog error")'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The scripts live outside the trash directory (its name has a blank) and
# are rewritten between tests: each run reads them afresh.
PD=$(mktemp -d /tmp/sluice-pe.XXXXXX)
chmod 755 "$PD"
mkdir -p "$PD/prolog.d" "$PD/epilog.d"

script() { # script PATH BODY: an executable sh script
	printf '#!/bin/sh\n%s\n' "$2" >"$1" && chmod 755 "$1"
}

test_expect_success 'cluster starts with Prolog and Epilog globs' '
	script "$PD/prolog.d/10-env" "env >$PD/env.\$SLURM_JOB_ID; ls -l /proc/\$\$/fd >$PD/fd.\$SLURM_JOB_ID; echo 10 >>$PD/order.\$SLURM_JOB_ID" &&
	script "$PD/prolog.d/20-fail" "test -e $PD/fail && exit 3; test -e $PD/hang && sleep 60; echo 20 >>$PD/order.\$SLURM_JOB_ID; exit 0" &&
	script "$PD/prolog.d/30-last" "echo 30 >>$PD/order.\$SLURM_JOB_ID" &&
	script "$PD/epilog.d/10-env" "env >$PD/eenv.\$SLURM_JOB_ID; test -e $PD/efail && exit 1; exit 0" &&
	PE_DAEMON_SECRET=leak cluster_start 2 "Prolog=$PD/prolog.d/*" "Epilog=$PD/epilog.d/*" \
		"PrologEpilogTimeout=3"
'

test_expect_success USERS 'prologs run in name order with the job environment of Slurm, and no more' '
	id=$(runuser -u alice -- sbatch --parsable -w comp001 --gres=gpu:2 -A "" -D /tmp -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED &&
	echo "$(cat $PD/order.$id)" | tr "\n" " " >order &&
	test "$(cat order)" = "10 20 30 " &&
	e=$PD/env.$id &&
	grep -qx "SLURM_JOB_ID=$id" $e &&
	grep -qx "SLURM_JOB_USER=alice" $e &&
	grep -qx "SLURM_JOB_UID=$(id -u alice)" $e &&
	grep -qx "SLURM_JOB_GID=$(id -g alice)" $e &&
	grep -qx "SLURM_JOB_NODELIST=comp001" $e &&
	grep -qx "SLURM_JOB_PARTITION=defq" $e &&
	grep -qx "SLURM_CLUSTER_NAME=test" $e &&
	grep -qx "SLURM_SCRIPT_CONTEXT=prolog_slurmd" $e &&
	grep -qx "SLURMD_NODENAME=comp001" $e &&
	grep -qx "CUDA_VISIBLE_DEVICES=0,1" $e &&
	grep -qx "SLURM_JOB_GPUS=0,1" $e &&
	! grep -q PE_DAEMON_SECRET $e &&
	! grep -q "^PATH=" $e &&
	! grep -q "^HOME=" $e &&
	! grep -E "socket:|\\.log|slurm\\.key" $PD/fd.$id &&
	wait_for 10 test -s $PD/eenv.$id &&
	grep -qx "SLURM_SCRIPT_CONTEXT=epilog_slurmd" $PD/eenv.$id &&
	grep -qx "SLURM_JOB_ID=$id" $PD/eenv.$id &&
	test_node_state comp001 idle
'

test_expect_success 'what the submitter exports never reaches the prolog (root)' '
	id=$(CUDA_VISIBLE_DEVICES=7 SLURM_JOB_GPUS=7 SLURM_JOB_CONSTRAINTS=evil SLURM_JOB_ACCOUNT=evil \
		sbatch --parsable -w comp001 -D /tmp -o /dev/null --export=ALL --wrap=true) &&
	wait_job_state $id COMPLETED &&
	e=$PD/env.$id &&
	grep -qx "SLURM_JOB_ID=$id" $e &&
	! grep -q "=7$" $e &&
	! grep -q evil $e
'

test_expect_success 'a failing prolog stops the glob, drains the node and requeues the job held' '
	touch $PD/fail &&
	id=$(sbatch --parsable -w comp002 -D /tmp -o /dev/null --wrap="touch $PD/ran.\$SLURM_JOB_ID") &&
	echo $id >failed_id &&
	wait_for 20 test_node_state comp002 drained &&
	wait_for 10 sh -c "squeue -h -j $id -o %R | grep -qx \"(launch failed requeued held)\"" &&
	test "$(job_state $id)" = PENDING &&
	test "$(job_field $id Reason)" = launch_failed_requeued_held &&
	test "$(job_field $id Restarts)" = 1 &&
	test "$(job_field $id Priority)" = 0 &&
	sinfo -h -R -o "%E|%N" >reasons &&
	grep -qx "Prolog error|comp002" reasons &&
	test "$(cat $PD/order.$id)" = 10 &&
	! test -e $PD/ran.$id &&
	scontrol show node comp002 | grep -q "Reason=Prolog error \\[" &&
	grep -q "prolog failed: $PD/prolog.d/20-fail exited with status 3" "$CL"/log/noded-comp002.*
'

test_expect_success 'released and with the node resumed, the job runs' '
	id=$(cat failed_id) && rm -f $PD/fail &&
	scontrol update nodename=comp002 state=resume &&
	scontrol release $id &&
	wait_job_state $id COMPLETED 30 &&
	test -e $PD/ran.$id
'

test_expect_success 'a prolog past PrologEpilogTimeout is killed: drain and held requeue' '
	touch $PD/hang &&
	start=$(date +%s) &&
	id=$(sbatch --parsable -w comp002 -D /tmp -o /dev/null --wrap=true) &&
	wait_for 30 test_node_state comp002 drained &&
	rm -f $PD/hang &&
	test $(( $(date +%s) - start )) -lt 30 &&
	wait_for 10 sh -c "test \"\$(scontrol show job $id | tr \" \" \"\\n\" | sed -n s/^Reason=//p)\" = launch_failed_requeued_held" &&
	grep -q "20-fail timed out after 3s" "$CL"/log/noded-comp002.* &&
	! pgrep -f "$PD/prolog.d/20-fail" &&
	scancel $id && scontrol update nodename=comp002 state=resume
'

test_expect_success 'a failing epilog drains the node and the job ends as it ran' '
	touch $PD/efail &&
	id=$(sbatch --parsable -w comp001 -D /tmp -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 10 test_node_state comp001 drained &&
	sinfo -h -R -o "%E|%N" | grep -qx "Epilog error|comp001" &&
	rm -f $PD/efail &&
	scontrol update nodename=comp001 state=resume
'

rm -rf "$PD"
test_done
