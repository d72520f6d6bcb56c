#!/bin/bash
test_description='advance reservations in scheduling, as Slurm 22.05: jobs outside one kept off
its nodes (active, starting before their time limit ends, any to come without a limit), jobs in
one confined to its nodes and window (Reason=Reservation before it), the reasons Slurm prints
(docs/reasons.md); the core rules are t/unit/test_sched_resv.c'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

reason_is() { [ "$(squeue -h -t all -j "$1" -o %r)" = "$2" ]; }
wait_reason() {
	wait_for 10 reason_is "$1" "$2" || {
		echo "job $1: wanted reason '$2', got '$(squeue -h -t all -j "$1" -o %r)'"
		return 1
	}
}
sub() { sbatch --parsable -o /dev/null "$@" --wrap="sleep 300"; }
nodes_of() { squeue -h -j "$1" -o %N; }

test_expect_success 'cluster: 4 nodes; partition p3 holds comp003 alone' '
	cluster_start 4 "PartitionName=p3 Nodes=comp003 MaxTime=INFINITE"
'

# The controller side of reservations (scontrol create reservation) is
# another part of the work: without it there is nothing to drive here.
if scontrol create reservation ReservationName=rs_probe StartTime=now+10days Duration=1 \
	Nodes=comp004 Users=root >/dev/null 2>&1; then
	scontrol delete reservation rs_probe >/dev/null 2>&1
	test_set_prereq RESV
fi

test_expect_success RESV 'an active reservation keeps its nodes from other jobs' '
	scontrol create reservation ReservationName=rs_a StartTime=now Duration=60 \
		Nodes=comp[001-002] Users=root &&
	big=$(sub -N 3 -t 5) && wn=$(sub -w comp001 -t 5) && ok=$(sub -N 2 --exclusive -t 5) &&
	wait_reason $big "ReqNodeNotAvail, May be reserved for other job" &&
	wait_reason $wn "ReqNodeNotAvail, May be reserved for other job" &&
	wait_job_state $ok RUNNING && test "$(nodes_of $ok)" = "comp[003-004]" &&
	scancel $big $wn $ok
'

test_expect_success RESV 'a job in it runs on its nodes only' '
	wait_for 20 sh -c "test -z \"\$(squeue -h -t R)\"" &&
	in=$(sub --reservation=rs_a -N 2 --exclusive -t 5) &&
	wait_job_state $in RUNNING && test "$(nodes_of $in)" = "comp[001-002]" &&
	scancel $in
'

test_expect_success RESV 'a future reservation: jobs whose time limit would reach it wait, shorter ones run' '
	scontrol create reservation ReservationName=rs_f StartTime=now+30minutes Duration=30 \
		Nodes=comp[003-004] Users=root &&
	long=$(sub -w comp003 -t 60) && short=$(sub -w comp004 -t 10) &&
	inf=$(sub -p defq -w comp003 -t UNLIMITED) &&
	wait_reason $long "ReqNodeNotAvail, May be reserved for other job" &&
	wait_reason $inf "ReqNodeNotAvail, May be reserved for other job" &&
	wait_job_state $short RUNNING &&
	scancel $long $short $inf
'

test_expect_success RESV 'a job in a reservation that has not started: Reason=Reservation' '
	fut=$(sub --reservation=rs_f -N 1 -t 5) &&
	wait_reason $fut Reservation && test "$(job_state $fut)" = PENDING &&
	scontrol show job $fut | grep -q " Reason=Reservation " &&
	scancel $fut
'

test_expect_success RESV 'a MAINT reservation over a whole partition: Reserved for maintenance' '
	scontrol create reservation ReservationName=rs_m StartTime=now+2hours Duration=60 \
		Nodes=comp003 Users=root Flags=MAINT &&
	m=$(sub -p p3 -t 180) &&
	wait_reason $m "ReqNodeNotAvail, Reserved for maintenance" &&
	scancel $m
'

test_expect_success RESV 'a job its reservation can never hold is refused at submit' '
	test_expect_code 1 sbatch --reservation=rs_a -N 3 -o /dev/null --wrap=true 2>err &&
	grep -q "Requested node configuration is not available" err
'

test_done
