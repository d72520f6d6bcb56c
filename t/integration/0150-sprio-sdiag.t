#!/bin/bash
test_description='sprio (priority factors) and sdiag (scheduler statistics)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The weights of the compat scenario (t/compat/config/slurm.conf).
test_expect_success 'cluster starts with multifactor priority and backfill' '
	cluster_start 2 "SchedulerType=sched/backfill" "PriorityType=priority/multifactor" \
		"PriorityWeightAge=1000" "PriorityWeightFairshare=10000" "PriorityWeightJobSize=1000" \
		"PriorityWeightPartition=1000" "PriorityWeightQOS=1000" "PriorityMaxAge=7-0"
'

test_expect_success 'fill the cluster, queue pending jobs' '
	a=$(sbatch --parsable -N 2 --exclusive -o /dev/null --wrap="sleep 300") &&
	wait_job_state $a RUNNING &&
	p1=$(sbatch --parsable -n 1 -o /dev/null --wrap=true) &&
	p2=$(sbatch --parsable -n 8 -o /dev/null --wrap=true) &&
	p3=$(sbatch --parsable -N 2 -p short -o /dev/null --wrap=true) &&
	h=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	d=$(sbatch --parsable -d afterok:$a -o /dev/null --wrap=true) &&
	wait_for 5 test_reason $p3 Resources || wait_for 5 test_reason $p3 Priority
'

test_expect_success 'sprio: Slurm header, pending jobs in id order, no held, dependent or running job' '
	sprio >out 2>err &&
	test_must_be_empty err &&
	compat_stdout sprio.txt | head -1 >expect &&
	head -1 out >actual &&
	test_cmp expect actual &&
	tail -n +2 out | awk "{print \$1}" >ids &&
	printf "%s\n" $p1 $p2 $p3 >expect_ids &&
	test_cmp expect_ids ids
'

test_expect_success 'sprio: the factors add up to PRIORITY and follow the job size' '
	tail -n +2 out | awk "{ s = \$4 + \$5 + \$6 + \$7 + \$8 + \$9; d = \$3 - s; if (d < -5 || d > 5) exit 1 }" &&
	js1=$(awk -v id=$p1 "\$1 == id {print \$7}" out) &&
	js2=$(awk -v id=$p2 "\$1 == id {print \$7}" out) &&
	test "$js2" -gt "$js1" &&
	test "$(awk -v id=$p3 "\$1 == id {print \$2}" out)" = short
'

test_expect_success 'sprio -j, -u, -p, -h, -o' '
	sprio -j$p2 -h >out && test "$(wc -l <out)" = 1 && grep -q "^ *$p2 defq" out &&
	sprio -j999999 >out && echo "Unable to find jobs matching user/id(s) specified" >expect &&
	test_cmp expect out &&
	sprio -u root >out && head -1 out | grep -q "^          JOBID PARTITION     USER   PRIORITY" &&
	test "$(tail -n +2 out | wc -l)" = 3 &&
	sprio -p short -h >out && test "$(wc -l <out)" = 1 &&
	sprio -o "%i|%r|%N" -h -j$p1 >out && echo "$p1|defq|0" >expect && test_cmp expect out
'

test_expect_success 'sprio -w prints the weights' '
	sprio -w >out &&
	test "$(wc -l <out)" = 2 &&
	echo "        Weights                               1       1000      10000       1000       1000       1000" >expect &&
	tail -1 out >actual && test_cmp expect actual
'

test_expect_success 'sprio -l and -n' '
	sprio -l >out && head -1 out | grep -q "^          JOBID PARTITION     USER   PRIORITY       SITE        AGE      ASSOC  FAIRSHARE    JOBSIZE  PARTITION        QOS        NICE                 TRES$" &&
	sprio -n -h -j$p1 >out && grep -Eq "^ +$p1 defq +0\.[0-9]{8} +[01]\.[0-9]{7}" out
'

sdiag_shape() { # the layout without numbers and dates, up to the RPC tables
	sed -n "1,/^Remote Procedure Call statistics by message type/p" |
	sed -E -e "s/[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}/DATE/" -e "s/[0-9]+/N/g" |
	grep -v "Cycles per minute"
}

test_expect_success 'sdiag: Slurm layout with real numbers' '
	sdiag >out 2>err &&
	test_must_be_empty err &&
	compat_stdout sdiag.txt | sdiag_shape >expect &&
	sdiag_shape <out >actual &&
	test_cmp expect actual &&
	grep -q "^Server thread count:  1$" out &&
	grep -q "^Jobs submitted: 6$" out &&
	grep -q "^Jobs started:   1$" out &&
	grep -q "^Jobs pending:   5$" out &&
	grep -q "^Jobs running:   1$" out &&
	grep -Eq "^	Total cycles: [1-9]" out &&
	grep -Eq "^	REQUEST_SUBMIT_BATCH_JOB +\( 4003\) count:6 +ave_time:[0-9]+ +total_time:[0-9]+$" out &&
	grep -Eq "^	MESSAGE_NODE_REGISTRATION_STATUS +\( 1002\) count:2 " out &&
	grep -Eq "^	REQUEST_PRIORITY_FACTORS +\( 2026\) count:" out &&
	grep -Eq "^	root            \(       0\) count:[0-9]+ +ave_time:[0-9]+ +total_time:[0-9]+$" out &&
	tail -2 out >tail && printf "Pending RPC statistics\n\tNo pending RPCs\n" >expect && test_cmp expect tail
'

test_expect_success 'sdiag counts completions and cancels (a non-zero exit is completed, as Slurm); -i sorts by id' '
	scancel $a && wait_job_state $a CANCELLED &&
	wait_job_state $p1 COMPLETED &&
	wait_for 10 test_reason $d DependencyNeverSatisfied &&
	scancel $d && wait_job_state $d CANCELLED &&
	sdiag -i >out &&
	grep -q "^Jobs canceled:  2$" out &&
	grep -Eq "^Jobs completed: [1-9]" out &&
	grep -q "^Jobs failed:    0$" out &&
	c0=$(sed -n "s/^Jobs completed: //p" out) &&
	f=$(sbatch --parsable -o /dev/null --wrap="exit 3") && wait_job_state $f FAILED &&
	wait_for 10 sh -c "sdiag | grep -q \"^Jobs completed: $((c0 + 1))\$\"" &&
	sdiag -i >out && grep -q "^Jobs failed:    0$" out &&
	sed -n "/by message type/,/^$/p" out | sed -n "s/.*( *\([0-9]*\)).*/\1/p" >ids &&
	sort -n ids >sorted && test_cmp sorted ids
'

test_expect_success 'sdiag -r resets the counters' '
	sdiag -r >out && echo "Reset scheduling statistics" >expect && test_cmp expect out &&
	sdiag >out &&
	grep -q "^Jobs submitted: 0$" out &&
	grep -q "^Jobs canceled:  0$" out
'

test_expect_success 'sprio under priority/basic says it is not supported' '
	sed -i "s|^PriorityType=.*|PriorityType=priority/basic|" "$CL/etc/slurm.conf" &&
	scontrol reconfigure &&
	test_expect_code 1 sprio >out 2>err &&
	printf "You are not running a supported priority plugin\n(priority/basic).\nOnly '"'"'priority/multifactor'"'"' is supported.\n" >expect &&
	test_cmp expect err
'

test_expect_success 'cleanup' '
	scancel $p2 $p3 $h
'

test_done
