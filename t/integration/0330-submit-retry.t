#!/bin/bash
test_description='submission is idempotent across client retries (request ids)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts (MessageTimeout=2)' '
	cluster_start 1 MessageTimeout=2
'

test_expect_success 'sbatch times out on a paused controller, retries: one job, and sbatch prints its id' '
	squeue -h -o %i | sort >before &&
	kill -STOP $CTLD_PID &&
	{ sbatch --parsable -H -o /dev/null --wrap=true >out 2>err & } &&
	sub=$! &&
	wait_for 20 grep -q "timed out.*retrying" err; seen=$?;
	kill -CONT $CTLD_PID &&
	test $seen = 0 &&
	wait $sub &&
	id=$(cat out) &&
	test -n "$id" &&
	squeue -h -o %i | sort >after &&
	comm -13 before after >new &&
	echo "$id" >expect &&
	test_cmp expect new
'

# Closed connections (no reply, MessageTimeout=2) are retried after 100,
# 200, 400, 800 and 1000 ms: 6 tries in all, recorded below.
# alice cannot sign, so her sbatch uses the Unix socket of the run
# directory; pointed at a recorder that never answers, it retries, and the
# recorded frames are the requests exactly as the controller would get them.
test_expect_success PYTHON,USERS 'the retries carry the same request' '
	rec="$CL/work/rec" &&
	mkdir -p "$rec" && chown alice "$rec" &&
	cp "$SHARNESS_TEST_DIRECTORY/../submit_repeat.py" "$rec/" &&
	sed "s|^SlurmctldPidFile=.*|SlurmctldPidFile=$rec/ctld.pid|" "$SLURM_CONF" >"$rec/slurm.conf" &&
	{ runuser -u alice -- python3 "$rec/submit_repeat.py" record "$rec/sluice-ctld.sock" "$rec/frames" 6 & } &&
	recpid=$! &&
	wait_for 10 test -S "$rec/sluice-ctld.sock" &&
	test_must_fail runuser -u alice -- env SLURM_CONF="$rec/slurm.conf" \
		sbatch --parsable -H -D /tmp -o /dev/null --wrap=true 2>err &&
	wait $recpid &&
	test "$(grep -c retrying err)" = 5 &&
	python3 -c "import sys
d = open(sys.argv[1], \"rb\").read(); n = len(d) // 6
assert n and len(d) == 6 * n and all(d[i * n:(i + 1) * n] == d[:n] for i in range(6))" "$rec/frames"
'

test_expect_success PYTHON,USERS 'the same request twice: one job, the same answer' '
	test -z "$(squeue -h -u alice -o %i)" &&
	runuser -u alice -- python3 "$rec/submit_repeat.py" send "$CL/run/sluice-ctld.sock" "$rec/frames" 2 >replies &&
	test "$(wc -l <replies)" = 2 &&
	test "$(sort -u replies | wc -l)" = 1 &&
	test "$(squeue -h -u alice -o %i | wc -l)" = 1
'

test_expect_success PYTHON,USERS 'after a controller crash and restart the request still gets the same job' '
	ctld_kill9 && ctld_start &&
	runuser -u alice -- python3 "$rec/submit_repeat.py" send "$CL/run/sluice-ctld.sock" "$rec/frames" 1 >replies2 &&
	head -1 replies | test_cmp - replies2 &&
	test "$(squeue -h -u alice -o %i | wc -l)" = 1
'

test_expect_success PYTHON,USERS 'another user sending the same request gets a job of its own' '
	chmod 755 "$rec" && chmod 644 "$rec/frames" &&
	runuser -u bob -- python3 "$rec/submit_repeat.py" send "$CL/run/sluice-ctld.sock" "$rec/frames" 1 >replies3 &&
	! head -1 replies | cmp -s - replies3 &&
	test "$(squeue -h -u bob -o %i | wc -l)" = 1 &&
	test "$(squeue -h -u alice -o %i | wc -l)" = 1
'

# A reply lost with its connection (a controller that crashed after the
# commit) is retried at once, not after a wait: before, sbatch slept 1 s
# first (and 10 s would be a MessageTimeout); now 100 ms. The proxy passes
# both tries to the controller, which makes one job.
test_expect_success PYTHON,USERS 'a reply lost with a closed connection: retried at once, one job' '
	squeue -h -u alice -o %i | sort >before &&
	rm -f "$rec/sluice-ctld.sock" &&
	{ runuser -u alice -- python3 "$rec/submit_repeat.py" lose "$rec/sluice-ctld.sock" "$rec/times" 2 \
		"$CL/run/sluice-ctld.sock" 1 & } &&
	recpid=$! &&
	wait_for 10 test -S "$rec/sluice-ctld.sock" &&
	runuser -u alice -- env SLURM_CONF="$rec/slurm.conf" \
		sbatch --parsable -H -D /tmp -o /dev/null --wrap=true >out 2>err &&
	wait $recpid &&
	test "$(grep -c "connect failure); retrying" err)" = 1 &&
	python3 -c "import sys
t = [list(map(float, l.split())) for l in open(sys.argv[1])]
gap = t[1][0] - t[0][1]
print(\"retried %.3f s after the close\" % gap)
assert len(t) == 2 and gap < 0.9" "$rec/times" &&
	squeue -h -u alice -o %i | sort >after &&
	comm -13 before after >new &&
	test_cmp out new
'

test_done
