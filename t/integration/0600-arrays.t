#!/bin/bash
test_description='job arrays: submission, views, environment, throttle, cancel, dependencies, restart'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2 "MaxArraySize=101"
'

# squeue's job id column of an array's rows, in id order
ids() { squeue -h "$@" -o %i | sort -V | tr "\n" " "; }
# array ID has N running tasks / none left to run
n_running() { test "$(squeue -h -j $1 -t R | wc -l)" = $2; }
array_done() { test -z "$(squeue -h -j $1 -t PD,R,CG)"; }
n_files() { test "$(ls $1 2>/dev/null | wc -l)" = $2; }
only_left() { test "$(squeue -h -j $1 -t PD,R,CG -o %i)" = "$2"; }

test_expect_success 'a held array is one pending row in squeue, one per task with -r' '
	cd "$CL/work" &&
	a=$(sbatch --parsable -H --array=1-4%2 -o /dev/null --wrap=true) &&
	squeue -h -j $a -o "%i|%t|%r|%F|%K|%A" >out &&
	echo "${a}_[1-4%2]|PD|JobHeldUser|$a|1-4%2|$a" >expect &&
	test_cmp expect out &&
	test "$(ids -r -j $a)" = "${a}_1 ${a}_2 ${a}_3 ${a}_4 " &&
	squeue -h -r -j $a -o "%K" | tr "\n" " " >out &&
	test "$(cat out)" = "1 2 3 4 " &&
	squeue -h -O ArrayJobID:8,ArrayTaskID:8,JobArrayID:14 -j $a >out &&
	printf "%-8s%-8s%-14s\n" $a 1-4%2 "${a}_[1-4%2]" >expect &&
	test_cmp expect out &&
	echo $a >held_array
'

test_expect_success 'scontrol show job of an array prints its array lines' '
	a=$(cat held_array) &&
	scontrol show job $a | head -1 >out &&
	echo "JobId=$a ArrayJobId=$a ArrayTaskId=1-4%2 ArrayTaskThrottle=2 JobName=wrap" >expect &&
	test_cmp expect out &&
	scontrol show job ${a}_3 | head -1 >out &&
	echo "JobId=$a ArrayJobId=$a ArrayTaskId=3 ArrayTaskThrottle=2 JobName=wrap" >expect &&
	test_cmp expect out &&
	test_expect_code 1 scontrol show job ${a}_9 >out &&
	echo "Job ${a}_9 not found" >expect &&
	test_cmp expect out
'

test_expect_success 'scontrol update ArrayTaskThrottle and --json show the throttle' '
	a=$(cat held_array) &&
	scontrol update jobid=$a ArrayTaskThrottle=3 &&
	test "$(squeue -h -j $a -o %K)" = "1-4%3" &&
	squeue --json | python3 -c "
import json, sys
j = [x for x in json.load(sys.stdin)[\"jobs\"] if x[\"job_id\"] == $a][0]
assert j[\"array_job_id\"] == $a and j[\"array_task_id\"] is None, j
assert j[\"array_max_tasks\"] == 3 and j[\"array_task_string\"] == \"1-4%3\", j
"
'

test_expect_success 'scancel of a pending task, of a task range, then of the whole array' '
	a=$(cat held_array) &&
	scancel ${a}_2 &&
	test "$(ids -r -j $a)" = "${a}_1 ${a}_3 ${a}_4 " &&
	scancel "${a}_[3-4]" &&
	test "$(ids -r -j $a)" = "${a}_1 " &&
	b=$(sbatch --parsable -H --array=5-7 -o /dev/null --wrap=true) &&
	scancel $b &&
	array_done $b &&
	test "$(job_state $b)" = CANCELLED
'

test_expect_success 'update, release and hold of one task split it off the array, as Slurm' '
	a=$(sbatch --parsable -H --array=1-3 -o /dev/null --wrap=true) &&
	scontrol update jobid=${a}_3 TimeLimit=5 &&
	test "$(squeue -h -j ${a}_3 -o "%i %l")" = "${a}_3 5:00" &&
	test "$(squeue -h -j $a -o %i | sort | tr "\n" " ")" = "${a}_3 ${a}_[1-2] " &&
	test "$(squeue -h -j ${a}_3 -o %A)" != $a &&
	test_expect_code 1 scontrol release ${a}_9 2>err &&
	echo "${a}_9: Invalid job id specified" >expect &&
	test_cmp expect err &&
	scontrol release ${a}_2 &&
	wait_for 20 test_job_state $(squeue -h -j ${a}_2 -t all -o %A) COMPLETED &&
	test "$(squeue -h -j $a -t PD -o "%i %r" | sort | tr "\n" " ")" = "${a}_1 JobHeldUser ${a}_3 JobHeldUser " &&
	scontrol hold ${a}_1 &&
	test_reason $a JobHeldAdmin &&
	scancel $a
'

test_expect_success 'bad array specs are refused as Slurm refuses them' '
	for spec in abc 5-3 1-4:0 -1 1-3,x 101 0-101; do
		test_expect_code 1 sbatch --array=$spec --wrap=true 2>err &&
		echo "sbatch: error: Batch job submission failed: Invalid job array specification" >expect &&
		test_cmp expect err || return 1
	done &&
	sbatch --parsable -H --array=0-100 -o /dev/null --wrap=true >id &&
	scancel $(cat id)
'

test_expect_success 'tasks get SLURM_ARRAY_* and write slurm-%A_%a.out; SBATCH_ARRAY_INX' '
	cd "$CL/work" &&
	a=$(SBATCH_ARRAY_INX=0-15:4 sbatch --parsable --wrap="env | grep ^SLURM_ARRAY_ | sort") &&
	wait_for 30 n_files "slurm-${a}_*.out" 4 &&
	wait_for 30 array_done $a &&
	cat >expect <<-EOF &&
	SLURM_ARRAY_JOB_ID=$a
	SLURM_ARRAY_TASK_COUNT=4
	SLURM_ARRAY_TASK_ID=8
	SLURM_ARRAY_TASK_MAX=12
	SLURM_ARRAY_TASK_MIN=0
	SLURM_ARRAY_TASK_STEP=4
	EOF
	test_cmp expect slurm-${a}_8.out &&
	test "$(scontrol show job ${a}_8 | grep -o "StdOut=.*")" = "StdOut=$CL/work/slurm-${a}_8.out" &&
	sacct -n -X -j $a -o JobID%12,State%10 | awk "{print \$1, \$2}" | sort -V >out &&
	printf "%s COMPLETED\n" ${a}_0 ${a}_4 ${a}_8 ${a}_12 >expect &&
	test_cmp expect out &&
	test "$(sacct -n -X -j ${a}_12 -o JobIDRaw | tr -d " ")" = $a
'

test_expect_success 'the %N throttle keeps at most N tasks running' '
	cd "$CL/work" &&
	a=$(sbatch --parsable --array=1-4%1 -o "thr-%a.out" --wrap="date +%s.%N; sleep 1; date +%s.%N") &&
	wait_for 20 n_running $a 1 &&
	wait_for 10 test_reason $a JobArrayTaskLimit &&
	wait_for 40 array_done $a &&
	cat thr-1.out thr-2.out thr-3.out thr-4.out | tr "\n" " " >times &&
	python3 -c "
import sys
t = [float(x) for x in open(\"times\").read().split()]
spans = sorted(zip(t[0::2], t[1::2]))
assert len(spans) == 4, spans
assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans
"
'

test_expect_success 'sacct names the tasks that never started as Slurm does (A_[3-6%2])' '
	cd "$CL/work" &&
	a=$(sbatch --parsable --array=1-6%2 -o /dev/null --wrap="sleep 60") &&
	wait_for 20 n_running $a 2 &&
	wait_for 10 sh -c "sacct -n -X -j $a -o JobID%14 | grep -q \"_\[3-6%2\]\"" &&
	scancel $a &&
	wait_for 30 array_done $a &&
	sacct -n -X -j $a -o JobID%14,State%10 | awk "{print \$1, \$2}" | sort -V >out &&
	printf "%s CANCELLED+\n" ${a}_1 ${a}_2 "${a}_[3-6%2]" >expect &&
	test_cmp expect out &&
	h=$(sbatch --parsable -H --array=1-4 -o /dev/null --wrap=true) &&
	scancel $h &&
	test "$(sacct -n -X -j $h -o JobID%14,JobIDRaw | awk "{print \$1, \$2}")" = "${h}_[1-4] $h"
'

test_expect_success 'afterok on an array waits for every task' '
	cd "$CL/work" &&
	a=$(sbatch --parsable --array=1-3 -o /dev/null --wrap="sleep 1") &&
	d=$(sbatch --parsable -d afterok:$a -o dep.out --wrap="squeue -h -j $a -t all -o %t | sort | uniq -c") &&
	wait_job_state $d COMPLETED 40 &&
	test "$(awk "{print \$1, \$2}" dep.out)" = "3 CD" &&
	f=$(sbatch --parsable --array=1-2 -o /dev/null --wrap="test \$SLURM_ARRAY_TASK_ID != 2") &&
	g=$(sbatch --parsable -d afterok:$f -o /dev/null --wrap=true) &&
	g1=$(sbatch --parsable -d afterok:${f}_1 -o /dev/null --wrap=true) &&
	g2=$(sbatch --parsable -d afterok:${f}_2 -o /dev/null --wrap=true) &&
	g3=$(sbatch --parsable -d "afterany:${f}_*" -o /dev/null --wrap=true) &&
	wait_for 30 test_reason $g DependencyNeverSatisfied &&
	wait_for 30 test_reason $g2 DependencyNeverSatisfied &&
	test "$(job_field $g2 Dependency)" = "afterok:${f}_2(failed)" &&
	wait_job_state $g1 COMPLETED 30 &&
	wait_job_state $g3 COMPLETED 30
'

test_expect_success 'aftercorr: task i starts after task i of the other array completed' '
	cd "$CL/work" &&
	a=$(sbatch --parsable --array=1-3 -o /dev/null --wrap="test \$SLURM_ARRAY_TASK_ID != 2") &&
	b=$(sbatch --parsable --array=1-4 -d aftercorr:$a -o "corr-%a.out" --wrap="squeue -h -j ${a}_\$SLURM_ARRAY_TASK_ID -t all -o %t") &&
	wait_for 30 only_left $b ${b}_2 &&
	test "$(cat corr-1.out corr-3.out | tr "\n" " ")" = "CD CD " &&
	test -z "$(cat corr-4.out)" &&
	test ! -e corr-2.out &&
	wait_for 20 test_reason $b DependencyNeverSatisfied &&
	test "$(squeue -h -j $b -t PD -o %i)" = ${b}_2 &&
	scancel $b
'

test_expect_success 'a controller killed mid-array loses and repeats no task' '
	cd "$CL/work" &&
	a=$(sbatch --parsable --array=1-6%2 -o "rs-%a.out" --wrap="echo \$SLURM_ARRAY_TASK_ID; sleep 1") &&
	wait_for 20 n_running $a 2 &&
	ctld_kill9 &&
	ctld_start &&
	wait_for 60 array_done $a &&
	for i in 1 2 3 4 5 6; do test "$(cat rs-$i.out)" = $i || return 1; done &&
	sacct -n -X -j $a -o JobID%12,State%10 | awk "{print \$1, \$2}" | sort -V >out &&
	printf "%s COMPLETED\n" ${a}_1 ${a}_2 ${a}_3 ${a}_4 ${a}_5 ${a}_6 >expect &&
	test_cmp expect out
'

test_expect_success 'a pending array survives a restart as one record' '
	a=$(sbatch --parsable -H --array=3-9:3%2 -o /dev/null --wrap=true) &&
	ctld_kill9 &&
	ctld_start &&
	test "$(squeue -h -j $a -o %i)" = "${a}_[3,6,9%2]" &&
	test "$(squeue -h -j $a -o %r)" = JobHeldUser &&
	scontrol release $a &&
	wait_for 30 array_done $a &&
	test "$(sacct -n -X -j $a -o State | sort | uniq -c | awk "{print \$1, \$2}")" = "3 COMPLETED"
'

test_done
