#!/bin/bash
test_description='a host list in a request costs the controller what its text costs, not what it names'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# hwm_kb: the controller's peak resident size (kB) so far
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$CTLD_PID/status"; }
# Expanded, 4194304 host names took the controller from 156 to 287 MB; a
# request's few bytes may move its peak by far less than that.
MAX_GROWTH_KB=$((40 * 1024))
HUGE="comp[001-4194304]"

test_expect_success 'cluster starts; a job runs on comp001' '
	cluster_start 1 &&
	id=$(sbatch --parsable -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED &&
	echo $id >id &&
	hwm_kb >hwm0 && cat hwm0
'

test_expect_success 'sacct -N naming 4194304 hosts: the right answer, the controller peak unmoved' '
	id=$(cat id) &&
	timeout 30 sacct -X -n -P -S 2020-01-01 -N "$HUGE" -o JobID,NodeList >out &&
	echo "$id|comp001" >expect &&
	test_cmp expect out &&
	timeout 30 sacct -X -n -P -S 2020-01-01 -N "gpu[1-4194304],comp[002-4194304]" -o JobID >out &&
	test_must_be_empty out &&
	echo "peak $(cat hwm0) -> $(hwm_kb) kB" &&
	test $(( $(hwm_kb) - $(cat hwm0) )) -lt $MAX_GROWTH_KB
'

test_expect_success USERS 'any user: the same, answered for their own jobs' '
	timeout 30 runuser -u alice -- sacct -X -n -P -S 2020-01-01 -N "$HUGE" -o JobID >out &&
	test_must_be_empty out &&
	test $(( $(hwm_kb) - $(cat hwm0) )) -lt $MAX_GROWTH_KB
'

test_expect_success 'sbatch -w / -x naming 4194304 hosts: refused as naming nodes it does not have, before expanding' '
	test_must_fail timeout 30 sbatch -w "$HUGE" -o /dev/null --wrap=true 2>err &&
	grep "Invalid node name specified" err &&
	test_must_fail timeout 30 sbatch -x "$HUGE" -o /dev/null --wrap=true 2>err &&
	grep "Invalid node name specified" err &&
	echo "peak $(cat hwm0) -> $(hwm_kb) kB" &&
	test $(( $(hwm_kb) - $(cat hwm0) )) -lt $MAX_GROWTH_KB
'

test_expect_success 'scontrol update NodeName= naming 4194304 hosts: refused, no node touched' '
	test_must_fail timeout 30 scontrol update NodeName="$HUGE" State=DRAIN Reason=huge 2>err &&
	cat err &&
	test_node_state comp001 idle &&
	test $(( $(hwm_kb) - $(cat hwm0) )) -lt $MAX_GROWTH_KB &&
	scontrol ping
'

test_done
