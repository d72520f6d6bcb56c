#!/bin/bash
test_description='advance reservations in scheduling: a job in one runs on its nodes, others stay off them'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The scheduler core honours sched_t.resvs once the resvsched part is in
# (src/sched/); until then this script has nothing to check.
if grep -q "resvs" "$SHARNESS_TEST_DIRECTORY"/../../src/sched/sched_*.c 2>/dev/null; then
	test_set_prereq RESV_CORE
else
	skip_all='the scheduler core does not read sched_t.resvs yet (resvsched)'
	test_done
fi

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'a job in an active reservation runs on its node' '
	scontrol create reservation ReservationName=r StartTime=now Duration=60 Nodes=comp002 Users=root >out &&
	id=$(sbatch --parsable --reservation=r -o /dev/null --wrap="sleep 300") &&
	wait_job_state $id RUNNING &&
	test "$(job_field $id NodeList)" = comp002
'

test_expect_success 'a job outside it stays off the reserved node' '
	a=$(sbatch --parsable -N 2 -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -N 1 --exclusive -o /dev/null --wrap="sleep 300") &&
	wait_job_state $b RUNNING &&
	test "$(job_field $b NodeList)" = comp001 &&
	test_job_state $a PENDING &&
	scancel $a $b $id
'

test_expect_success 'a job in a future reservation waits for its start' '
	scontrol create reservation ReservationName=later StartTime=now+1hour Duration=60 Nodes=comp001 Users=root >out &&
	id=$(sbatch --parsable --reservation=later -o /dev/null --wrap=true) &&
	wait_for 10 test_reason $id Reservation &&
	scancel $id
'

test_done
