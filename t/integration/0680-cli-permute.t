#!/bin/bash
test_description='options after the command words, as Slurm permuting getopt takes them (scontrol, sacctmgr, sreport, sshare)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'scontrol show nodes -oF: one line per node, as -o before the command' '
	scontrol show nodes -oF >after 2>err &&
	test_must_be_empty err &&
	test "$(wc -l <after)" = 2 &&
	scontrol -oF show nodes >before &&
	test_cmp before after &&
	scontrol show node comp001 -o >one &&
	test "$(wc -l <one)" = 1 &&
	grep -q "^NodeName=comp001 " one
'

test_expect_success 'scontrol show job N -dd and -o after the id' '
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	# let the first scheduling pass set the reason, so both views agree
	wait_for 10 sh -c "scontrol show job $id | grep -q LastSchedEval=2" &&
	scontrol show job $id -o >out &&
	test "$(wc -l <out)" = 1 &&
	scontrol -o show job $id >expect &&
	test_cmp expect out &&
	scontrol show job $id -dd >d &&
	scontrol -dd show job $id >expect &&
	test_cmp expect d &&
	scancel $id
'

test_expect_success 'scontrol: words after -- are not options' '
	test_must_fail scontrol show node comp001 -- -o 2>err &&
	grep -q "too many arguments" err
'

test_expect_success 'sacctmgr list user -nP: options after the words' '
	sacctmgr list user -n -P >out 2>err &&
	test_must_be_empty err &&
	grep -q "^root|root|Administrator$" out &&
	! grep -q "User" out &&
	sacctmgr -nP list user >expect &&
	test_cmp expect out
'

test_expect_success 'sreport and sshare take options after their words' '
	sreport cluster utilization -t percent -P >out 2>err &&
	test_must_be_empty err &&
	grep -q "^Cluster|" out &&
	sshare -a -l >out2 2>err &&
	test_must_be_empty err &&
	sshare -l -a >out3 &&
	test_cmp out2 out3
'

test_done
