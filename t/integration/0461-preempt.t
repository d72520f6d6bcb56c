#!/bin/bash
test_description='preemption by QOS (PreemptType=preempt/qos): cancel and requeue'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# Jobs of alice and bob: root and the test users (t/setup-users.sh).
if ! test_have_prereq USERS; then
	skip_all='needs root and the users alice and bob'
	test_done
fi

sub() { runuser -u alice -- sbatch --parsable -D /tmp -o /dev/null "$@"; }

# One node of 8 CPUs.
test_expect_success 'cluster with preempt/qos (CANCEL); QOS high may preempt low' '
	cluster_start 1 "AccountingStorageEnforce=associations,limits,qos" \
		"PreemptType=preempt/qos" "PreemptMode=CANCEL" \
		"PriorityType=priority/multifactor" "PriorityWeightQOS=1000" &&
	sacctmgr -i add qos low >/dev/null &&
	sacctmgr -i add qos high Priority=100 Preempt=low >/dev/null &&
	sacctmgr -i add account lab >/dev/null &&
	sacctmgr -i add user alice account=lab qos=normal,low,high >/dev/null
'

test_expect_success 'a high job takes the node of the younger low job, which ends PREEMPTED' '
	l1=$(sub -A lab -q low -n 4 --wrap="sleep 300") &&
	wait_job_state $l1 RUNNING &&
	l2=$(sub -A lab -q low -n 4 --wrap="sleep 300") &&
	wait_job_state $l2 RUNNING &&
	h1=$(sub -A lab -q high -n 4 --wrap="sleep 300") &&
	wait_job_state $h1 RUNNING 30 &&
	test_job_state $l2 PREEMPTED &&
	test_job_state $l1 RUNNING
'

test_expect_success 'a normal job preempts nothing' '
	n1=$(sub -A lab -q normal -n 4 --wrap="sleep 300") &&
	wait_for 10 test_reason $n1 Resources &&
	test_job_state $l1 RUNNING &&
	scancel $n1
'

test_expect_success 'PreemptMode=requeue on the low QOS: the victim goes back to PENDING' '
	sacctmgr -i modify qos low set PreemptMode=requeue >/dev/null &&
	h2=$(sub -A lab -q high -n 4 --wrap="sleep 300") &&
	wait_job_state $h2 RUNNING 30 &&
	wait_job_state $l1 PENDING &&
	test "$(job_field $l1 Restarts)" = 1 &&
	test_job_state $h1 RUNNING
'

test_expect_success 'sprio: the QOS factor of a pending high job is its Priority over the highest' '
	h3=$(sub -A lab -q high -n 4 --wrap="sleep 300") &&
	wait_for 10 test_reason $h3 Resources &&
	test "$(sprio -h -j$h3 -o %Q | tr -d " ")" = 1000 &&
	test "$(squeue -h -j $h3 -o %q)" = high &&
	scancel $h3
'

test_expect_success 'the requeued job runs again once the node is free' '
	scancel $h1 $h2 &&
	wait_job_state $l1 RUNNING 60 &&
	scancel $l1
'

test_done
