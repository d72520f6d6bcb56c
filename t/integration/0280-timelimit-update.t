#!/bin/bash
test_description='scontrol update TimeLimit of a running job reaches the
supervisor that enforces it: extended jobs outlive the old limit, reduced
ones end TIMEOUT at the new one, also when the node daemon missed the update'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

epoch() { date -d "$(job_field $1 $2)" +%s; }

# Time limits are whole minutes: the three jobs run side by side so the
# script takes a little over one minute.
test_expect_success 'three running jobs: one extended, one reduced, one reduced while noded is down' '
	cd "$CL/work" &&
	a=$(sbatch --parsable -t 1 -o a.out --wrap="sleep 300") &&
	b=$(sbatch --parsable -t 5 -o b.out --wrap="sleep 300") &&
	c=$(sbatch --parsable -t 5 -o c.out --wrap="sleep 300") &&
	echo "$a $b $c" >ids &&
	for j in $a $b $c; do
		wait_job_state $j RUNNING && wait_for 10 job_launched $j || return 1
	done &&
	scontrol update jobid=$a timelimit=3 &&
	scontrol update jobid=$b timelimit=1 &&
	test "$(job_field $a TimeLimit)" = 00:03:00 &&
	test $(( $(epoch $a EndTime) - $(epoch $a StartTime) )) = 180 &&
	test "$(job_field $b TimeLimit)" = 00:01:00 &&
	test $(( $(epoch $b EndTime) - $(epoch $b StartTime) )) = 60 &&
	noded_kill comp001 KILL &&
	scontrol update jobid=$c timelimit=1 &&
	noded_start comp001 &&
	wait_for 20 test_node_state comp001 mixed
'

test_expect_success 'the reduced jobs end TIMEOUT at their new limit' '
	cd "$CL/work" && read a b c <ids &&
	wait_job_state $b TIMEOUT 100 && wait_job_state $c TIMEOUT 30 &&
	for j in $b $c; do
		run=$(( $(epoch $j EndTime) - $(epoch $j StartTime) )) &&
		echo "job $j ran ${run}s" &&
		test $run -ge 60 && test $run -le 75 || return 1
	done &&
	grep -q "DUE TO TIME LIMIT" b.out && grep -q "DUE TO TIME LIMIT" c.out
'

test_expect_success 'the extended job is still running past its old limit' '
	cd "$CL/work" && read a b c <ids &&
	start=$(epoch $a StartTime) &&
	wait_for 30 sh -c "test \$(date +%s) -ge $((start + 70))" &&
	test_job_state $a RUNNING &&
	! grep -q "DUE TO TIME LIMIT" a.out &&
	scancel $a && wait_job_state $a CANCELLED
'

test_done
