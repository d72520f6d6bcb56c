#!/bin/bash
test_description='sluice check-config: every problem with file:line, or OK'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'a good config directory passes and lists unsupported keys' '
	cluster_write_conf 4 "JobCompType=jobcomp/filetxt" "JobAcctGatherType=jobacct_gather/linux" &&
	sluice check-config "$CL/etc" >out 2>err &&
	test_must_be_empty err &&
	grep -q "4 nodes, 2 partitions" out &&
	grep -q "JobCompType" out &&
	! grep -q "JobAcctGatherType" out
'

test_expect_success 'the captured Slurm 22.05 config passes' '
	mkdir real && cp "$SHARNESS_TEST_DIRECTORY/../compat/config/"* real/ &&
	sluice check-config real >out 2>err &&
	test_must_be_empty err &&
	grep -q "32 nodes, 2 partitions" out
'

test_expect_success 'every error is reported with file:line and a suggestion' '
	mkdir bad && cp "$CL/etc/"* bad/ &&
	cat >>bad/slurm.conf <<-\EOF &&
	MaxJobCnt=5
	SlurmdTimeout=soon
	PartitionName=x Nodes=comp[001-002] MaxNode=3
	EOF
	test_expect_code 1 sluice check-config bad 2>err &&
	grep -Eq "slurm.conf:[0-9]+: .*MaxJobCnt.*did you mean .MaxJobCount.\?" err &&
	grep -Eq "slurm.conf:[0-9]+: .*SlurmdTimeout" err &&
	grep -Eq "slurm.conf:[0-9]+: .*MaxNode.*did you mean .MaxNodes.\?" err
'

test_expect_success 'a controller refuses to start on a bad config and says why' '
	test_expect_code 1 env SLURM_CONF="$PWD/bad/slurm.conf" sluice ctld -D 2>err &&
	grep -q "MaxJobCnt" err
'

test_expect_success 'Include files and topology errors are found' '
	mkdir inc && cp "$CL/etc/"* inc/ &&
	echo "Include extra.conf" >>inc/slurm.conf &&
	echo "Bogus=1" >inc/extra.conf &&
	echo "SwitchName=s9 Nodes=comp999" >>inc/topology.conf &&
	test_expect_code 1 sluice check-config inc 2>err &&
	grep -q "extra.conf:1:" err &&
	grep -q "topology.conf:[0-9]*:.*comp999" err
'

test_expect_success 'SchedulerParameters out of Slurm 22.05 ranges: refused with file:line, the key and the range' '
	mkdir sp && cp "$CL/etc/"* sp/ &&
	echo "SchedulerParameters=bf_continue,bf_interval=-2,bf_window=0,bf_max_job_test=10,bf_max_job_user=11" >>sp/slurm.conf &&
	line=$(wc -l <sp/slurm.conf) &&
	test_expect_code 1 sluice check-config sp 2>err &&
	grep -F "slurm.conf:$line: SchedulerParameters: bf_interval=-2 is out of range: expected 1-10800 or -1 (disabled)" err &&
	grep -F "slurm.conf:$line: SchedulerParameters: bf_window=0 is out of range: expected 1-43200" err &&
	grep -F "slurm.conf:$line: SchedulerParameters: bf_max_job_user=11 is out of range: expected 0-10 (bf_max_job_test)" err &&
	test_expect_code 1 env SLURM_CONF="$PWD/sp/slurm.conf" sluice ctld -D 2>err &&
	grep -F "bf_interval=-2 is out of range" err
'

test_expect_success 'SchedulerParameters at the ends of the ranges, and -1 for bf_interval, pass' '
	mkdir spok && cp "$CL/etc/"* spok/ &&
	echo "SchedulerParameters=bf_interval=-1,bf_window=43200,bf_resolution=3600,bf_max_job_test=1000000,bf_max_job_user=0,default_queue_depth=0" >>spok/slurm.conf &&
	sluice check-config spok >out 2>err &&
	test_must_be_empty err
'

test_done
