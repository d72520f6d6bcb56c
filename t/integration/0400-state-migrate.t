#!/bin/bash
test_description='a state DB of the schema before versioned migrations is brought forward'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

db() { sqlite3 "$CL/state/sluice.db" "$@"; }

test_expect_success 'a version 0 DB (fixture) is migrated at start' '
	cluster_write_conf 1 &&
	sqlite3 "$CL/state/sluice.db" <"$SHARNESS_TEST_DIRECTORY/fixtures/statedb-v0.sql" &&
	test "$(db "PRAGMA user_version")" = 0 &&
	ctld_start &&
	noded_start comp001 &&
	v=$(db "PRAGMA user_version") && test "$v" -ge 2 &&
	echo "$v" >version &&
	cat "$CL"/log/ctld.* | grep -q "state db: schema version $v"
'

test_expect_success 'what the old DB held is still there' '
	wait_for 10 test_node_state comp001 drained &&
	test "$(sinfo -h -R -o %E)" = "old reason" &&
	test "$(job_state 2)" = PENDING &&
	id=$(sbatch --parsable -H --wrap=true) && test "$id" = 3 &&
	scancel $id 2
'

test_expect_success 'the old jobs got their accounting records' '
	db "SELECT job_id, state, exit_code, uid, nodelist FROM acct_job WHERE job_id < 3 ORDER BY job_id" >out &&
	printf "1|5|768|0|comp001\n2|4|0|0|\n" >expect &&
	test_cmp expect out
'

test_expect_success 'a restart on a migrated DB changes nothing' '
	ctld_kill9 && ctld_start &&
	test "$(db "PRAGMA user_version")" = "$(cat version)"
'

test_expect_success 'a DB of a newer schema is refused, naming both versions' '
	kill -TERM $CTLD_PID && wait_gone $CTLD_PID &&
	db "PRAGMA user_version=9999" &&
	test_must_fail sluice ctld -D 2>err &&
	grep -q "schema version 9999, newer than this sluice" err
'

test_done
