#!/bin/bash
test_description='--gpu-bind=closest gives each task the GPUs whose gres.conf Cores=
hold the CPUs it is bound to; --gpu-bind=verbose prints Slurm'"'"'s gpu-bind line per task'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The host's CPUs 0 and 1 (tasks are bound to them; CI machines may have one).
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] &&
	taskset -p $$ 2>/dev/null | grep -Eq "mask: *(0x)?[0-9a-f]*[37bf]$" &&
	test_set_prereq TWOCPUS

# GPUs 0-3 near core 0, 4-7 near core 1 (a 2-CPU host stands for the
# two sockets of a real node: 0-3 / 4-7)
test_expect_success 'cluster with GPU Cores= in gres.conf' '
	GRES_CONF="NodeName=comp001 Name=gpu Type=h100 Count=4 Cores=0
NodeName=comp001 Name=gpu Type=h100 Count=4 Cores=1" cluster_start 1 &&
	cd "$CL/work"
'

test_expect_success TWOCPUS '--gpu-bind=closest: each task the GPUs near its cores' '
	srun -n2 -l --cpu-bind=map_cpu:0,1 --gres=gpu:8 --gpu-bind=closest bash -c "echo \$CUDA_VISIBLE_DEVICES \$SLURM_STEP_GPUS" | sort >close.out &&
	printf "0: 0,1,2,3 0,1,2,3,4,5,6,7\n1: 4,5,6,7 0,1,2,3,4,5,6,7\n" >expect &&
	test_cmp expect close.out &&
	srun -n2 -l --cpu-bind=map_cpu:1,0 --gres=gpu:8 --gpu-bind=closest bash -c "echo \$CUDA_VISIBLE_DEVICES" | sort >close2.out &&
	printf "0: 4,5,6,7\n1: 0,1,2,3\n" >expect &&
	test_cmp expect close2.out
'

test_expect_success TWOCPUS '--gpu-bind=closest: only the step'"'"'s GPUs, its first with Slurm'"'"'s error when none is near' '
	srun -n2 -l --cpu-bind=map_cpu:0,1 --gres=gpu:2 --gpu-bind=closest bash -c "echo \$CUDA_VISIBLE_DEVICES" 2>few.err | sort >few.out &&
	printf "0: 0,1\n1: 0\n" >expect &&
	test_cmp expect few.out &&
	grep -q "slurmstepd: error: Bind request gpu:closest does not specify any devices within the allocation for task 1. Binding to the first device in the allocation instead.\$" few.err &&
	test "$(grep -c "Bind request" few.err)" = 1
'

test_expect_success '--gpu-bind=verbose,...: Slurm'"'"'s gpu-bind line on each task'"'"'s stderr' '
	srun -n2 --gres=gpu:2 --gpu-bind=verbose,per_task:1 true 2>verbose.err &&
	sort verbose.err >got &&
	cat >expect <<-\EOF &&
	gpu-bind: usable_gres=0x1; bit_alloc=0x3; local_inx=0; global_list=0; local_list=0
	gpu-bind: usable_gres=0x2; bit_alloc=0x3; local_inx=0; global_list=1; local_list=1
	EOF
	test_cmp expect got &&
	srun -n2 --gres=gpu:2 --gpu-bind=per_task:1 true 2>quiet.err &&
	test_must_be_empty quiet.err
'

test_done
