#!/bin/bash
test_description='squeue -s and scontrol show step: the live steps, as Slurm 22.05 shows them'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

nsteps() { squeue -s -h "$@" | wc -l; }
nsteps_is() { test "$(nsteps 2>/dev/null)" = "$1"; }

# Job A (alice, one node): its batch step and step 0. Job B (root, two
# nodes): batch, step 0 on both nodes, step 1 named, with its own limit.
test_expect_success 'steps of running jobs are listed' '
	cd "$CL/work" &&
	A=$(runuser -u alice -- sbatch --parsable -N1 -D /tmp -o /dev/null -J steps_a --wrap "srun sleep 300") &&
	cat >b.sh <<-\EOF &&
	#!/bin/sh
	srun -n2 sh -c "touch b.\$SLURM_PROCID; exec sleep 300" &
	while [ ! -e b.0 ]; do sleep 0.1; done
	srun --overlap -n1 -J named -t 5 sleep 300 &
	wait
	EOF
	B=$(sbatch --parsable -N2 -n2 -p defq -o /dev/null -J steps_b b.sh) &&
	echo $A >A && echo $B >B &&
	wait_for 30 nsteps_is 5
'

test_expect_success 'squeue -s: Slurm'"'"'s columns, order (partition, step id) and widths' '
	squeue -s >out &&
	head -1 out >actual &&
	echo "         STEPID     NAME PARTITION     USER      TIME NODELIST" >expect &&
	test_cmp expect actual &&
	sed 1d out | cut -c1-43,54- >actual &&
	printf "%15s %8s %9s %8s %s\n" $A.0 sleep defq alice comp001 $A.batch batch defq alice comp001 \
		$B.0 sh defq root "comp[001-002]" $B.1 named defq root comp001 \
		$B.batch batch defq root comp001 >expect &&
	test_cmp expect actual &&
	sed 1d out | cut -c44-53 >times && ! grep -Ev "^ +[0-9]+:[0-9][0-9]$" times
'

test_expect_success 'squeue -s filters: a step list, -j, -u, -w, -p' '
	squeue -h -s$B.1,$A.batch -o "%i" >actual &&
	printf "%s\n" $A.batch $B.1 >expect && test_cmp expect actual &&
	squeue -h -s -j $B -o "%i" >actual &&
	printf "%s\n" $B.0 $B.1 $B.batch >expect && test_cmp expect actual &&
	squeue -h -s -u alice -o "%i" >actual &&
	printf "%s\n" $A.0 $A.batch >expect && test_cmp expect actual &&
	squeue -h -s -w comp002 -o "%i" >actual &&
	echo $B.0 >expect && test_cmp expect actual &&
	squeue -h -s -p short -o "%i" >actual && test_must_be_empty actual &&
	squeue -h -s -S -i -o "%i" >actual &&
	printf "%s\n" $B.batch $B.1 $B.0 $A.batch $A.0 >expect && test_cmp expect actual
'

test_expect_success 'squeue -s -o/-O: the step fields, bad ones reported as Slurm' '
	squeue -s$B.1 -o "%i|%j|%u|%P|%N|%l|%A|%U|%b|%D" >actual 2>err &&
	printf "STEPID|NAME|USER|PARTITION|NODELIST|TIME_LIMIT|TASKS|UID|TRES_PER_JOB|%%D\n$B.1|named|root|defq|comp001|5:00|1|0|(null)|%%D\n" >expect &&
	test_cmp expect actual &&
	echo "squeue: error: Invalid job step format specification: D" >expect &&
	test_cmp expect err &&
	squeue -s$B.0 -O StepId:8,NumTasks:6,NumCPUs:9,Nodes:15,StepState:8,ArrayTaskID:4,Name >actual 2>err &&
	printf "%-8s%-6s%-9s%-15s%-8s%-4s\n" STEPID TASKS NUM_CPUS NODELIST STATE ARRA $B.0 2 2 "comp[001-002]" RUNNING N/A >expect &&
	test_cmp expect actual &&
	echo "squeue: error: Invalid job step format specification: Name" >expect &&
	test_cmp expect err &&
	squeue -s$A.0 -o %all >actual &&
	head -1 actual >h && echo "TRES_PER_JOB|STEPID|NAME|TIME_LIMIT|USER|TASKS|TIME|NODELIST|PARTITION|START_TIME|UID|" >expect &&
	test_cmp expect h
'

test_expect_success 'squeue -s with a bare job id fails as Slurm' '
	test_expect_code 1 squeue -s$A >out 2>err &&
	test_must_be_empty out &&
	echo "squeue: error: Invalid job_step id: $A.??" >expect && test_cmp expect err
'

normalize() { sed -e "s/StartTime=[0-9T:-]*/StartTime=X/" -e "s/Pid=\([a-z0-9.-]*\):[0-9]*/Pid=\1:N/"; }

test_expect_success 'scontrol show step: an srun step and the batch step' '
	scontrol show step $B.1 | normalize >actual &&
	h=$(hostname -s) &&
	cat >expect <<-EOF &&
	StepId=$B.1 UserId=0 StartTime=X TimeLimit=00:05:00
	   State=RUNNING Partition=defq NodeList=comp001
	   Nodes=1 CPUs=1 Tasks=1 Name=named Network=(null)
	   TRES=cpu=1,mem=1G,node=1
	   ResvPorts=(null)
	   CPUFreqReq=Default Dist=Cyclic
	   SrunHost:Pid=$h:N

	EOF
	test_cmp expect actual &&
	scontrol show step $A.batch | normalize >actual &&
	cat >expect <<-EOF &&
	StepId=$A.batch UserId=$(id -u alice) StartTime=X TimeLimit=UNLIMITED
	   State=RUNNING Partition=defq NodeList=comp001
	   Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)
	   TRES=(null)
	   ResvPorts=(null)
	   CPUFreqReq=Default
	   SrunHost:Pid=(null):0

	EOF
	test_cmp expect actual &&
	scontrol show step $B.0 | grep -qx "   CPUFreqReq=Default Dist=Cyclic"
'

test_expect_success 'scontrol show steps (all, one job, -o one line each)' '
	scontrol show steps | grep -c "^StepId=" >n && echo 5 >expect && test_cmp expect n &&
	scontrol show step $B | sed -n "s/^StepId=\([^ ]*\) .*/\1/p" >actual &&
	printf "%s\n" $B.batch $B.0 $B.1 >expect && test_cmp expect actual &&
	scontrol -o show steps $A >actual && test "$(wc -l <actual)" = 2 &&
	grep -q "^StepId=$A.0 UserId=$(id -u alice) .* State=RUNNING Partition=defq NodeList=comp001 Nodes=1 CPUs=1 Tasks=1 Name=sleep Network=(null) TRES=cpu=1,mem=1G,node=1 ResvPorts=(null) CPUFreqReq=Default Dist=Cyclic SrunHost:Pid=" actual
'

test_expect_success 'scontrol show step: errors as Slurm words them' '
	test_expect_code 1 scontrol show step 999999 >out 2>err &&
	test_must_be_empty out &&
	echo "slurm_get_job_steps error: Invalid job id specified" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol show step $A.7 >out &&
	echo "Job step $A.7 not found" >expect && test_cmp expect out &&
	test_expect_code 1 scontrol show step $A.x 2>err &&
	grep -q "Invalid job step id: $A.x" err
'

test_expect_success 'a controller restart keeps the running steps (from their records)' '
	scontrol show step $B.1 >before &&
	ctld_kill9 &&
	ctld_start &&
	wait_for 30 nsteps_is 5 &&
	scontrol show step $B.1 >after &&
	test_cmp before after
'

test_expect_success 'steps that end leave the view; a cancelled job'"'"'s steps too' '
	scancel $B &&
	wait_for 30 nsteps_is 2 &&
	squeue -h -s -o "%i" >actual &&
	printf "%s\n" $A.0 $A.batch >expect && test_cmp expect actual &&
	scancel $A &&
	wait_for 30 nsteps_is 0 &&
	test_expect_code 1 scontrol show steps >out &&
	echo "No job steps in the system" >expect && test_cmp expect out
'

test_expect_success 'array tasks'"'"' steps: ARRAY_TASK.STEP in squeue and scontrol, as Slurm' '
	R=$(sbatch --parsable --array=1-2 -o /dev/null --wrap "srun -t 2 sleep 300") &&
	wait_for 30 nsteps_is 4 &&
	squeue -h -s -o "%i %l" | sort >actual &&
	printf "%s\n" "${R}_1.0 2:00" "${R}_1.batch UNLIMITED" "${R}_2.0 2:00" "${R}_2.batch UNLIMITED" >expect &&
	test_cmp expect actual &&
	scontrol show step ${R}_2 | sed -n "s/^StepId=\([^ ]*\) .*/\1/p" >actual &&
	printf "%s\n" ${R}_2.batch ${R}_2.0 >expect && test_cmp expect actual &&
	scontrol show step ${R}_1.0 | grep -q "^StepId=${R}_1.0 .* TimeLimit=00:02:00$" &&
	scancel $R
'

test_done
