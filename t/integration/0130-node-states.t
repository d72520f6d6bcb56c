#!/bin/bash
test_description='node state machine: every scontrol update state, requeue on
down, invalid registrations, completing, restart, sinfo filters and JSON'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SLURMD_TIMEOUT=4
test_expect_success 'cluster starts (ReturnToService=1)' '
	cluster_start 3 ReturnToService=1
'

sctl_state() { scontrol show node "$1" | sed -n "s/^ *State=\([^ ]*\) .*/\1/p"; }
test_sctl_state() { [ "$(sctl_state "$1")" = "$2" ]; }

test_expect_success 'fail: flag FAIL, needs a reason, resume clears it' '
	test_must_fail scontrol update nodename=comp003 state=fail 2>err &&
	grep -q "You must specify a reason" err &&
	scontrol update nodename=comp003 state=fail reason="psu failing" &&
	test_node_state comp003 fail &&
	test_sctl_state comp003 IDLE+FAIL &&
	sinfo -R -h -o "%E|%u|%N" >out &&
	grep -qx "psu failing|root|comp003" out &&
	scontrol update nodename=comp003 state=resume &&
	test_node_state comp003 idle &&
	! scontrol show node comp003 | grep -q Reason=
'

test_expect_success 'resume of a node that is not drained/down is refused' '
	test_expect_code 1 scontrol update nodename=comp003 state=resume 2>err &&
	echo "slurm_update error: Invalid node state specified" >expect &&
	test_cmp expect err
'

test_expect_success 'abbreviated states are taken as scontrol takes them' '
	scontrol update nodename=comp003 state=dra reason=x &&
	test_node_state comp003 drained &&
	scontrol update nodename=comp003 st=res &&
	test_node_state comp003 idle &&
	test_expect_code 1 scontrol update nodename=comp003 state=dr 2>err &&
	grep -q "^Invalid input: state=dr" err
'

test_expect_success 'undrain clears DRAIN only, not DOWN' '
	scontrol update nodename=comp003 state=down reason=cable &&
	scontrol update nodename=comp003 state=drain reason=cable2 &&
	test_sctl_state comp003 DOWN+DRAIN &&
	scontrol update nodename=comp003 state=undrain &&
	test_sctl_state comp003 DOWN &&
	scontrol show node comp003 | grep -q "Reason=cable2 \[root@" &&
	scontrol update nodename=comp003 state=idle &&
	test_node_state comp003 idle
'

test_expect_success 'noresp sets the flag until the node is heard from' '
	scontrol update nodename=comp003 state=noresp &&
	wait_for 15 test_node_state comp003 idle
'

test_expect_success 'power_down / power_up are accepted and displayed' '
	scontrol update nodename=comp003 state=power_down &&
	test_node_state comp003 "idle~" &&
	test_sctl_state comp003 IDLE+POWERED_DOWN &&
	sinfo -h -t powered_down -o %N >out && grep -qx comp003 out &&
	id=$(sbatch --parsable -w comp003 -o /dev/null --wrap=true) &&
	wait_for 5 test_reason $id ReqNodeNotAvail &&
	scancel $id &&
	scontrol update nodename=comp003 state=power_up &&
	wait_for 15 test_node_state comp003 idle
'

test_expect_success 'future: hidden from sinfo and scontrol (but -F); resume brings it back' '
	scontrol update nodename=comp003 state=future &&
	test_sctl_state comp003 "" &&
	test_expect_code 1 scontrol show node comp003 >out &&
	echo "Node comp003 not found" >expect && test_cmp expect out &&
	scontrol -F show node comp003 | grep -q "^   State=FUTURE " &&
	scontrol --future -o show node | grep -q "^NodeName=comp003 " &&
	! scontrol show node | grep -q "^NodeName=comp003 " &&
	sinfo -h -N -o %N >out && ! grep -q comp003 out &&
	sinfo -h -t future -o "%P %D" >out && test "$(cut -d" " -f2 out | sort -u)" = 0 &&
	sinfo --json >out.json && ! grep -q "\"comp003\"" out.json &&
	scontrol update nodename=comp003 state=resume &&
	wait_for 15 test_node_state comp003 idle
'

test_expect_success 'allocated/mixed cannot be set' '
	test_expect_code 1 scontrol update nodename=comp003 state=allocated 2>err &&
	grep -q "Invalid node state specified" err
'

test_expect_success 'state=down requeues a batch job: Restarts=1, fenced until the old copy is gone' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -w comp002 -o rq.out \
		--wrap="echo restart=\${SLURM_RESTART_COUNT:-none}; sleep 60") &&
	wait_job_state $id RUNNING && wait_for 10 job_launched $id &&
	wait_for 10 grep -qx restart=none rq.out &&
	test "$(job_field $id Restarts)" = 0 &&
	before=$(date +%s) &&
	scontrol update nodename=comp002 state=down reason="bad dimm" &&
	wait_job_state $id PENDING &&
	test_node_state comp002 down &&
	test "$(job_field $id Restarts)" = 1 &&
	test "$(job_field $id Requeue)" = 1 &&
	# at the latest: last heard + lease (2 x SlurmdTimeout) + KillWait + 5 s
	elig=$(date -d "$(job_field $id EligibleTime)" +%s) &&
	test $elig -le $((before + 1 + 8 + 2 + 5)) &&
	# sooner, once the node shows that the old copy is gone
	wait_for 15 sh -c "cat \"$CL\"/log/ctld.* | grep -q \"job $id: its old copy is gone everywhere\"" &&
	test_job_state $id PENDING &&
	scontrol update nodename=comp002 state=resume &&
	wait_job_state $id RUNNING 20 &&
	wait_for 10 grep -qx restart=1 rq.out &&
	scancel $id && wait_job_state $id CANCELLED
'

test_expect_success 'Restarts survives a controller restart (state DB column)' '
	id=$(sbatch --parsable -w comp002 -o /dev/null --wrap="sleep 60") &&
	wait_job_state $id RUNNING &&
	scontrol update nodename=comp002 state=down reason="bad dimm" &&
	wait_job_state $id PENDING &&
	ctld_kill9 && ctld_start &&
	test "$(job_field $id Restarts)" = 1 &&
	test_job_state $id PENDING &&
	scancel $id && wait_job_state $id CANCELLED &&
	scontrol update nodename=comp002 state=resume
'

test_expect_success 'a state DB from before the restarts column (and versioned migrations) is migrated' '
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	ctld_kill9 &&
	python3 -c "
import sqlite3,sys
db=sqlite3.connect(sys.argv[1])
db.execute(\"ALTER TABLE jobs DROP COLUMN restarts\")
db.execute(\"PRAGMA user_version=0\")
db.commit()
assert \"restarts\" not in [r[1] for r in db.execute(\"PRAGMA table_info(jobs)\")]
" "$CL/state/sluice.db" &&
	ctld_start &&
	test "$(job_field $id Restarts)" = 0 &&
	python3 -c "
import sqlite3,sys
db=sqlite3.connect(sys.argv[1])
assert \"restarts\" in [r[1] for r in db.execute(\"PRAGMA table_info(jobs)\")]
" "$CL/state/sluice.db" &&
	scancel $id
'

test_expect_success 'a job ignoring SIGTERM keeps its node completing' '
	wait_for 10 test_node_state comp002 idle &&
	id=$(sbatch --parsable -w comp002 -o /dev/null \
		--wrap="trap \"\" TERM; for i in \$(seq 100); do sleep 0.1; done") &&
	wait_job_state $id RUNNING &&
	scancel $id &&
	wait_for 5 test_node_state comp002 completing &&
	sinfo -h -N -n comp002 -o %t | head -1 >out && grep -qx comp out &&
	wait_for 15 test_node_state comp002 idle
'

test_expect_success 'a node reporting less than configured is drained (inval)' '
	noded_kill comp003 &&
	SLUICE_FAKE_MEM=1000 SLUICE_FAKE_GPUS=4 noded_start comp003 &&
	wait_for 15 test_node_state comp003 inval &&
	scontrol show node comp003 >out &&
	grep -q "State=IDLE+DRAIN+INVALID_REG " out &&
	grep -q "Reason=gres/gpu count reported lower than configured (4 < 8), Low RealMemory (reported:1000 < 100.00% of configured:32768) \[" out &&
	noded_kill comp003 &&
	SLUICE_FAKE_CPUS=2 noded_start comp003 &&
	wait_for 15 sh -c "scontrol show node comp003 | grep -q \"Reason=Low CPUs \[\"" &&
	noded_kill comp003 &&
	noded_start comp003 &&
	wait_for 15 test_node_state comp003 idle
'

test_expect_success 'ReturnToService=1: back after not responding, not after an admin down' '
	noded_kill comp003 KILL &&
	wait_for 20 test_node_state comp003 "down*" &&
	scontrol show node comp003 | grep -q "Reason=Not responding \[" &&
	noded_start comp003 &&
	wait_for 15 test_node_state comp003 idle &&
	scontrol update nodename=comp003 state=down reason=admin &&
	noded_kill comp003 && noded_start comp003 &&
	sleep 1 &&
	test_node_state comp003 down &&
	scontrol update nodename=comp003 state=resume &&
	wait_for 15 test_node_state comp003 idle
'

test_expect_success 'states and reasons survive a controller restart' '
	scontrol update nodename=comp001 state=drain reason="bad gpu: ECC errors" &&
	scontrol update nodename=comp003 state=down reason="psu" &&
	scontrol show node comp001 | grep Reason= >before &&
	ctld_kill9 && ctld_start &&
	wait_for 15 test_node_state comp001 drained &&
	test_node_state comp003 down &&
	scontrol show node comp001 | grep Reason= >after &&
	test_cmp before after &&
	scontrol update nodename=comp[001,003] state=resume &&
	wait_for 15 test_node_state comp001 idle && wait_for 15 test_node_state comp003 idle
'

test_expect_success 'sinfo -t filters as Slurm (prefixes, drain/drained/draining, &)' '
	scontrol update nodename=comp002 state=drain reason=r &&
	sinfo -h -N -t drain -o %N >out && test "$(sort -u out)" = comp002 &&
	sinfo -h -N -t drained -o %N >out && test "$(sort -u out)" = comp002 &&
	sinfo -h -N -t draining -o %N >out && test ! -s out &&
	sinfo -h -N -t idle -o %N | sort -u >out && test "$(cat out | tr "\n" " ")" = "comp001 comp003 " &&
	sinfo -h -N -t ID -o %N | sort -u >out2 && test_cmp out out2 &&
	sinfo -h -N -t "idle&drain" -o %N >out && test ! -s out &&
	test_expect_code 1 sinfo -t bogus 2>err &&
	grep -q "^sinfo: error: Bad state string: \"bogus\"$" err &&
	scontrol update nodename=comp002 state=resume
'

test_expect_success 'sinfo --json and scontrol show node --json: Slurm layout' '
	sinfo --json >out.json &&
	python3 -c "
import json,sys
d=json.load(open(\"out.json\"))
assert list(d)==[\"meta\",\"errors\",\"nodes\"], list(d)
n=d[\"nodes\"][0]
ref=json.loads(open(sys.argv[1]).read().split(\"\\n\",1)[1])[\"nodes\"][0]
assert list(n)==list(ref), (list(n), list(ref))
assert n[\"state\"]==\"idle\" and n[\"state_flags\"]==[]
" "$SHARNESS_TEST_DIRECTORY/../compat/sinfo_--json.txt" &&
	head -c 200 out.json | grep -q "openapi\\\\/v0.0.38" &&
	scontrol --json show node comp001 >one.json &&
	python3 -c "import json; d=json.load(open(\"one.json\")); assert [n[\"name\"] for n in d[\"nodes\"]]==[\"comp001\"]"
'

test_expect_success 'scontrol show node -d shows GresDrain/GresUsed' '
	scontrol -d show node comp001 >out &&
	grep -qx "   GresDrain=N/A" out &&
	grep -qx "   GresUsed=gpu:h100:0(IDX:N/A)" out
'

test_expect_success 'sinfo -i prints a dated header each time' '
	timeout 3 sinfo -i 1 >out; test $? = 124 &&
	test "$(grep -c ^PARTITION out)" -ge 2 &&
	head -1 out | grep -Eq "^[A-Z][a-z]{2} [A-Z][a-z]{2} [0-9]{2} "
'

test_expect_success 'SINFO_PARTITION and SINFO_SORT' '
	SINFO_PARTITION=short sinfo -h -o %P >out &&
	test "$(sort -u out)" = short &&
	SINFO_SORT=-P sinfo -h -o %R >out &&
	test "$(head -1 out)" = short
'

test_expect_success 'node Comment= and Extra=: own lines after Reason=, sinfo -O, survive a restart' '
	scontrol show node comp003 >out &&
	! grep -q "Comment=\|Extra=" out &&
	scontrol update nodename=comp003 state=drain reason="disk check" comment="rack 7 slot 2" extra=fw=1.2 &&
	scontrol show node comp003 >out &&
	tail -4 out | head -3 >tail3 &&
	grep -q "^   Reason=disk check \[" tail3 &&
	sed -n 2p tail3 | grep -qx "   Comment=rack 7 slot 2" &&
	sed -n 3p tail3 | grep -qx "   Extra=fw=1.2" &&
	sinfo -h -n comp003 -O "NodeList:10,Comment:20,Extra:10" >out &&
	test "$(cat out)" = "comp003   rack 7 slot 2       fw=1.2    " &&
	sinfo -h -n comp001 -O "Comment:8" >out &&
	test "$(cat out)" = "(null)  " &&
	scontrol -o show node comp003 | grep -q "Reason=disk check \[.*\] Comment=rack 7 slot 2 Extra=fw=1.2$" &&
	ctld_kill9 && ctld_start &&
	scontrol show node comp003 >out &&
	grep -qx "   Comment=rack 7 slot 2" out &&
	grep -qx "   Extra=fw=1.2" out &&
	scontrol update nodename=comp003 comment= state=resume &&
	scontrol show node comp003 >out &&
	! grep -q "Comment=" out &&
	grep -qx "   Extra=fw=1.2" out &&
	scontrol update nodename=comp003 extra="" &&
	! scontrol show node comp003 | grep -q "Extra="
'

test_done
