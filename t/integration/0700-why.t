#!/bin/bash
test_description='sluice why: pending jobs (nodes, blockers, rank, fixes), ended jobs, nodes'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# 4 nodes of 8 CPUs: comp[001-002] 8 h100, comp[003-004] 4 h100.
export NODE_ATTRS_3="Gres=gpu:h100:4" NODE_ATTRS_4="Gres=gpu:h100:4"
export GRES_CONF="NodeName=comp[001-002] Name=gpu Type=h100 Count=8
NodeName=comp[003-004] Name=gpu Type=h100 Count=4"

test_expect_success 'cluster: 2 nodes with 8 GPUs, 2 with 4; partitions defq and short' '
	cluster_start 4 "SchedulerType=sched/backfill" "SchedulerParameters=bf_interval=1" &&
	sinfo -h -o "%P" >out && grep -q "^short" out
'

test_expect_success 'a job that needs 8 GPUs per node while both big nodes are busy' '
	b1=$(sbatch --parsable -w comp001 --gres=gpu:h100:8 -t 30 -J hog1 -o /dev/null --wrap="sleep 297") &&
	b2=$(sbatch --parsable -w comp002 --gres=gpu:h100:2 -t 20 -J hog2 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $b1 RUNNING && wait_job_state $b2 RUNNING &&
	j=$(sbatch --parsable --gres=gpu:h100:8 -t 60 -J big -o /dev/null --wrap=true) &&
	echo $j >jid && wait_for 10 sh -c "squeue -h -j $j -o %r | grep -q Resources" &&
	sluice why $j >out 2>err && test_must_be_empty err && cat out &&
	grep -q "^Job $j \"big\" of root is PENDING (Reason=Resources)" out &&
	grep -q "^  asks 8 GPU(s) of type h100 per node, 1024M per CPU, -t 01:00:00, partition defq" out &&
	grep -q "Nodes of partition defq: 4; 2 could ever run it, 0 could now; it needs 1" out &&
	grep -Eq "^  comp001 +0 of 8 GPU\(s\) free, needs 8; held by job $b1 until ([A-Z][a-z]{2} [0-9]{2} )?[0-9:]+ \(its time limit\)" out &&
	grep -Eq "^  comp002 +6 of 8 GPU\(s\) free, needs 8; held by job $b2 until" out &&
	grep -Eq "^  comp\[003-004\] +has 4 GPU\(s\) of type h100, the job asks 8 per node \(never\)" out &&
	grep -q "not enough of its partition.s nodes are free now (Resources): 0 could now, it needs 1" out
'

test_expect_success '--json carries the same answer for programs' '
	j=$(cat jid) &&
	sluice why --json $j >out.json &&
	jq -e ".kind == \"job\" and .job_id == $j and .state == \"PENDING\" and .nodes.could_ever == 2 and .nodes.needed == 1" out.json &&
	jq -e "[.nodes.groups[] | select(.never) | .nodes] == [\"comp[003-004]\"]" out.json &&
	jq -e "[.blockers[].code] | index(\"resources\") != null" out.json
'

test_expect_success 'rank: a later, lower-priority job sees the first one ahead of it' '
	j=$(cat jid) &&
	k=$(sbatch --parsable --gres=gpu:h100:8 -t 60 -J big2 -o /dev/null --wrap=true) &&
	wait_for 10 sh -c "squeue -h -j $k -o %r | grep -Eq \"Resources|Priority\"" &&
	sluice why $k >out && cat out &&
	grep -Eq "priority [0-9]+: 2nd of [0-9]+ pending in defq; ahead of it: $j \(root, [0-9]+\)" out &&
	scancel $k
'

test_expect_success 'a job no node can ever run: never, and the partition that could' '
	j=$(sbatch --parsable -p short --gres=gpu:h100:4 -x comp[003-004] -t 5 -J noway -o /dev/null --hold --wrap=true) &&
	sluice why $j >out && cat out &&
	grep -q "held by its user (JobHeldUser)" out &&
	grep -q "^  scontrol release $j" out &&
	grep -Eq "^  comp\[003-004\] +excluded by the job.s -x/--exclude \(never\)" out &&
	! grep -q "kept for higher-priority" out &&
	scancel $j
'

test_expect_success 'time limit over the partition MaxTime: blocker and the fix' '
	j=$(sbatch --parsable -p short -t 120 -J shortie -o /dev/null --wrap=true) &&
	wait_for 10 sh -c "squeue -h -j $j -o %r | grep -q PartitionTimeLimit" &&
	sluice why $j >out && cat out &&
	grep -q "it asks -t 02:00:00 in partition short, over its MaxTime=01:00:00 (PartitionTimeLimit)" out &&
	grep -q "^  scontrol update jobid=$j TimeLimit=01:00:00" out &&
	grep -q "^  scontrol update jobid=$j Partition=defq" out &&
	! grep -q "kept for higher-priority" out &&
	scancel $j
'

test_expect_success 'a drained node: who drained it, when, and the resume command' '
	scontrol update nodename=comp004 state=drain reason="bad gpu: ECC errors" &&
	sluice why comp004 >out && cat out &&
	grep -q "^Node comp004 is drained" out &&
	grep -Eq "drained \"bad gpu: ECC errors\" set by root [0-9]+ s ago" out &&
	grep -q "scontrol update nodename=comp004 State=RESUME" out &&
	scontrol update nodename=comp002 state=drain reason="fan" &&
	j=$(cat jid) && sluice why $j >out && cat out &&
	grep -Eq "^  comp002 +draining \"fan\" set by root [0-9]+ s ago" out &&
	scontrol update nodename=comp002,comp004 state=resume
'

test_expect_success 'a node with a job on it lists the job' '
	b1=$(squeue -h -n hog1 -o %i) &&
	sluice why comp001 >out && cat out &&
	grep -Eq "^  $b1  root  RUNNING  until " out
'

test_expect_success 'an ended job: how it ended and the last lines of its stderr' '
	j=$(sbatch --parsable -w comp003 -t 5 -J failer -o "$CL/work/fail.out" \
		--wrap="echo first; echo boom >&2; exit 3") &&
	wait_job_state $j FAILED &&
	sluice why $j >out && cat out &&
	grep -q "^Job $j \"failer\" of root is FAILED" out &&
	grep -q "failed with exit code 3 (NonZeroExitCode)" out &&
	grep -q "^Last lines of its stderr ($CL/work/fail.out):" out &&
	grep -qx "  | boom" out &&
	sluice why --json $j | jq -e ".exit_code == 3 and .signal == 0"
'

test_expect_success 'errors: unknown job and node, no argument' '
	test_expect_code 1 sluice why 999999 2>err &&
	grep -q "job 999999 is not known to the controller" err &&
	test_expect_code 1 sluice why nosuchnode 2>err &&
	grep -q "no node named nosuchnode" err &&
	test_expect_code 1 sluice why 2>err &&
	grep -q "one job id or node name expected" err
'

test_expect_success 'cleanup' '
	scancel -u root; true
'

test_done
