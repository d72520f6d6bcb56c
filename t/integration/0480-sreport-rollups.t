#!/bin/bash
test_description='rollups and sreport cluster Utilization: allocated, down and reported time; job SizesByAccount'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# Time is made testable with the controller's test-only knob
# SLUICE_ROLLUP_HOUR_S: an "hour" of the rollups lasts 4 s here (aligned to
# the epoch), so hours end, are closed and reach sreport within the test.
# sreport's own range (whole real hours, up to now) covers them all.
export SLUICE_ROLLUP_HOUR_S=4

# sreport takes end=now to the nearest hour, as Slurm does: a run that
# crossed the top of an hour would leave out the hour it began in, so one
# that would begin in its last 3 minutes begins after it.
m=$(date +%-M)
[ "$m" -lt 57 ] || sleep $(( (60 - m) * 60 - $(date +%-S) + 1 ))
START=$(date +%Y-%m-%dT%H:00)

util() { sreport -n -P -t seconds cluster Utilization start=$START end=now "$@"; }
# Reported so far, in CPU-seconds (0 when no hour closed yet)
reported() { util | awk -F"|" "{ print \$7 + 0 }"; }

test_expect_success 'cluster of 2 nodes x 8 CPUs' '
	cluster_start 2
'

test_expect_success 'sreport: Slurm banner and header' '
	sreport cluster Utilization start=$START end=now >out 2>err &&
	test_must_be_empty err &&
	sed -n 1p out | grep -qx -- "-\{80\}" &&
	sed -n 2p out | grep -Eq "^Cluster Utilization [0-9-]{10}T[0-9]{2}:00:00 - [0-9-]{10}T[0-9]{2}:59:59$" &&
	sed -n 3p out | grep -qx "Usage reported in CPU Minutes" &&
	compat_stdout sreport_cluster_Utilization.txt | sed -n 5,6p >expect &&
	sed -n 5,6p out >actual &&
	test_cmp expect actual
'

test_expect_success 'an hour later: Reported is 16 CPUs x the time, all idle' '
	wait_for 20 sh -c "test \$(sreport -n -P -t seconds cluster Utilization start=$START end=now | wc -l) -ge 1" &&
	util >rows &&
	IFS="|" read -r cl alloc down pdown idle planned rep <rows &&
	test "$cl" = test &&
	test $((rep % 16)) = 0 && test "$rep" -gt 0 &&
	test "$alloc" = 0 && test "$down" = 0 && test "$planned" = 0 &&
	test "$idle" = "$rep"
'

test_expect_success 'a job of 4 CPUs for 6 s: 24 CPU-seconds allocated' '
	id=$(sbatch --parsable -n 4 -o /dev/null --wrap="sleep 6") &&
	wait_job_state $id RUNNING &&
	wait_job_state $id COMPLETED 30 &&
	s=$(scontrol show job $id | tr " " "\n" | sed -n "s/^RunTime=//p") &&
	el=$(echo "$s" | awk -F: "{ print \$1 * 3600 + \$2 * 60 + \$3 }") &&
	wait_for 20 sh -c "test \$(sreport -n -P -t seconds cluster Utilization start=$START end=now | cut -d\"|\" -f2) -ge \$((4 * $el))" &&
	util >rows && IFS="|" read -r cl alloc down pdown idle planned rep <rows &&
	test "$alloc" = $((4 * el)) &&
	test $((alloc + down + idle + planned)) = "$rep"
'

test_expect_success 'sreport job SizesByAccount: the 4-CPU job in its bucket, banner and header' '
	acct=$(sacct -n -P -X -o account -j $id) && test -n "$acct" &&
	sreport -n -P -t seconds job SizesByAccount start=$START end=now FlatView >out &&
	echo "test|$acct|$((4 * el))|0|0|0|0|100.00%" >expect &&
	test_cmp expect out &&
	sreport -n -P job SizesByAccount start=$START end=now FlatView Grouping=2,4 PrintJobCount >out &&
	echo "test|$acct|0|0|1|100.00%" >expect &&
	test_cmp expect out &&
	sreport -n -P job SizesByAccount start=$START end=now FlatView Users=nosuch >out &&
	test_must_be_empty out &&
	sreport job SizesByAccount start=$START end=now >out &&
	sed -n 2p out | grep -Eq "^Job Sizes [0-9-]{10}T[0-9]{2}:00:00 - [0-9-]{10}T[0-9]{2}:59:59 \([0-9]+ secs\)$" &&
	sed -n 3p out | grep -qx "Time reported in Minutes" &&
	sed -n 5p out | grep -qx "  Cluster   Account     0-49 CPUs   50-249 CPUs  250-499 CPUs  500-999 CPUs  >= 1000 CPUs % of cluster " &&
	sed -n 6p out | grep -qx -- "--------- --------- ------------- ------------- ------------- ------------- ------------- ------------ "
'

test_expect_success 'per association: a job of 2 CPUs under its account, its user and root (with the first job)' '
	me=$(id -un) && acct=$(sacct -n -P -X -o account -j $id) &&
	sacctmgr -i add account g1phys >/dev/null &&
	sacctmgr -i add user $me account=g1phys >/dev/null &&
	j=$(sbatch --parsable -n 2 -A g1phys -o /dev/null --wrap="sleep 3") &&
	wait_job_state $j COMPLETED 30 &&
	s=$(scontrol show job $j | tr " " "\n" | sed -n "s/^RunTime=//p") &&
	el2=$(echo "$s" | awk -F: "{ print \$1 * 3600 + \$2 * 60 + \$3 }") &&
	wait_for 20 sh -c "sreport -n -P -t seconds cluster AccountUtilizationByUser start=$START end=now | grep -qx \"test|g1phys|||$((2 * el2))|0\"" &&
	sreport -n -P -t seconds cluster AccountUtilizationByUser start=$START end=now >out &&
	grep -qx "test|root|||$((4 * el + 2 * el2))|0" out &&
	grep -Eqx "test\|g1phys\|$me\|[^|]*\|$((2 * el2))\|0" out &&
	sreport -n -P -t seconds cluster UserUtilizationByAccount start=$START end=now >out &&
	grep -Eqx "test\|$me\|[^|]*\|g1phys\|$((2 * el2))\|0" out &&
	sreport -n -P -t seconds user TopUsage start=$START end=now >out &&
	grep -Eqx "test\|$me\|[^|]*\|$acct,g1phys\|$((4 * el + 2 * el2))\|0" out &&
	sreport -n -P -t seconds cluster AccountUtilizationByUser start=$START end=now Users=nosuch >out &&
	test_must_be_empty out &&
	# Accounts= selects the jobs: the percentage is of those
	sreport -n -P -t seconds job SizesByAccount start=$START end=now FlatView Accounts=g1phys >out &&
	echo "test|g1phys|$((2 * el2))|0|0|0|0|100.00%" >expect &&
	test_cmp expect out
'

test_expect_success 'a drained node counts as Down while drained' '
	before=$(util | cut -d"|" -f3) &&
	scontrol update NodeName=comp002 State=DRAIN Reason="bad gpu" &&
	sleep 5 &&
	scontrol update NodeName=comp002 State=RESUME &&
	wait_for 20 sh -c "test \$(sreport -n -P -t seconds cluster Utilization start=$START end=now | cut -d\"|\" -f3) -ge \$(( $before + 8 * 5 ))" &&
	util >rows && IFS="|" read -r cl alloc down pdown idle planned rep <rows &&
	test $((alloc + down + idle + planned)) = "$rep"
'

test_expect_success 'the node event was recorded with its reason' '
	sqlite3 "$CL/state/sluice.db" "SELECT node, reason, end > start FROM node_event" >ev &&
	echo "comp002|bad gpu|1" >expect &&
	test_cmp expect ev
'

test_expect_success 'sreport -t percent, -t hourper, -T cpu,gres/gpu, -p' '
	sreport -t percent -n cluster Utilization start=$START end=now >out &&
	grep -q "100.00% *$" out &&
	sreport -t hourper cluster Utilization start=$START end=now >out &&
	sed -n 3p out | grep -qx "Usage reported in CPU Hours/Percentage of Total" &&
	sed -n 5p out | grep -q "^  Cluster         Allocated              Down         PLND Down" &&
	sreport -T cpu,gres/gpu -n -P cluster Utilization start=$START end=now >out &&
	cut -d"|" -f2 out >names && printf "cpu\ngres/gpu\n" >expect && test_cmp expect names &&
	sreport -p cluster Utilization start=$START end=now >out &&
	sed -n 5p out | grep -qx "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported|"
'

test_expect_success 'the rollups survive a restart: nothing lost, nothing counted twice' '
	util >before &&
	ctld_kill9 && ctld_start &&
	util >after &&
	test_cmp before after &&
	sleep 5 &&
	util >rows && IFS="|" read -r cl alloc down pdown idle planned rep <rows &&
	test $((alloc + down + idle + planned)) = "$rep"
'

test_expect_success 'sreport errors as Slurm' '
	test_expect_code 1 sreport cluster nosuch 2>err &&
	head -1 err | grep -qx "Not valid report nosuch" &&
	test_expect_code 1 sreport nosuch 2>err &&
	grep -qx "invalid keyword: nosuch" err &&
	test_expect_code 1 sreport cluster Utilization foo=1 >out 2>err &&
	grep -qx " Unknown condition: foo=1" err
'

test_expect_success 'stop' '
	cluster_stop
'

test_done
