#!/bin/bash
test_description='node states: drain, resume, down, not responding'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SLURMD_TIMEOUT=3
test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'LastBusyTime: set at registration, kept by a job start, moved when a job frees the node' '
	lb() { scontrol show node comp002 | sed -n "s/.*LastBusyTime=\([^ ]*\).*/\1/p"; } &&
	t0=$(lb) && test "$t0" != None &&
	sleep 1.2 &&
	j=$(sbatch --parsable -w comp002 -o /dev/null --wrap="sleep 2") &&
	wait_job_state $j RUNNING &&
	test "$(lb)" = "$t0" &&
	wait_job_state $j COMPLETED &&
	wait_for 10 sh -c "test \"\$(scontrol show node comp002 | sed -n \"s/.*LastBusyTime=\\([^ ]*\\).*/\\1/p\")\" != $t0"
'

test_expect_success 'drain an idle node: drained, with reason, user and time' '
	scontrol update nodename=comp002 state=drain reason="bad gpu: ECC errors" &&
	test_node_state comp002 drained &&
	sinfo -R >out &&
	head -1 out >actual &&
	echo "REASON               USER      TIMESTAMP           NODELIST" >expect &&
	test_cmp expect actual &&
	grep -Eq "^bad gpu: ECC errors  root      [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} comp002$" out &&
	scontrol show node comp002 | grep -q "State=IDLE+DRAIN " &&
	scontrol show node comp002 | grep -Eq "Reason=bad gpu: ECC errors \[root@[0-9T:-]+\]"
'

test_expect_success 'jobs do not start on a drained node' '
	id=$(sbatch --parsable -w comp002 -o /dev/null --wrap=true) &&
	wait_for 5 test_reason $id ReqNodeNotAvail &&
	scancel $id
'

test_expect_success 'a draining node finishes its job, then shows drained' '
	id=$(sbatch --parsable -w comp001 -o /dev/null --wrap="sleep 2") &&
	wait_job_state $id RUNNING &&
	scontrol update nodename=comp001 state=drain reason=maint &&
	test_node_state comp001 draining &&
	wait_job_state $id COMPLETED &&
	wait_for 5 test_node_state comp001 drained
'

test_expect_success 'resume clears drain and reason' '
	scontrol update nodename=comp[001-002] state=resume &&
	test_node_state comp001 idle && test_node_state comp002 idle &&
	test "$(sinfo -R -h | wc -l)" = 0
'

test_expect_success 'drain without a reason is refused' '
	test_must_fail scontrol update nodename=comp001 state=drain 2>err &&
	test -s err && test_node_state comp001 idle
'

test_expect_success 'a bad state is refused with Slurm text' '
	test_expect_code 1 scontrol update nodename=comp001 state=bogus 2>err &&
	compat_stderr err_scontrol_update_bad_state.txt >expect &&
	test_cmp expect err
'

test_expect_success 'an admin DOWN outlasts the heartbeats of a live node daemon (ReturnToService=2)' '
	scontrol update nodename=comp002 state=down reason=cabling &&
	sleep 3 &&
	test_node_state comp002 down &&
	scontrol show node comp002 | grep -q "Reason=cabling " &&
	scontrol update nodename=comp002 state=resume &&
	wait_for 10 test_node_state comp002 idle
'

test_expect_success 'state=down kills the node'"'"'s jobs (NODE_FAIL without requeue)' '
	id=$(sbatch --parsable --no-requeue -w comp002 -o /dev/null --wrap="sleep 60") &&
	wait_job_state $id RUNNING &&
	scontrol update nodename=comp002 state=down reason=broken &&
	wait_job_state $id NODE_FAIL &&
	test_node_state comp002 down &&
	scontrol update nodename=comp002 state=resume &&
	wait_for 10 test_node_state comp002 idle
'

test_expect_success 'a node daemon that stops becomes not responding, then down' '
	noded_kill comp002 KILL &&
	wait_for 10 test_node_state comp002 "idle*" &&
	wait_for 15 test_node_state comp002 "down*" &&
	noded_start comp002 &&
	wait_for 15 test_node_state comp002 idle
'

test_expect_success 'SIGHUP: the node daemon re-reads slurm.conf (SlurmdDebug), a broken one changes nothing' '
	pid=$(cat "$CL/noded-comp001.pid") &&
	cp "$CL/etc/slurm.conf" "$CL/etc/slurm.conf.good" &&
	echo "SlurmdDebug=debug" >>"$CL/etc/slurm.conf" &&
	kill -HUP $pid &&
	wait_for 10 grep -q "reconfigure: slurm.conf re-read (log level 5)" "$CL/log/noded-comp001.stderr" &&
	echo "NoSuchKey=1" >>"$CL/etc/slurm.conf" &&
	kill -HUP $pid &&
	wait_for 10 grep -q "reconfigure: config not applied" "$CL/log/noded-comp001.stderr" &&
	cp "$CL/etc/slurm.conf.good" "$CL/etc/slurm.conf" &&
	kill -0 $pid &&
	wait_for 10 test_node_state comp001 idle
'

test_expect_success 'unknown node: Slurm text and exit 1' '
	test_expect_code 1 scontrol show node comp999 >out &&
	compat_stdout err_scontrol_show_node_unknown.txt >expect &&
	test_cmp expect out
'

test_done
