#!/bin/bash
test_description='scancel variants, signals and time limits'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
# the node daemons run as real daemons (not -D) here
NODED_DAEMON=1
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'scancel ID ends a running job CANCELLED and kills its processes' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="sleep 300 & echo \$! >\$SLURM_JOB_ID.pid; wait") &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.pid &&
	pid=$(cat $id.pid) &&
	kill -0 $pid &&
	scancel $id 2>err &&
	test_must_be_empty err &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
'

test_expect_success 'a cancelled job'"'"'s stderr gets Slurm'"'"'s CANCELLED AT line' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o cancel.out --wrap="sleep 300") &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -e cancel.out &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 grep -Eq "^slurmstepd: error: \*\*\* JOB $id ON comp00[12] CANCELLED AT [0-9]{4}-[0-9-]{5}T[0-9:]{8} \*\*\*\$" cancel.out
'

test_expect_success 'scancel of a pending job' '
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scancel $id &&
	wait_job_state $id CANCELLED
'

test_expect_success 'scancel of an unknown job prints nothing and exits 0' '
	scancel 999999 >out 2>err &&
	test_must_be_empty out && test_must_be_empty err
'

test_expect_success 'scancel -v of an unknown job explains' '
	scancel -v 999999 2>err &&
	compat_stderr err_scancel_-v_unknown.txt >expect &&
	test_cmp expect err
'

test_expect_success 'scancel -n, -t and -p select jobs' '
	a=$(sbatch --parsable -H -J keep -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -H -J drop -o /dev/null --wrap=true) &&
	c=$(sbatch --parsable -H -J drop -p short -o /dev/null --wrap=true) &&
	scancel -n drop -p defq &&
	wait_job_state $b CANCELLED &&
	test "$(job_state $a)" = PENDING && test "$(job_state $c)" = PENDING &&
	scancel -t PENDING &&
	wait_job_state $a CANCELLED && wait_job_state $c CANCELLED
'

test_expect_success 'scancel -b -s USR1 signals the batch shell without ending the job' '
	cd "$CL/work" &&
	cat >trap.sh <<-\EOF &&
	#!/bin/bash
	trap "echo got usr1; exit 0" USR1
	while :; do sleep 0.1; done
	EOF
	id=$(sbatch --parsable -o trap.out trap.sh) &&
	wait_job_state $id RUNNING &&
	sleep 0.3 &&
	scancel -b -s USR1 $id &&
	wait_job_state $id COMPLETED &&
	grep -q "got usr1" trap.out
'

test_expect_success 'scancel -u cancels only that user'"'"'s jobs' '
	a=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	scancel -u root &&
	wait_job_state $a CANCELLED
'

test_expect_success USERS 'a user cannot cancel another user'"'"'s job (exit 210)' '
	id=$(runuser -u alice -- sbatch --parsable -H -o /dev/null -D /tmp --wrap=true) &&
	test_expect_code 210 runuser -u bob -- scancel $id 2>err &&
	echo "scancel: error: Kill job error on job id $id: Access/permission denied" >expect &&
	test_cmp expect err &&
	test "$(job_state $id)" = PENDING &&
	runuser -u alice -- scancel $id &&
	wait_job_state $id CANCELLED
'

test_expect_success 'a job over its time limit gets SIGTERM and ends TIMEOUT; so does a step over its own' '
	cd "$CL/work" &&
	cat >limit.sh <<-\EOF &&
	#!/bin/bash
	trap "echo got term; sleep 30" TERM
	while :; do sleep 0.2; done
	EOF
	id=$(sbatch --parsable -t 1 -o limit.out limit.sh) &&
	# meanwhile, a step with its own limit inside a longer job
	st=$(sbatch --parsable -t 5 -o step.out --wrap="srun -t 1 sleep 300; echo srun rc=\$?") &&
	wait_job_state $id RUNNING &&
	wait_job_state $id TIMEOUT 100 &&
	test "$(job_field $id Reason)" = TimeLimit &&
	wait_for 60 grep -q "^srun rc=143\$" step.out &&
	grep -Eq "^slurmstepd: error: \*\*\* STEP $st\.0 ON comp00[12] CANCELLED AT [0-9T:-]+ DUE TO TIME LIMIT \*\*\*\$" step.out &&
	grep -q "^srun: error: comp00[12]: task 0: Terminated\$" step.out &&
	wait_job_state $st COMPLETED &&
	grep -q "got term" limit.out &&
	grep -Eq "^slurmstepd: error: \*\*\* JOB $id ON comp00[12] CANCELLED AT [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} DUE TO TIME LIMIT \*\*\*\$" limit.out
'

test_expect_success 'a two-node job that ends normally: its step credentials are revoked on both nodes' '
	REQ=$SLUICE_BUILD/t/test_ctld_requests &&
	go=$(mktemp -u /tmp/sluice-go.XXXXXX) &&
	id=$(sbatch --parsable -N2 -D /tmp -o /dev/null --wrap="while [ ! -e $go ]; do sleep 0.1; done") &&
	wait_job_state $id RUNNING &&
	"$REQ" stepcred $id cred.n1 1 &&
	grep -q " $((CTLD_PORT + 2)) 1 2\$" cred.n1 &&
	touch $go &&
	wait_job_state $id COMPLETED &&
	rm -f $go &&
	wait_for 10 sh -c "\"$REQ\" launch cred.n1 | grep -q \"^4008 Job credential revoked\\$\""
'

test_done
