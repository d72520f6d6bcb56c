#!/bin/bash
test_description='sbatch --signal=[B:]SIG@TIME: the supervisor warns the batch shell (B:) or the steps, TIME seconds before the time limit'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

# -t 1 with @50: the warning is due 10 s after the start, the limit at 60 s.
# The shells wait on a background sleep so that bash runs its trap at once.
test_expect_success 'B:USR1@50 reaches the batch shell about 10 s after the start' '
	cat >b.sh <<-\EOF &&
	#!/bin/bash
	start=$(date +%s)
	trap "echo shell \$(( \$(date +%s) - start )) >\"$PWD/b.got\"; exit 0" USR1
	sleep 120 &
	wait
	EOF
	b=$(sbatch --parsable -t 1 --signal=B:USR1@50 -o b.out b.sh) &&
	cat >step.sh <<-\EOF &&
	#!/bin/bash
	trap "echo step >\"$PWD/s.got\"; exit 0" USR1
	sleep 120 &
	wait
	EOF
	chmod +x step.sh &&
	cat >s.sh <<-\EOF &&
	#!/bin/bash
	trap "echo shell >\"$PWD/s.shell\"" USR1
	srun -n1 ./step.sh &
	wait
	sleep 1
	EOF
	s=$(sbatch --parsable -t 1 --signal=USR1@50 -o s.out s.sh) &&
	wait_for 40 test -s b.got &&
	read who secs <b.got &&
	test "$who" = shell &&
	test "$secs" -ge 8 && test "$secs" -le 20 &&
	wait_job_state $b COMPLETED 20
'

test_expect_success 'without B: the steps get it, the batch shell does not' '
	wait_for 40 test -s s.got &&
	grep -qx step s.got &&
	wait_job_state $s COMPLETED 20 &&
	test ! -e s.shell
'

test_expect_success 'no time limit, no warning; bad specifications fail as in Slurm' '
	test_expect_code 255 sbatch --signal=X:USR1 --wrap=true 2>err &&
	echo "sbatch: error: Invalid --signal specification" >expect &&
	test_cmp expect err &&
	test_expect_code 255 sbatch --signal=USR1@70000 --wrap=true 2>err &&
	test_cmp expect err
'

test_done
