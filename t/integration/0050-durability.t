#!/bin/bash
test_description='no acknowledged job is lost to kill -9 of the controller'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

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

test_expect_success 'concurrent submitters during a crash: every acknowledged id survives' '
	: >ack &&
	( for i in $(seq 1 300); do sbatch --parsable -H -o /dev/null --wrap=true 2>/dev/null || true; done >>ack ) &
	sub=$! &&
	sleep 0.5 &&
	ctld_kill9 &&
	wait $sub;
	ctld_start &&
	squeue -h -t PD -o "%i" | sort >after &&
	sort ack >acked &&
	test -s acked &&
	comm -23 acked after >lost &&
	test_must_be_empty lost
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
