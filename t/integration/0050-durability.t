#!/bin/bash
test_description='no acknowledged job is lost to kill -9 of the controller'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The controller runs as a real daemon (no -D) in this script.
export CTLD_DAEMON=1

test_expect_success 'cluster starts' '
	cluster_start 1
'

test_expect_success '200 held submits, kill -9 right after the last: none lost' '
	: >ids &&
	for i in $(seq 1 200); do sbatch --parsable -H -o /dev/null --wrap=true >>ids || return 1; done &&
	ctld_kill9 &&
	ctld_start &&
	squeue -h -t PD -o "%i" | sort -n >after &&
	sort -n ids >before &&
	test_cmp before after
'

test_expect_success 'job ids are not reused after the crash' '
	last=$(sort -n ids | tail -1) &&
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	test "$id" -gt "$last"
'

# A deterministic crash between commit and reply (SLUICE_FAULT, test
# only): the controller _exits right after committing the turn that holds
# the 40th accepted submission, before that turn's replies go out.
test_expect_success 'concurrent submitters, crash between commit and reply: acknowledged means committed' '
	squeue -h -o "%i" | sort >known &&
	kill $CTLD_PID && wait_gone $CTLD_PID &&
	SLUICE_FAULT=crash-after-submit:40 ctld_start &&
	for s in 1 2 3 4; do
		( for i in $(seq 1 30); do sbatch --parsable -H -o /dev/null --wrap=true || break; done >ack.$s 2>err.$s ) &
	done &&
	wait_gone $CTLD_PID &&
	wait &&
	grep -q "SLUICE_FAULT: crashing after the commit of submission 40" "$CL/log/ctld.log" &&
	cat ack.1 ack.2 ack.3 ack.4 | sort >acked &&
	test $(wc -l <acked) -lt 40 &&
	ctld_start &&
	squeue -h -t PD -o "%i" | sort >all &&
	comm -23 all known >after &&
	comm -23 acked after >lost &&
	test_must_be_empty lost &&
	comm -13 acked after >unacked &&
	test -s unacked &&
	test $(wc -l <after) -ge 40
'

test_expect_success 'job updates (nice, name, comment, partition) survive kill -9' '
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scontrol update jobid=$id nice=77 jobname=renamed comment=kept partition=short &&
	ctld_kill9 &&
	ctld_start &&
	test "$(job_field $id Nice)" = 77 &&
	test "$(job_field $id JobName)" = renamed &&
	test "$(job_field $id Comment)" = kept &&
	test "$(job_field $id Partition)" = short &&
	scancel $id
'

test_done
