#!/bin/bash
test_description='scheduling through the commands: GPU types and affinity, exclusive, reasons, backfill, topology'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# 6 nodes of 8 CPUs: comp[001-004] 8 h100 (GPUs 0-3 close to CPUs 0-3,
# 4-7 to CPUs 4-7), comp[005-006] 4 a100. Leaves: comp[001-003], comp[004-006].
export NODE_ATTRS_5="Gres=gpu:a100:4 Feature=a100,ib" NODE_ATTRS_6="Gres=gpu:a100:4 Feature=a100,ib"
export GRES_CONF="NodeName=comp[001-004] Name=gpu Type=h100 File=/dev/nvidia[0-3] Cores=0-3
NodeName=comp[001-004] Name=gpu Type=h100 File=/dev/nvidia[4-7] Cores=4-7
NodeName=comp[005-006] Name=gpu Type=a100 Count=4"

test_expect_success 'cluster with h100 and a100 nodes, backfill every second' '
	cluster_start 6 "SchedulerType=sched/backfill" "SchedulerParameters=bf_interval=1" \
		"PriorityType=priority/multifactor" "PriorityWeightAge=1000" "PriorityWeightJobSize=1000" &&
	sinfo -h -N -o "%N %G" | sort -u >out &&
	grep -q "comp001 gpu:h100:8" out && grep -q "comp005 gpu:a100:4" out
'

# A cancelled job shows CANCELLED at once but holds its CPUs until its
# supervisor reports: wait for the nodes to be idle too, or the next test's
# job may find them still in use (nodes allocated, mixed or completing).
cancel_all() { scancel -u root; wait_for 20 sh -c "test -z \"\$(squeue -h -t PD,R,CG)\"" &&
	wait_for 20 sh -c "! sinfo -h -N -o %t | grep -Eq \"^(alloc|mix|comp)\""; }

test_expect_success 'GPU type: a100 jobs go to a100 nodes, h100 jobs to h100 nodes' '
	a=$(sbatch --parsable --gres=gpu:a100:2 -t 5 -o /dev/null --wrap="sleep 297") &&
	h=$(sbatch --parsable --gres=gpu:h100:8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING && wait_job_state $h RUNNING &&
	case $(job_field $a NodeList) in comp005|comp006) ;; *) false ;; esac &&
	case $(job_field $h NodeList) in comp00[1-4]) ;; *) false ;; esac &&
	test_must_fail sbatch --gres=gpu:a100:8 -t 5 --wrap=true 2>err &&
	grep -q "Requested node configuration is not available" err &&
	cancel_all
'

test_expect_success 'GPU affinity: GPUs next to the CPUs the job gets; show -d and env agree' '
	c=$(sbatch --parsable -w comp001 -n 3 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $c RUNNING &&
	g=$(sbatch --parsable -w comp001 -n 2 --gres=gpu:h100:2 -t 5 -o "$CL/work/env.out" \
		--wrap="env | grep -E \"^(CUDA_VISIBLE_DEVICES|SLURM_JOB_GPUS|GPU_DEVICE_ORDINAL)=\" | sort; sleep 297") &&
	wait_job_state $g RUNNING &&
	scontrol show job -d $c >out &&
	grep -qx "   JOB_GRES=(null)" out &&
	grep -qx "     Nodes=comp001 CPU_IDs=0-2 Mem=3072 GRES=" out &&
	scontrol show job -d $g >out &&
	grep -qx "   JOB_GRES=gpu:h100:2" out &&
	grep -qx "     Nodes=comp001 CPU_IDs=4-5 Mem=2048 GRES=gpu:h100:2(IDX:4-5)" out &&
	printf "CUDA_VISIBLE_DEVICES=4,5\nGPU_DEVICE_ORDINAL=4,5\nSLURM_JOB_GPUS=4,5\n" >expect &&
	wait_for 10 test -s "$CL/work/env.out" &&
	test_cmp expect "$CL/work/env.out" &&
	scontrol show job $g >out && ! grep -q CPU_IDs out &&
	cancel_all
'

test_expect_success 'multi-node -d lines are grouped like Slurm' '
	j=$(sbatch --parsable -N 2 -n 2 -C h100 --gpus-per-node=1 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $j RUNNING &&
	scontrol show job -d $j >out &&
	grep -qx "   JOB_GRES=gpu:h100:2" out &&
	test "$(grep -c "^     Nodes=" out)" = 1 &&
	grep -q "^     Nodes=comp\[00[1-4]-00[1-4]\] CPU_IDs=0 Mem=1024 GRES=gpu:h100:1(IDX:0)$" out &&
	cancel_all
'

test_expect_success 'shared jobs share a node, an exclusive job holds a whole node and its GPUs' '
	s1=$(sbatch --parsable -n 1 -t 5 -o /dev/null --wrap="sleep 297") &&
	s2=$(sbatch --parsable -n 1 -t 5 -o /dev/null --wrap="sleep 297") &&
	x=$(sbatch --parsable -n 1 --exclusive -C h100 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $s1 RUNNING && wait_job_state $s2 RUNNING && wait_job_state $x RUNNING &&
	test "$(job_field $s1 NodeList)" = "$(job_field $s2 NodeList)" &&
	test "$(job_field $x NodeList)" != "$(job_field $s1 NodeList)" &&
	test "$(job_field $x NumCPUs)" = 8 &&
	scontrol show job -d $x >out &&
	grep -q "^     Nodes=comp00[1-4] CPU_IDs=0-7 Mem=8192 GRES=gpu:h100:8(IDX:0-7)$" out &&
	cancel_all
'

# A holds comp[001-004] for 2 minutes; B needs all six nodes, so it waits
# for A (Resources) with a planned start; C (1 minute) ends before A and
# backfills on comp005/006; D (10 minutes) would delay B and waits (Priority).
test_expect_success 'Resources then Priority; backfill of a short job only' '
	A=$(sbatch --parsable -N 4 --exclusive -C h100 -t 2 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $A RUNNING &&
	B=$(sbatch --parsable -N 6 --exclusive -t 10 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $B Resources &&
	C=$(sbatch --parsable -N 1 --exclusive -t 1 -o /dev/null --wrap="sleep 297") &&
	D=$(sbatch --parsable -N 1 --exclusive -t 10 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $C RUNNING 10 &&
	test "$(job_field $C Scheduler)" = Backfill &&
	wait_for 10 test_reason $D Priority &&
	test_reason $B Resources &&
	test_job_state $D PENDING
'

test_expect_success 'the reserved job shows StartTime and SchedNodeList; squeue --start' '
	a_end=$(job_field $A EndTime) &&
	wait_for 10 sh -c "scontrol show job $B | grep -q SchedNodeList=comp" &&
	test "$(job_field $B SchedNodeList)" = "comp[001-006]" &&
	b_start=$(job_field $B StartTime) &&
	test "$b_start" != Unknown &&
	test "$(date -d "$b_start" +%s)" -ge "$(( $(date -d "$a_end" +%s) - 60 ))" &&
	test "$(date -d "$b_start" +%s)" -le "$(( $(date -d "$a_end" +%s) + 60 ))" &&
	H=$(sbatch --parsable -H -t 1 -o /dev/null --wrap=true) &&
	squeue --start >out &&
	head -1 out | grep -q "START_TIME  NODES SCHEDNODES           NODELIST(REASON)" &&
	grep -q "^ *$B .* PD $b_start      6 comp\[001-006\] *(Resources)$" out &&
	grep -q "^ *$D .* PD " out &&
	: a job without a start time, N/A, sorts after the planned ones, as Slurm &&
	grep -q "^ *$H .* PD  *N/A .*(JobHeldUser)$" out &&
	test "$(grep -n "^ *$B " out | cut -d: -f1)" -lt "$(grep -n "^ *$H " out | cut -d: -f1)" &&
	scancel $H
'

test_expect_success 'jobs backfill has examined show Scheduler=Backfill:*' '
	test "$(job_field $B Scheduler)" = "Backfill:*" &&
	test "$(job_field $D Scheduler)" = "Backfill:*" &&
	test "$(job_field $A Scheduler)" = Main
'

test_expect_success 'cancelling A starts B (D still waits for B)' '
	scancel $A $C &&
	wait_job_state $B RUNNING 20 &&
	test_job_state $D PENDING &&
	cancel_all
'

test_expect_success 'topology: jobs land within the leaf with the fewest spare nodes' '
	o=$(sbatch --parsable -w comp004 --exclusive -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $o RUNNING &&
	t=$(sbatch --parsable -N 2 --exclusive -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $t RUNNING &&
	test "$(job_field $t NodeList)" = "comp[005-006]" &&
	scancel $o && wait_for 20 sh -c "test -z \"\$(squeue -h -j $o -t R,CG)\"" &&
	wait_for 20 sh -c "test \"\$(sinfo -h -n comp004 -o %T)\" = idle" &&
	s1=$(sbatch --parsable -n 1 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $s1 RUNNING &&
	test "$(job_field $s1 NodeList)" = comp004 &&
	t3=$(sbatch --parsable -N 3 --exclusive -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $t3 RUNNING &&
	test "$(job_field $t3 NodeList)" = "comp[001-003]" &&
	cancel_all
'

test_expect_success 'reasons: PartitionTimeLimit, BeginTime, Dependency, PartitionDown' '
	r0=$(sbatch --parsable -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $r0 RUNNING &&
	r1=$(sbatch --parsable -p short -t 2:00:00 -o /dev/null --wrap=true) &&
	r2=$(sbatch --parsable --begin=now+1hour -t 5 -o /dev/null --wrap=true) &&
	r3=$(sbatch --parsable --dependency=afterok:$r0 -t 5 -o /dev/null --wrap=true) &&
	wait_for 10 test_reason $r1 PartitionTimeLimit &&
	wait_for 10 test_reason $r2 BeginTime &&
	wait_for 10 test_reason $r3 Dependency &&
	test "$(job_field $r1 StartTime)" = Unknown &&
	test "$(job_field $r3 Dependency)" = "afterok:$r0(unfulfilled)" &&
	scontrol update PartitionName=short State=DOWN &&
	r4=$(sbatch --parsable -p short -t 5 -o /dev/null --wrap=true) &&
	wait_for 10 test_reason $r4 PartitionDown &&
	wait_for 10 test_reason $r1 PartitionDown &&
	squeue -h -j $r4 -o "%R" >out && echo "(PartitionDown)" >expect && test_cmp expect out &&
	scontrol update PartitionName=short State=UP &&
	cancel_all
'

test_expect_success 'GPU-relative options: --gpus-per-task, --cpus-per-gpu, --mem-per-gpu' '
	g=$(sbatch --parsable -n 2 --gpus-per-task=2 -t 5 -o "$CL/work/gpt.out" \
		--wrap="echo \$CUDA_VISIBLE_DEVICES; sleep 297") &&
	wait_job_state $g RUNNING &&
	case $(job_field $g NodeList) in comp00[1-6]) ;; *) false ;; esac &&
	wait_for 10 test -s "$CL/work/gpt.out" &&
	test "$(tr , "\n" <"$CL/work/gpt.out" | wc -l)" = 4 &&
	scontrol show job $g >out &&
	grep -qx "   TresPerTask=gres:gpu:2" out &&
	c=$(sbatch --parsable --cpus-per-gpu=2 --gpus=2 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $c RUNNING &&
	test "$(job_field $c NumCPUs)" = 4 &&
	scontrol show job $c >out &&
	grep -qx "   CpusPerTres=gres:gpu:2" out &&
	m=$(SBATCH_MEM_PER_GPU=1G sbatch --parsable --gpus=2 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $m RUNNING &&
	scontrol show job $m >out &&
	grep -q "^   TRES=cpu=1,mem=2G,node=1" out &&
	grep -qx "   MemPerTres=gres:gpu:1024" out &&
	cancel_all
'

test_done
