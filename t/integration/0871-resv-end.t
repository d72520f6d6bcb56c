#!/bin/bash
test_description='advance reservations: the end of one (jobs held), repeating ones roll on, scancel --reservation, sacct Reservation'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v sqlite3 >/dev/null && test_set_prereq SQLITE3

test_expect_success 'cluster starts' '
	cluster_start 2
'

resv_gone() { ! scontrol show res "$1" >/dev/null 2>&1; }
resv_moved() { scontrol show res "$1" >moved && ! grep -q "StartTime=$2 " moved; }

test_expect_success 'scancel --reservation cancels only the jobs in it' '
	scontrol create reservation ReservationName=r1 StartTime=now+1hour Duration=60 Nodes=comp001 Users=root >out &&
	a=$(sbatch --parsable -H --reservation=r1 -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scancel --reservation=r1 &&
	wait_job_state $a CANCELLED &&
	test_job_state $b PENDING &&
	scancel $b &&
	sacct -n -X -P -j $a -o JobID,Reservation >out &&
	echo "$a|r1" >expect && test_cmp expect out &&
	scontrol delete reservation r1
'

test_expect_success SQLITE3 'sacct ReservationId: the id of the job'"'"'s reservation, blank for none' '
	scontrol create reservation ReservationName=r2 StartTime=now+1hour Duration=60 Nodes=comp001 Users=root >out &&
	rid=$(sqlite3 -readonly "$CL/state/sluice.db" "SELECT resv_id FROM resvs WHERE name=\"r2\"") &&
	test -n "$rid" &&
	a=$(sbatch --parsable -H --reservation=r2 -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scancel $a $b &&
	wait_job_state $a CANCELLED && wait_job_state $b CANCELLED &&
	scontrol delete reservation r2 &&
	sacct -n -X -P -j $a,$b -o JobID,Reservation,ReservationId >out &&
	printf "%s\n" "$a|r2|$rid" "$b||" >expect && test_cmp expect out &&
	sacct -n -X -j $a -o ReservationId >out &&
	printf "%8s \n" "$rid" >expect && test_cmp expect out &&
	sacct -X -j $a --json >out.json &&
	python3 -c "import json,sys; r=json.load(open(\"out.json\"))[\"jobs\"][0][\"reservation\"]; sys.exit(r != {\"id\": $rid, \"name\": \"r2\"})"
'

test_expect_success 'a reservation that ends is removed; its pending jobs lose it and are held' '
	b=$(sbatch --parsable -w comp001 --exclusive -o /dev/null --wrap="sleep 300") &&
	wait_job_state $b RUNNING &&
	scontrol create reservation ReservationName=short StartTime=now EndTime=now+4 Nodes=comp001 Users=root Flags=IGNORE_JOBS >out &&
	id=$(sbatch --parsable -w comp001 -t 1 --reservation=short -o /dev/null --wrap=true) &&
	test "$(job_field $id Reservation)" = short &&
	wait_for 20 resv_gone short &&
	wait_for 10 test_reason $id JobHeldAdmin &&
	scontrol show job $id >out && ! grep -q "Reservation=" out &&
	scontrol show res >out && echo "No reservations in the system" >expect && test_cmp expect out &&
	scancel $id $b
'

test_expect_success 'a DAILY one rolls to the next day instead' '
	scontrol create reservation ReservationName=daily StartTime=now EndTime=now+4 Nodes=comp002 Users=root Flags=DAILY >out &&
	start=$(scontrol show res daily | sed -n "s/.*StartTime=\([^ ]*\).*/\1/p") &&
	wait_for 20 resv_moved daily "$start" &&
	next=$(scontrol show res daily | sed -n "s/.*StartTime=\([^ ]*\).*/\1/p") &&
	test "$(date -d "$next" +%s)" = "$(( $(date -d "$start" +%s) + 86400 ))" &&
	sqlite3 "$CL/state/sluice.db" "SELECT count(*) FROM acct_resv WHERE name = '\''daily'\''" >out &&
	echo 2 >expect && test_cmp expect out &&
	scontrol delete reservation daily
'

test_expect_success 'sdiag counts the reservation RPCs under Slurm names' '
	sdiag >out &&
	grep -q "REQUEST_CREATE_RESERVATION  *( 3006) count:[1-9]" out &&
	grep -q "REQUEST_DELETE_RESERVATION  *( 3008) count:[1-9]" out &&
	grep -q "REQUEST_RESERVATION_INFO  *( 2024) count:[1-9]" out
'

test_expect_success 'a reconfigure that renumbers the nodes keeps each reservation on its nodes' '
	scontrol create reservation ReservationName=keep StartTime=now Duration=60 Nodes=comp002 Users=root >out &&
	sed -i "/^NodeName=comp001 /d; s/comp\[001-002\]/comp002/g" "$CL/etc/slurm.conf" &&
	printf "AutoDetect=off\nNodeName=comp002 Name=gpu Type=h100 Count=8\n" >"$CL/etc/gres.conf" &&
	echo "SwitchName=leaf2 Nodes=comp002" >"$CL/etc/topology.conf" &&
	scontrol reconfigure &&
	scontrol show res keep | grep -q "Nodes=comp002 NodeCnt=1 " &&
	scontrol show node comp002 | grep -q "State=IDLE+RESERVED " &&
	ctld_kill9 && ctld_start &&
	scontrol show res keep | grep -q "Nodes=comp002 NodeCnt=1 " &&
	scontrol delete reservation keep
'

test_done
