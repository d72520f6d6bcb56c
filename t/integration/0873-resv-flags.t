#!/bin/bash
test_description='advance reservations: the flags of Slurm 22.05 (HOURLY, STATIC_ALLOC, REPLACE, REPLACE_DOWN, NO_HOLD_JOBS_AFTER_END), nodes replaced when they fail, NodeCnt beyond the partition'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 3
'

resv_nodes() { scontrol show res "$1" | sed -n "s/.* Nodes=\([^ ]*\) .*/\1/p"; }
nodes_are() { test "$(resv_nodes "$1")" = "$2"; }

test_expect_success 'flag combinations refused, with the reason' '
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 NodeCnt=1 Users=root Flags=WEEKDAY,WEEKEND 2>err &&
	printf "Error creating the reservation: Requested operation not supported on this system\nReservation has multiple reoccurring flags. Please specify only one reoccurring flag\n" >expect &&
	test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp001 Users=root Flags=REPLACE 2>err &&
	echo "Error creating the reservation: Invalid node name specified" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 NodeCnt=1 Users=root Flags=FLEX 2>err &&
	printf "Error creating the reservation: Requested operation not supported on this system\nFlags=FLEX: not supported by Sluice\n" >expect &&
	test_cmp expect err &&
	scontrol show res >out && echo "No reservations in the system" >expect && test_cmp expect out
'

test_expect_success 'NodeCnt beyond the partition: as many nodes as it has (Slurm 22.05)' '
	scontrol create reservation ReservationName=big StartTime=now+1hour Duration=60 NodeCnt=9 Users=root >out &&
	echo "Reservation created: big" >expect && test_cmp expect out &&
	scontrol show res big | grep -q " Nodes=comp\[001-003\] NodeCnt=3 " &&
	scontrol delete reservation big
'

test_expect_success 'flag names as Slurm prints them' '
	scontrol create reservation ReservationName=f StartTime=now+1hour Duration=60 NodeCnt=1 Users=root Flags=STATIC_ALLOC,HOURLY,NO_HOLD_JOBS_AFTER >out &&
	scontrol show res f | grep -q " Flags=HOURLY,STATIC,NO_HOLD_JOBS_AFTER_END$" &&
	scontrol update ReservationName=f Flags=-STATIC_ALLOC,-HOURLY >out &&
	scontrol show res f | grep -q " Flags=NO_HOLD_JOBS_AFTER_END$" &&
	scontrol delete reservation f &&
	scontrol create reservation ReservationName=all StartTime=now+1hour Duration=60 Nodes=ALL Users=root Flags=MAINT >out &&
	scontrol show res all | grep -q " Flags=MAINT,SPEC_NODES,ALL_NODES$" &&
	scontrol delete reservation all
'

test_expect_success USERS 'Users+=, Users-=, Flags+=, Duration+= (as Slurm 22.05)' '
	scontrol create reservation ReservationName=e StartTime=now+1hour Duration=60 NodeCnt=1 Users=root >out &&
	scontrol update ReservationName=e Users+=alice >out &&
	echo "Reservation updated." >expect && test_cmp expect out &&
	scontrol show res e | grep -q " Users=root,alice " &&
	scontrol update ReservationName=e Users-=root Flags+=DAILY Duration+=10 >out &&
	scontrol show res e >out &&
	grep -q " Users=alice " out && grep -q " Flags=DAILY$" out && grep -q " Duration=01:10:00$" out &&
	scontrol update ReservationName=e Flags-=DAILY &&
	scontrol show res e | grep -q " Flags=$" &&
	test_expect_code 1 scontrol update ReservationName=e Users-=alice 2>err &&
	printf "Error updating the reservation: Reservation request lacks users, groups or accounts\nslurm_update error: Reservation request lacks users, groups or accounts\n" >expect &&
	test_cmp expect err &&
	test_expect_code 1 scontrol update ReservationName=e nodecnt+=1 2>err &&
	printf "scontrol: error: The +=/-= notation is not supported when updating nodecnt.  No reservation update.\nslurm_update error: No error\n" >expect &&
	test_cmp expect err &&
	scontrol delete reservation e
'

test_expect_success 'a node that goes down is replaced by an idle one; STATIC_ALLOC keeps it' '
	scontrol create reservation ReservationName=r StartTime=now Duration=30 NodeCnt=1 Users=root >out &&
	nodes_are r comp001 &&
	scontrol create reservation ReservationName=s StartTime=now Duration=30 NodeCnt=1 Users=root Flags=STATIC_ALLOC >out &&
	nodes_are s comp002 &&
	scontrol update NodeName=comp001,comp002 State=DOWN Reason=testing &&
	wait_for 20 nodes_are r comp003 &&
	scontrol show node comp003 | grep -q "State=IDLE+RESERVED " &&
	sleep 6 && nodes_are s comp002 &&
	scontrol delete reservation r && scontrol delete reservation s &&
	scontrol update NodeName=comp001,comp002 State=RESUME &&
	wait_for 20 sh -c "scontrol show node comp001 | grep -q State=IDLE" &&
	wait_for 20 sh -c "scontrol show node comp002 | grep -q State=IDLE"
'

resv_gone() { ! scontrol show res "$1" >/dev/null 2>&1; }
test_expect_success 'PURGE_COMP: removed once it has had no job for its time' '
	scontrol create reservation ReservationName=pc StartTime=now Duration=30 NodeCnt=1 Users=root Flags=PURGE_COMP=0:05 >out &&
	scontrol show res pc | grep -q " Flags=PURGE_COMP=00:00:05$" &&
	id=$(sbatch --parsable --reservation=pc -o /dev/null --wrap="sleep 12") &&
	wait_job_state $id RUNNING &&
	sleep 8 && scontrol show res pc >/dev/null &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 30 resv_gone pc &&
	grep -q "reservation pc purged: no job for 5 s (PURGE_COMP)" "$CL"/log/ctld.*
'

resv_has() { scontrol show hostnames "$(resv_nodes "$1")" | grep -qx "$2"; }
resv_lacks() { ! resv_has "$@"; }
test_expect_success 'REPLACE: the node a job of the reservation takes is replaced' '
	wait_for 20 nodes_idle &&
	scontrol create reservation ReservationName=p StartTime=now Duration=30 NodeCnt=2 Users=root Flags=REPLACE >out &&
	scontrol show res p | grep -q " NodeCnt=2 " &&
	id=$(sbatch --parsable --reservation=p -N1 -o /dev/null --wrap="sleep 60") &&
	wait_job_state $id RUNNING &&
	on=$(squeue -h -j $id -o %N) &&
	resv_has p $on &&
	wait_for 20 resv_lacks p $on &&
	scontrol show res p | grep -q " NodeCnt=2 " &&
	scancel $id && wait_job_state $id CANCELLED &&
	scontrol delete reservation p
'

test_done
