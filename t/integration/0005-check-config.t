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

test_done
