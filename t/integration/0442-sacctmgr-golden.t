#!/bin/bash
test_description='sacctmgr show/list output byte for byte as Slurm 22.05 (golden files) for the compat scenario tree'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The goldens name the cluster "cluster" and its port 16817: ours are "test"
# and a free port.
golden() { compat_stdout "$1" | sed "s/   cluster /      test /; s/        16817 / $(printf '%12s' "$CTLD_PORT") /"; }

test_expect_success 'cluster starts; the scenario tree (research: alice, bob MaxJobs=1)' '
	cluster_start 1 &&
	sacctmgr -i add account research description="research group" organization=lab >/dev/null &&
	sacctmgr -i add user alice,bob account=research >/dev/null &&
	sacctmgr -i modify user bob set maxjobs=1 >/dev/null
'

test_expect_success 'sacctmgr show associations' '
	sacctmgr show associations >out 2>err &&
	golden sacctmgr_show_associations.txt >expect &&
	test_cmp expect out && test_must_be_empty err
'

test_expect_success 'sacctmgr show user, list accounts after mlteam and jdoe are added' '
	sacctmgr -i add account mlteam Description="LLM Pretraining" Organization="ADNOC" >/dev/null &&
	sacctmgr -i add user jdoe Account=mlteam >/dev/null &&
	sacctmgr show user >out &&
	golden sacctmgr_show_user.txt >expect &&
	test_cmp expect out &&
	sacctmgr list accounts >out &&
	golden sacctmgr_list_accounts.txt >expect &&
	test_cmp expect out
'

test_expect_success 'sacctmgr show cluster' '
	sacctmgr show cluster >out &&
	golden sacctmgr_show_cluster.txt >expect &&
	test_cmp expect out
'

test_done
