#!/bin/bash
test_description='sreport reservation Utilization over reservation and job records: Slurm 22.05 output byte for byte'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The records are written into the controller's state DB directly (what
# the controller writes when a reservation changes, contract above
# migrate_acct_resv in state_db.c), with the data of the capture from
# real Slurm (t/compat/sreport_reservation_Utilization*.txt): rr_x on
# comp[001-002] (128 CPUs) for 30 min, a job of 1 CPU for 30 s and one of
# 4 CPUs for 20 s. The record lists every TRES of its nodes, as the
# controller writes it; a Slurm reservation holds cpu alone, and the report
# shows only that. Times print in local time: UTC as in the capture.
command -v sqlite3 >/dev/null && test_set_prereq SQLITE3
export TZ=UTC
COMPAT=$SHARNESS_TEST_DIRECTORY/../compat
T0=$(date -d 2026-12-01T21:46:09Z +%s)
RANGE="start=2026-12-01T21:00 end=2026-12-01T22:00"

# expect FILE: the capture's stdout, cluster "cluster" named "test" here
expect() {
	sed -e 1d -e '/^--- stderr ---$/,$d' "$COMPAT/$1" | sed -e 's/^  cluster /     test /' -e 's/^cluster|/test|/'
}
db() { sqlite3 -cmd ".timeout 10000" "$CL/state/sluice.db" "$@"; }

test_expect_success SQLITE3 'cluster, and the records of a reservation and its jobs' '
	cluster_start 2 &&
	db "INSERT INTO acct_resv(resv_id, time_start, time_end, name, nodelist, node_count, tres,
	    flags, users) VALUES(10, $T0, $T0 + 1800, \"rr_x\", \"comp[001-002]\", 2,
	    \"cpu=128,mem=1024000M,node=2,billing=128,gres/gpu=16\",
	    \"SPEC_NODES\", \"root\");
	    INSERT INTO acct_job(job_id, reservation, submit, start, end, alloc_tres) VALUES
	    (9005, \"rr_x\", $T0, $T0 + 2, $T0 + 32, \"billing=1,cpu=1,mem=1G,node=1\"),
	    (9006, \"rr_x\", $T0, $T0 + 2, $T0 + 22, \"billing=4,cpu=4,mem=4G,node=2\");"
'

test_expect_success SQLITE3 'default view, minutes, and the banner' '
	sreport reservation utilization Names=rr_x $RANGE >out 2>err &&
	test_must_be_empty err &&
	expect sreport_reservation_Utilization.txt >want &&
	test_cmp want out
'

test_expect_success SQLITE3 '-t percent, hourper, seconds; -P -n' '
	sreport -t percent reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization_percent.txt >want && test_cmp want out &&
	sreport -t hourper reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization_hourper.txt >want && test_cmp want out &&
	sreport -t seconds reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization_seconds.txt >want && test_cmp want out &&
	sreport -t minutes -P -n reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization_P_n.txt >want && test_cmp want out
'

test_expect_success SQLITE3 'format= with every field (associations are ids; "Id" is Idle, as in Slurm)' '
	sreport reservation utilization names=rr_x format=Name,ReservationId,TotalTime,TresCount,TresName,TresTime,Nodes,Flags,Associations,Start,End $RANGE >out &&
	expect sreport_reservation_Utilization_format.txt >want &&
	sed -i "s/               2 2026/               $(db "SELECT id FROM acct_assoc WHERE user = \"root\"" | paste -sd,) 2026/" want &&
	test_cmp want out
'

test_expect_success SQLITE3 'a TRES Slurm reservations do not hold: no rows; an unknown field: error' '
	sreport -T mem reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization_mem.txt >want && test_cmp want out &&
	sreport -n -T gres/gpu,node,billing reservation utilization names=rr_x $RANGE >out &&
	test_must_be_empty out &&
	test_expect_code 1 sreport reservation utilization names=rr_x format=bogus $RANGE >out 2>err &&
	echo " Unknown field '"'"'bogus'"'"'" >want && test_cmp want err &&
	test "$(sed -n 6,7p out)" = "$(printf "\n")"
'

test_expect_success SQLITE3 '-T: names in any case, unknown ones left out; none valid: fatal, as Slurm' '
	sreport -n -T CPU,bogus reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization.txt | sed -n 7p >want && test_cmp want out &&
	test_expect_code 1 sreport -T bogus reservation utilization names=rr_x $RANGE >out 2>err &&
	test_must_be_empty out &&
	echo "sreport: fatal: No valid TRES given" >want && test_cmp want err
'

test_expect_success SQLITE3 'no reservation in the range: banner and header only' '
	sreport reservation utilization start=2020-01-01T00:00:00 end=2020-01-02T00:00:00 >out 2>err &&
	test_must_be_empty err &&
	expect sreport_reservation_Utilization_none.txt | sed 1,3d >want &&
	sed 1,3d out >got && test_cmp want got &&
	sreport reservation utilization Nodes=comp005 $RANGE >out &&
	test $(wc -l <out) = 6
'

test_expect_success SQLITE3 'a running job counts to the end; a bad report name is an error' '
	db "INSERT INTO acct_job(job_id, reservation, submit, start, end, alloc_tres) VALUES
	    (9007, \"rr_x\", $T0, $T0 + 1790, 0, \"cpu=2,node=1\");" &&
	sreport -n -P -t seconds reservation utilization names=rr_x $RANGE >out &&
	echo "test|rr_x|2026-12-01T21:46:09|2026-12-01T22:16:09|cpu|130|230270" >want &&
	test_cmp want out &&
	test_expect_code 1 sreport reservation bogus 2>err &&
	grep -q "Valid reservation reports are" err
'

test_expect_success SQLITE3 'after rr_x was deleted at 22:00:21, with a MAINT one: -T, -p, Nodes=, widths' '
	db "DELETE FROM acct_job WHERE job_id = 9007;
	    UPDATE acct_resv SET time_end = $T0 + 852 WHERE resv_id = 10;
	    INSERT INTO acct_resv(resv_id, time_start, time_end, name, nodelist, node_count, tres,
	    flags, users) VALUES(20, $T0 + 385, $T0 + 852, \"rr_m\", \"comp[003-004]\", 2, \"cpu=128\",
	    \"MAINT,SPEC_NODES\", \"root\");" &&
	sreport -T cpu,mem reservation utilization names=rr_x,rr_m $RANGE >out &&
	expect sreport_reservation_Utilization_deleted.txt >want && test_cmp want out &&
	sreport -p reservation utilization names=rr_x $RANGE >out &&
	expect sreport_reservation_Utilization_p.txt >want && test_cmp want out &&
	sreport reservation utilization names=rr_x,rr_m Nodes=comp003 $RANGE >out &&
	expect sreport_reservation_Utilization_nodes.txt >want && test_cmp want out &&
	sreport reservation utilization names=rr_x format=name%20,Allocated%5,Cluster $RANGE >out &&
	expect sreport_reservation_Utilization_width.txt | sed "s/^\(  *rr_x  *2\)   cluster $/\1      test /" >want &&
	test_cmp want out
'

test_expect_success 'stop' '
	cluster_stop
'

test_done
