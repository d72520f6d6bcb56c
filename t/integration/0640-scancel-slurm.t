#!/bin/bash
test_description='scancel as Slurm 22.05: --signal reaches steps, not the batch shell, unless -b/-f; -v, -i, --sibling, -t and filter messages'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

# A batch shell and one step, each counting the USR1 it gets.
test_expect_success 'a job with a step that traps USR1' '
	cd "$CL/work" &&
	cat >sig.sh <<-\EOF &&
	#!/bin/bash
	# srun shares the shell'"'"'s process group: with -f it gets the
	# signal too; ignoring it here keeps the step'"'"'s I/O flowing
	trap "" USR1
	srun bash -c "trap \"echo step got usr1\" USR1; touch step.ready; while :; do sleep 0.1; done" &
	trap "echo batch got usr1" USR1
	while :; do sleep 0.1; done
	EOF
	id=$(sbatch --parsable -J sigjob -o sig.out sig.sh) &&
	echo $id >sig.id &&
	wait_job_state $id RUNNING &&
	wait_for 30 test -e step.ready
'

test_expect_success 'scancel --signal without -b/-f signals the steps only' '
	cd "$CL/work" && id=$(cat sig.id) &&
	scancel -v --signal=USR1 $id 2>err &&
	echo "scancel: Signal 10 to job $id" >expect &&
	test_cmp expect err &&
	wait_for 30 grep -q "step got usr1" sig.out &&
	# the batch shell would have had it at the same time as the step
	sleep 1 &&
	! grep -q "batch got usr1" sig.out &&
	test "$(job_state $id)" = RUNNING
'

test_expect_success 'scancel -b signals the batch shell only' '
	cd "$CL/work" && id=$(cat sig.id) &&
	scancel -v -b -s USR1 $id 2>err &&
	echo "scancel: Signal 10 to batch job $id" >expect &&
	test_cmp expect err &&
	wait_for 30 grep -q "batch got usr1" sig.out &&
	sleep 1 &&
	test "$(grep -c "step got usr1" sig.out)" = 1
'

test_expect_success 'scancel -f signals both' '
	cd "$CL/work" && id=$(cat sig.id) &&
	scancel -v -f -s USR1 $id 2>err &&
	echo "scancel: Signal 10 to full job $id" >expect &&
	test_cmp expect err &&
	wait_for 30 sh -c "test \$(grep -c \"step got usr1\" sig.out) -ge 2 && test \$(grep -c \"batch got usr1\" sig.out) -ge 2" ||
	{ cat sig.out; false; }
'

test_expect_success 'scancel -i asks on stdout and keeps the job on "n"' '
	cd "$CL/work" && id=$(cat sig.id) &&
	echo n | scancel -i $id >out 2>err &&
	printf "Cancel job_id=%s name=sigjob partition=defq [y/n]? " $id >expect &&
	test_cmp expect out &&
	test_must_be_empty err &&
	test "$(job_state $id)" = RUNNING
'

test_expect_success 'scancel --sibling: no job is federated (exit 191, as Slurm)' '
	cd "$CL/work" && id=$(cat sig.id) &&
	test_expect_code 191 scancel --sibling=other $id 2>err &&
	echo "scancel: error: Kill job error on job id $id: Not a valid federated job" >expect &&
	test_cmp expect err &&
	test "$(job_state $id)" = RUNNING
'

test_expect_success 'scancel -i with "y" cancels; -v on the finished job says so' '
	cd "$CL/work" && id=$(cat sig.id) &&
	echo y | scancel -i -u root -n sigjob >out &&
	wait_job_state $id CANCELLED &&
	scancel $id 2>err && test_must_be_empty err &&
	scancel -v $id 2>err &&
	printf "scancel: Terminating job %s\nscancel: error: Kill job error on job id %s: Job/step already completing or completed\n" $id $id >expect &&
	test_cmp expect err
'

test_expect_success 'scancel -t takes any state Slurm knows; a bad one is refused as Slurm does' '
	scancel -t CD -u root 2>err && test_must_be_empty err &&
	scancel -t completing -u root 2>err && test_must_be_empty err &&
	test_expect_code 1 scancel -t XX -u root 2>err &&
	printf "Invalid job state specified: XX\nValid job states are PENDING, RUNNING, and SUSPENDED\n" >expect &&
	test_cmp expect err
'

test_expect_success 'scancel -v with filters that match nothing lists them (Slurm order), exit 0' '
	scancel -v -u root -n nosuch -p defq -t PD 2>err &&
	echo "scancel: error: No active jobs match ALL job filters, including: job_name=nosuch partition=defq state=PENDING user_name=root " >expect &&
	test_cmp expect err &&
	scancel -u root -n nosuch 2>err && test_must_be_empty err
'

test_expect_success '--hurry is accepted' '
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scancel --hurry $id &&
	wait_job_state $id CANCELLED
'

test_done
