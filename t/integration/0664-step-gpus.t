#!/bin/bash
test_description='every srun step gets its GPUs: CUDA_VISIBLE_DEVICES, SLURM_STEP_GPUS and
SLURM_JOB_GPUS; concurrent steps never share a GPU unless --overlap; --gpu-bind'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts (8 h100 a node)' '
	cluster_start 1
'

test_expect_success 'srun --gres=gpu:2 alone gets two GPUs' '
	cd "$CL/work" &&
	srun --gres=gpu:2 bash -c "echo \$CUDA_VISIBLE_DEVICES \$SLURM_STEP_GPUS \$SLURM_JOB_GPUS \$GPU_DEVICE_ORDINAL" >alone.out &&
	echo "0,1 0,1 0,1 0,1" >expect &&
	test_cmp expect alone.out
'

# wait_for_files N PREFIX: in a job script, until N files PREFIX* exist
cat >"$CL/work/waitn.sh" <<\EOF
n=0; while [ $(ls $2* 2>/dev/null | wc -l) -lt $1 ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done
EOF

test_expect_success 'two concurrent --gres=gpu:2 steps in a 4-GPU job get disjoint GPUs' '
	cat >two.sh <<-\EOF &&
	#!/bin/bash
	for i in 1 2; do
		srun -n1 --exact --gres=gpu:2 bash -c "echo \$SLURM_STEP_GPUS \$CUDA_VISIBLE_DEVICES \$SLURM_JOB_GPUS >g.$i; touch g.run.$i; . ./waitn.sh 2 g.run.; ls g.run.* | wc -l >g.seen.$i" &
	done
	wait
	srun -n1 bash -c "echo all \$SLURM_STEP_GPUS"
	EOF
	id=$(sbatch --parsable -n2 --gres=gpu:4 -o two.out -e two.err two.sh) &&
	wait_job_state $id COMPLETED &&
	test_must_be_empty two.err &&
	echo 2 >expect && test_cmp expect g.seen.1 && test_cmp expect g.seen.2 &&
	cat g.1 g.2 | sort >got &&
	printf "0,1 0,1 0,1,2,3\n2,3 2,3 0,1,2,3\n" >expect &&
	test_cmp expect got &&
	echo "all 0,1,2,3" >expect && test_cmp expect two.out
'

test_expect_success 'a step without a GPU option holds all of the job'"'"'s GPUs; --overlap shares them' '
	cat >ov.sh <<-\EOF &&
	#!/bin/bash
	srun -n1 --exact bash -c "echo \$SLURM_STEP_GPUS >o.1; touch o.run.1; . ./waitn.sh 2 o.run." &
	. ./waitn.sh 1 o.run.
	srun -n1 --exact --overlap --gres=gpu:1 bash -c "echo \$SLURM_STEP_GPUS >o.2; touch o.run.2"
	wait
	EOF
	id=$(sbatch --parsable -n2 --gres=gpu:2 -o ov.out -e ov.err ov.sh) &&
	wait_job_state $id COMPLETED &&
	test_must_be_empty ov.err &&
	echo 0,1 >expect && test_cmp expect o.1 &&
	echo 0 >expect && test_cmp expect o.2
'

test_expect_success '--gpus-per-task=1 -n2 with --gpu-bind=per_task:1 or single:1: one GPU a task' '
	srun -n2 --gpus-per-task=1 --gpu-bind=per_task:1 bash -c "echo \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES \$SLURM_STEP_GPUS" | sort >pt.out &&
	printf "0 0 0,1\n1 1 0,1\n" >expect && test_cmp expect pt.out &&
	srun -n2 --gpus-per-task=1 --gpu-bind=single:1 bash -c "echo \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES" | sort >single.out &&
	printf "0 0\n1 1\n" >expect && test_cmp expect single.out &&
	srun -n2 --gres=gpu:4 --gpu-bind=map_gpu:3,1 bash -c "echo \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES" | sort >map.out &&
	printf "0 3\n1 1\n" >expect && test_cmp expect map.out &&
	srun -n2 --gres=gpu:4 --gpu-bind=mask_gpu:0x3,0xc bash -c "echo \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES" | sort >mask.out &&
	printf "0 0,1\n1 2,3\n" >expect && test_cmp expect mask.out &&
	srun -n2 --gres=gpu:2 --gpu-bind=none bash -c "echo \$CUDA_VISIBLE_DEVICES" >none.out &&
	printf "0,1\n0,1\n" >expect && test_cmp expect none.out
'

test_expect_success 'srun input variables: SLURM_STEP_GRES when no --gres/SLURM_GRES, SLURM_GPUS_PER_TASK, SLURM_GPU_BIND; --gres=none' '
	cat >envin.sh <<-\EOF &&
	#!/bin/bash
	SLURM_STEP_GRES=gpu:1 srun -n1 bash -c "echo step_gres \$SLURM_STEP_GPUS"
	SLURM_STEP_GRES=gpu:1 SLURM_GRES=gpu:3 srun -n1 bash -c "echo gres_wins \$SLURM_STEP_GPUS"
	SLURM_STEP_GRES=gpu:1 srun -n1 --gres=gpu:2 bash -c "echo cli_wins \$SLURM_STEP_GPUS"
	srun -n1 --gres=none bash -c "echo none [\$SLURM_STEP_GPUS] [\$CUDA_VISIBLE_DEVICES]"
	SLURM_GPUS_PER_TASK=1 SLURM_GPU_BIND=map_gpu:1,0 srun -n2 bash -c "echo map \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES" | sort
	EOF
	id=$(sbatch --parsable -n2 --gres=gpu:4 -o envin.out -e envin.err envin.sh) &&
	wait_job_state $id COMPLETED &&
	test_must_be_empty envin.err &&
	cat >expect <<-\EOF &&
	step_gres 0
	gres_wins 0,1,2
	cli_wins 0,1
	none [] []
	map 0 1
	map 1 0
	EOF
	test_cmp expect envin.out
'

test_expect_success '--gpus-per-task=N without --gpu-bind binds per_task:N (as Slurm 22.05 srun)' '
	srun -n2 --gpus-per-task=1 bash -c "echo \$SLURM_LOCALID \$CUDA_VISIBLE_DEVICES \$SLURM_STEP_GPUS" | sort >impl.out &&
	printf "0 0 0,1\n1 1 0,1\n" >expect && test_cmp expect impl.out &&
	srun -n2 --gpus-per-task=1 --gpu-bind=none bash -c "echo \$CUDA_VISIBLE_DEVICES" >implnone.out &&
	printf "0,1\n0,1\n" >expect && test_cmp expect implnone.out
'

test_expect_success 'a bad --gpu-bind and too many GPUs are refused' '
	test_must_fail srun --gpu-bind=bogus true 2>bad.err &&
	grep -q "Invalid --gpu-bind argument: bogus" bad.err &&
	cat >many.sh <<-\EOF &&
	#!/bin/bash
	srun -n1 --gres=gpu:3 true
	EOF
	id=$(sbatch --parsable -n1 --gres=gpu:2 -o many.out -e many.err many.sh) &&
	wait_job_state $id FAILED &&
	grep -q "Unable to create step for job $id: Invalid generic resource (gres) specification" many.err
'

test_done
