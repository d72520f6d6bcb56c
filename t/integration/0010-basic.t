#!/bin/bash
test_description='a controller and two node daemons: submit, run, inspect'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts and every node registers idle' '
	cluster_start 2
'

test_expect_success 'scontrol ping reports the controller up' '
	scontrol ping >out &&
	grep -q "^Slurmctld(primary) at .* is UP$" out
'

test_expect_success 'sinfo groups both nodes per partition' '
	cat >expect <<-\EOF &&
	PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST
	defq*        up   infinite      2   idle comp[001-002]
	short        up    1:00:00      2   idle comp[001-002]
	EOF
	sinfo >actual 2>err &&
	test_cmp expect actual &&
	test_must_be_empty err
'

test_expect_success 'sbatch --wrap prints exactly the job id line' '
	cd "$CL/work" &&
	sbatch -o out-%j.txt --wrap="echo hello from \$SLURM_JOB_ID" >submit 2>err &&
	test_must_be_empty err &&
	grep -Eq "^Submitted batch job [0-9]+$" submit &&
	test $(wc -l <submit) = 1
'

test_expect_success 'the job runs, completes and writes its output' '
	cd "$CL/work" &&
	id=$(awk "{print \$4}" submit) &&
	wait_job_state $id COMPLETED &&
	echo "hello from $id" >expect &&
	test_cmp expect out-$id.txt &&
	test "$(job_field $id ExitCode)" = "0:0"
'

test_expect_success 'a batch job sees the Slurm environment' '
	cd "$CL/work" &&
	cat >env.sh <<-\EOF &&
	#!/bin/sh
	#SBATCH -J envtest
	#SBATCH -N 1 -n 2 -c 2
	#SBATCH --gres=gpu:h100:2
	env | grep -E "^(SLURM_|CUDA_VISIBLE_DEVICES)" | sort
	EOF
	id=$(sbatch --parsable -o env.out env.sh) &&
	wait_job_state $id COMPLETED &&
	grep -qx "SLURM_JOB_ID=$id" env.out &&
	grep -qx "SLURM_JOB_NAME=envtest" env.out &&
	grep -qx "SLURM_JOB_NUM_NODES=1" env.out &&
	grep -qx "SLURM_NTASKS=2" env.out &&
	grep -qx "SLURM_CPUS_PER_TASK=2" env.out &&
	grep -qx "SLURM_JOB_PARTITION=defq" env.out &&
	grep -qx "SLURM_SUBMIT_DIR=$CL/work" env.out &&
	grep -qx "SLURM_PROCID=0" env.out &&
	grep -qx "SLURM_LOCALID=0" env.out &&
	grep -qx "SLURM_NODEID=0" env.out &&
	grep -qx "CUDA_VISIBLE_DEVICES=0,1" env.out &&
	grep -Eqx "SLURM_JOB_NODELIST=comp00[12]" env.out &&
	grep -Eqx "SLURM_CPUS_ON_NODE=[0-9]+" env.out
'

test_expect_success 'a failing job ends FAILED with its exit code' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="exit 3") &&
	wait_job_state $id FAILED &&
	test "$(job_field $id ExitCode)" = "3:0"
'

test_expect_success 'a job killed by a signal records it' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="kill -USR1 \$\$") &&
	wait_job_state $id FAILED &&
	test "$(job_field $id ExitCode)" = "0:10"
'

test_expect_success 'squeue shows a running job in the default format' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -J sleeper -o /dev/null --wrap="sleep 30") &&
	wait_job_state $id RUNNING &&
	squeue >out &&
	head -1 out >actual_head &&
	echo "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)" >expect_head &&
	test_cmp expect_head actual_head &&
	grep -E "^ +$id +defq +sleeper +root +R +[0-9]+:[0-9]{2} +1 comp00[12]$" out &&
	scancel $id &&
	wait_job_state $id CANCELLED
'

test_expect_success 'jobs share a node by cores; a too-big one pends on Resources' '
	cd "$CL/work" &&
	a=$(sbatch --parsable -N2 -n16 -o /dev/null --wrap="sleep 30") &&
	wait_job_state $a RUNNING &&
	b=$(sbatch --parsable -n1 -o /dev/null --wrap="sleep 1") &&
	wait_for 10 test_reason $b Resources &&
	scancel $a &&
	wait_job_state $b COMPLETED
'

test_expect_success 'a job that can never fit is rejected at submit' '
	test_expect_code 1 sbatch --gres=gpu:a100:1 --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Requested node configuration is not available" >expect &&
	test_cmp expect err
'

test_expect_success 'a pending job shows NumNodes=N-N for -N N, N for none, min-max for a range' '
	a=$(sbatch --parsable -N1 -H -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	c=$(sbatch --parsable -N 1-2 -H -o /dev/null --wrap=true) &&
	for x in $a $b $c; do scontrol show job $x | grep -o "NumNodes=[^ ]*"; done >out &&
	printf "NumNodes=1-1\nNumNodes=1\nNumNodes=1-2\n" >expect &&
	test_cmp expect out &&
	scancel $a $b $c
'

test_expect_success 'scontrol show config: BOOT_TIME is the controller start, NEXT_JOB_ID the next id' '
	scontrol show config >conf &&
	grep -Eq "^BOOT_TIME               = $(date +%Y-%m-%d)T[0-9:]{8}$" conf &&
	sed -n "/^BcastParameters/,/^BurstBufferType/p" conf | sed "s/ *=.*//" >keys &&
	printf "BcastParameters\nBOOT_TIME\nBurstBufferType\n" >expect && test_cmp expect keys &&
	j=$(sbatch --parsable -o /dev/null --wrap=true) &&
	scontrol show config | grep -qx "NEXT_JOB_ID             = $((j + 1))"
'

test_done
