#!/bin/bash
test_description='cluster Utilization: PLND Down is the time of maintenance reservations, Allocated that of the others, in the hourly rollup'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# An "hour" of the rollups lasts 4 s (SLUICE_ROLLUP_HOUR_S, as 0480). The
# reservation records are written into the state DB directly, as the
# controller writes them (contract above migrate_acct_resv in state_db.c):
# a MAINT one of one node (8 CPUs) for two "hours" (planned down), an
# IGNORE_JOBS one (nothing) and a plain one of the other node (allocated,
# though no job runs in it).
export SLUICE_ROLLUP_HOUR_S=4
command -v sqlite3 >/dev/null && test_set_prereq SQLITE3
m=$(date +%-M)
[ "$m" -lt 57 ] || sleep $(( (60 - m) * 60 - $(date +%-S) + 1 ))
START=$(date +%Y-%m-%dT%H:00)
util() { sreport -n -P -t seconds cluster Utilization start=$START end=now; }
db() { sqlite3 -cmd ".timeout 10000" "$CL/state/sluice.db" "$@"; }

test_expect_success SQLITE3 'cluster of 2 nodes x 8 CPUs; reservations in the next hours' '
	cluster_start 2 &&
	now=$(date +%s) && T=$(( now - now % 4 + 8 )) &&
	db "INSERT INTO acct_resv(resv_id, time_start, time_end, name, nodelist, node_count, tres,
	    flags) VALUES (1, $T, $T + 8, \"m\", \"comp001\", 1, \"cpu=8\", \"MAINT,SPEC_NODES\"),
	    (2, $T, $T + 8, \"i\", \"comp002\", 1, \"cpu=8\", \"MAINT,IGNORE_JOBS,SPEC_NODES\"),
	    (3, $T, $T + 8, \"p\", \"comp002\", 1, \"cpu=8\", \"SPEC_NODES\");" &&
	echo $T >t0
'

test_expect_success SQLITE3 'after the hours close: PLND Down and Allocated = 8 CPUs x 8 s, Idle net of them' '
	T=$(cat t0) &&
	wait_for 40 sh -c "test \$(date +%s) -ge $(( T + 16 ))" &&
	wait_for 20 sh -c "test \$(sreport -n -P -t seconds cluster Utilization start=$START end=now | cut -d\"|\" -f4) = 64" &&
	util >rows && IFS="|" read -r cl alloc down pdown idle planned rep <rows &&
	test "$pdown" = 64 && test "$alloc" = 64 &&
	test $((alloc + down + pdown + idle + planned)) = "$rep"
'

test_expect_success 'stop' '
	cluster_stop
'

test_done
