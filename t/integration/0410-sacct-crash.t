#!/bin/bash
test_description='kill -9 of the controller during a storm of job ends: sacct and squeue agree'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# "ID STATE" of every job, from the queue and from the records
queue_states() { squeue -h -t all -o "%i %T" | sort -n; }
acct_states() { sacct -a -X -n -P -S 1970-01-01 -o JobID,State | tr '|' ' ' | sed 's/ by [0-9]*$//' | sort -n; }
all_ended() { ! squeue -h -t PD,R,CG -o %i | grep -q .; }

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'jobs ending while the controller is killed have records that match the queue' '
	cd "$CL/work" &&
	for i in $(seq 1 40); do
		sbatch --parsable -o /dev/null --wrap="sleep 0.$((RANDOM % 9 + 1)); exit $((i % 3))" || return 1
	done >ids &&
	wait_for 30 sh -c "test \$(squeue -h -t CD,F -o %i | wc -l) -ge 5" &&
	ctld_kill9 && ctld_start &&
	wait_for 20 sh -c "test \$(squeue -h -t CD,F -o %i | wc -l) -ge 20" &&
	ctld_kill9 && ctld_start &&
	wait_for 60 all_ended &&
	queue_states >queue &&
	acct_states >acct &&
	test $(wc -l <queue) = 40 &&
	test_cmp queue acct
'

test_expect_success 'exit codes agree too' '
	for id in $(cat "$CL/work/ids"); do
		q=$(job_field $id ExitCode) && a=$(sacct -X -n -P -j $id -o ExitCode) &&
		test "$q" = "$a" || { echo "job $id: queue $q, record $a"; return 1; }
	done
'

test_expect_success 'a query that the client gives up on leaves the controller serving' '
	for i in 1 2 3; do timeout -s KILL 0.01 sacct -a -S 1970-01-01 >/dev/null 2>&1; done;
	scontrol ping && test "$(sacct -a -X -n -S 1970-01-01 | wc -l)" = 40
'

test_done
