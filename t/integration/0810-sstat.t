#!/bin/bash
test_description='sstat: live usage of running steps, asked of the node daemons'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

GOLDEN=$SHARNESS_TEST_DIRECTORY/golden

# in_range VALUE LOW HIGH
in_range() { test -n "$1" && test "$1" -ge "$2" && test "$1" -le "$3"; }
# field JOBSTEP FIELD: one field of sstat's parsable, raw output
field() { sstat -n -P --noconvert -j "$1" -o "$2"; }
# rss_over JOBSTEP BYTES: MaxRSS of the step is at least BYTES
rss_over() { v=$(field "$1" MaxRSS) && test -n "$v" && test "$v" -ge "$2"; }

# The sampling period is long (30 s): what sstat shows comes from the
# sample the node takes when asked, not from a periodic one.
test_expect_success 'cluster starts with jobacct_gather/linux, MessageTimeout=3' '
	cluster_start 2 JobAcctGatherType=jobacct_gather/linux JobAcctGatherFrequency=task=30 \
		MessageTimeout=3
'

test_expect_success 'a running step whose task 1 touches 50 MB shows MaxRSS of about 50 MB' '
	cd "$CL/work" &&
	cat >mem.sh <<-\EOF &&
	#!/bin/sh
	srun -N2 -n2 sh -c "if [ \$SLURM_PROCID = 1 ]; then exec perl -e \"vec(\\\$x, (50<<20) - 1, 8) = 1; sleep 60\"; else exec sleep 60; fi"
	EOF
	id=$(sbatch --parsable -N2 -n2 -o out mem.sh) &&
	echo $id >jobid &&
	wait_job_state $id RUNNING 20 &&
	wait_for 20 rss_over $id.0 $((50 << 20)) &&
	rss=$(field $id.0 MaxRSS) &&
	echo "MaxRSS $rss" &&
	in_range "$rss" $((50 << 20)) $((80 << 20)) &&
	test "$(field $id.0 MaxRSSNode)" = comp002 &&
	test "$(field $id.0 MaxRSSTask)" = 1 &&
	test "$(field $id.0 NTasks)" = 2 &&
	test "$(field $id.0 Nodelist)" = "comp[001-002]" &&
	test "$(field $id JobID)" = $id.0 &&
	ave=$(field $id.0 AveRSS) && in_range "$ave" $((25 << 20)) $((40 << 20)) &&
	test "$(field $id.0 MinCPUTask)" = 0 -o "$(field $id.0 MinCPUTask)" = 1 &&
	sstat -n -P -j $id.0 -o TRESUsageInMaxNode,TRESUsageOutMaxTask >tres &&
	grep -Eq "^cpu=comp00[12],energy=comp001,fs/disk=comp00[12],mem=comp002,pages=comp00[12],vmem=comp00[12]\|fs/disk=[01]$" tres
'

test_expect_success 'the default view: Slurm 22.05 header, one row for the lowest step' '
	id=$(cat jobid) &&
	sstat -j $id >out.txt 2>err &&
	test_must_be_empty err &&
	head -2 out.txt >hdr &&
	test_cmp "$GOLDEN/sstat_header_realslurm.txt" hdr &&
	test $(wc -l <out.txt) = 3 &&
	grep -q "^$id.0  " out.txt &&
	sstat -j $id -p | head -1 | grep -q "^JobID|MaxVMSize|.*|TRESUsageOutTot|$" &&
	sstat -j $id -P | head -1 | grep -q "|TRESUsageOutTot$" &&
	sstat -j $id -n | grep -q "^$id.0 "
'

test_expect_success '-a shows the batch step first, then the srun step' '
	id=$(cat jobid) &&
	sstat -a -j $id -n -P -o JobID,NTasks,ReqCPUFreqMin >all &&
	printf "%s\n" "$id.batch|1|0" "$id.0|2|Unknown" >expect &&
	test_cmp expect all &&
	test "$(sstat -j $id.batch -n -P -o JobID,Nodelist)" = "$id.batch|comp001"
'

test_expect_success '-i lists each node with the pids of the step there, real job processes' '
	id=$(cat jobid) &&
	sstat -i -j $id >pids.txt &&
	head -2 pids.txt >hdr &&
	test_cmp "$GOLDEN/sstat_pid_header_realslurm.txt" hdr &&
	test $(wc -l <pids.txt) = 4 &&
	sed -n 3p pids.txt | grep -Eq "^$id.0 +comp001 +[0-9,]+ $" &&
	sed -n 4p pids.txt | grep -Eq "^$id.0 +comp002 +[0-9,]+ $" &&
	for pid in $(sstat -n -P -i -j $id | cut -d"|" -f3 | tr , " "); do
		tr "\0" "\n" </proc/$pid/environ | grep -qx "SLURM_JOB_ID=$id" || return 1
	done
'

test_expect_success '--noconvert, widths and units as Slurm prints them' '
	id=$(cat jobid) &&
	raw=$(field $id.0 MaxVMSize) &&
	conv=$(sstat -n -P -j $id.0 -o MaxVMSize) &&
	kb=$((raw / 1024)) &&
	test $((raw % 1024)) = 0 &&
	if [ $((kb % 512)) != 0 ]; then test "$conv" = "${kb}K"; fi &&
	sstat -j $id -o "jobid%20,maxrss%-12,ntasks%3" >w &&
	sed -n 1p w | grep -qx "               JobID MaxRSS       NTa " &&
	sed -n 3p w | grep -Eq "^ +$id.0 [0-9.]+[KMG]? +  2 $"
'

test_expect_success PYTHON '--json: the steps with their TRES usage' '
	id=$(cat jobid) &&
	sstat --json -j $id >j.json &&
	python3 -c "
import json, sys
d = json.load(open(\"j.json\"))
s = d[\"steps\"][0]
assert s[\"step_id\"] == \"$id.0\" and s[\"ntasks\"] == 2, s
mem = [t for t in s[\"tres\"][\"requested\"][\"max\"] if t[\"type\"] == \"mem\"][0]
assert mem[\"count\"] >= 50 << 20 and mem[\"node\"] == \"comp002\" and mem[\"task\"] == 1, mem
"
'

test_expect_success USERS 'another user may not see the job; its owner may' '
	id=$(cat jobid) &&
	runuser -u alice -- sstat -j $id.0 -n >out 2>err &&
	test_must_be_empty out &&
	grep -qx "sstat: error: problem getting step_layout for StepId=$id.0: Invalid user id" err &&
	aid=$(runuser -u alice -- sbatch --parsable -D /tmp -o /dev/null --wrap="srun sleep 30") &&
	wait_for 20 sh -c "runuser -u alice -- sstat -n -P -j $aid -o JobID,NTasks | grep -qx $aid.0\|1" &&
	scancel $aid
'

test_expect_success 'errors as Slurm words them (exit status 0, as Slurm)' '
	sstat -j 999999 -n >out 2>err &&
	test_must_be_empty out &&
	grep -qx "sstat: error: couldn.t get steps for job 999999" err &&
	id=$(cat jobid) &&
	sstat -j $id.7 -n 2>err &&
	grep -qx "sstat: error: StepId=$id.7 not found running." err &&
	held=$(sbatch --parsable -H --wrap=true) &&
	sstat -j $held -n 2>err &&
	grep -qx "sstat: error: No steps running for job $held" err &&
	sstat -j $held.0 -n 2>err &&
	grep -qx "sstat: error: StepId=$held.0 not found running." err &&
	scancel $held
'

test_expect_success 'bad options exit 1 with Slurm errors' '
	test_expect_code 1 sstat 2>err &&
	grep -qx "sstat: error: You didn.t give me any jobs to stat." err &&
	test_expect_code 1 sstat -j 1 -o foo 2>err &&
	grep -qx "sstat: error: Invalid field requested: \"foo\"" err &&
	test_expect_code 1 sstat -j abc 2>err &&
	grep -qx "sstat: fatal: Bad job/step specified: abc" err &&
	test_expect_code 1 sstat -j 5. 2>err &&
	grep -qx "sstat: fatal: Bad step specified: 5" err &&
	sstat --usage | grep -q "^Usage: sstat \[options\] -j <job(.stepid)>" &&
	sstat --help | grep -q -- "--allsteps" &&
	sstat -e | diff - "$GOLDEN/sstat_-e_realslurm.txt"
'

test_expect_success 'a stopped node daemon costs an error line and MessageTimeout, not a hang' '
	id=$(cat jobid) &&
	pid=$(cat "$CL/noded-comp002.pid") &&
	kill -STOP $pid &&
	start=$(date +%s) &&
	sstat -n -P -j $id.0 -o JobID,NTasks,Nodelist >out 2>err;
	end=$(date +%s); kill -CONT $pid &&
	cat out err &&
	test $((end - start)) -le 8 &&
	grep -q "sstat: error: slurm_job_step_stat: there was an error with the request to comp002 rc = " err &&
	test "$(cat out)" = "$id.0|1|comp001"
'

test_expect_success 'a step that ended is no longer shown' '
	id=$(cat jobid) &&
	scancel $id &&
	wait_for 20 sh -c "! squeue -h -j $id -t R | grep -q ." &&
	wait_for 20 sh -c "sstat -j $id.0 -n 2>&1 | grep -q \"not found running\|No steps running\""
'

test_done
