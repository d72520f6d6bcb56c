#!/bin/bash
test_description='steps inside an allocation queue for its CPUs (--exact, --overlap)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1 KillOnBadExit=1
'

# A step takes every CPU of the job on its nodes: a second one waits for
# the first, with Slurm's two lines (captured from Slurm 22.05).
test_expect_success 'a second step waits for the first one'"'"'s CPUs' '
	cd "$CL/work" &&
	cat >steps.sh <<-\EOF &&
	#!/bin/sh
	srun -n1 sh -c "touch first.started; sleep 3; echo first \$(date +%s)" &
	while [ ! -e first.started ]; do sleep 0.1; done
	srun -n1 sh -c "echo second \$(date +%s)"
	wait
	EOF
	id=$(sbatch --parsable -N1 -n2 -o steps.out -e steps.err steps.sh) &&
	wait_job_state $id COMPLETED &&
	printf "srun: Job $id step creation temporarily disabled, retrying (Requested nodes are busy)\nsrun: Step created for job $id\n" >expect &&
	test_cmp expect steps.err &&
	f=$(sed -n "s/^first //p" steps.out) && s=$(sed -n "s/^second //p" steps.out) &&
	test "$s" -ge "$f"
'

test_expect_success '--overlap and --exact steps run beside each other' '
	cat >ov.sh <<-\EOF &&
	#!/bin/sh
	srun -n1 --overlap sh -c "touch a.started; sleep 3" &
	while [ ! -e a.started ]; do sleep 0.1; done
	srun -n1 --overlap echo overlap
	wait
	srun -n1 --exact sh -c "touch b.started; sleep 3" &
	while [ ! -e b.started ]; do sleep 0.1; done
	srun -n1 --exact echo exact
	srun -n1 -c1 echo cpus
	wait
	EOF
	id=$(sbatch --parsable -N1 -n2 -o ov.out -e ov.err ov.sh) &&
	wait_job_state $id COMPLETED &&
	printf "overlap\nexact\ncpus\n" >expect && test_cmp expect ov.out &&
	test_must_be_empty ov.err
'

test_expect_success 'the CPUs come back when a step ends, also one that failed' '
	cat >back.sh <<-\EOF &&
	#!/bin/sh
	srun -n1 false
	srun -n2 true && echo again
	EOF
	id=$(sbatch --parsable -N1 -n2 -o back.out -e back.err back.sh) &&
	wait_job_state $id COMPLETED &&
	echo again >expect && test_cmp expect back.out &&
	! grep -q "temporarily disabled" back.err
'

test_expect_success 'KillOnBadExit=1 is -K by default; -K0 turns it off' '
	start=$(date +%s) &&
	test_expect_code 143 srun -n2 sh -c "[ \$SLURM_PROCID = 1 ] && exit 1; exec sleep 60" 2>err &&
	test $(( $(date +%s) - start )) -lt 30 &&
	grep -q "_step_signal: Terminating" err &&
	test_expect_code 1 srun -n2 --kill-on-bad-exit=0 sh -c "[ \$SLURM_PROCID = 1 ] && exit 1; sleep 1; echo survived" >out 2>err &&
	echo survived >expect && test_cmp expect out
'

test_done
