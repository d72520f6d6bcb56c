#!/bin/bash
test_description='what a job inherits: no daemon descriptors, the submitter umask (node daemons run as real daemons)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
NODED_DAEMON=1
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts with daemonized node daemons' '
	cluster_start 2
'

# fds LISTING: the descriptor numbers in `ls -l /proc/self/fd` output.
fds() { awk '$(NF-1) == "->" { printf "%s ", $(NF-2) }' "$1"; }

test_expect_success 'the node daemon detached and holds its log open' '
	pid=$(cat "$CL/noded-comp001.pid") &&
	kill -0 $pid &&
	test "$(ps -o ppid= -p $pid | tr -d " ")" = 1 &&
	ls -l /proc/$pid/fd | grep -q "noded-comp001.log"
'

test_expect_success 'the daemonized node daemon holds only close-on-exec descriptors' '
	pid=$(cat "$CL/noded-comp001.pid") &&
	cloexec_all $pid
'

test_expect_success 'a batch job sees only stdin, stdout and stderr' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o fd-batch.out --wrap="ls -l /proc/self/fd") &&
	wait_job_state $id COMPLETED &&
	cat fd-batch.out &&
	test "$(fds fd-batch.out)" = "0 1 2 3 " &&
	! grep -q "\.log" fd-batch.out
'

test_expect_success 'an srun task sees only stdin, stdout and stderr' '
	cd "$CL/work" &&
	srun -N2 ls -l /proc/self/fd >fd-srun.out &&
	cat fd-srun.out &&
	test "$(fds fd-srun.out)" = "0 1 2 3 0 1 2 3 " &&
	! grep -q "\.log" fd-srun.out
'

test_expect_success 'a step inside a batch job sees only stdio too' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o fd-step.out --wrap="srun ls -l /proc/self/fd") &&
	wait_job_state $id COMPLETED &&
	cat fd-step.out &&
	test "$(fds fd-step.out)" = "0 1 2 3 "
'

test_expect_success 'sbatch carries the umask: SLURM_UMASK, umask, 0600 output' '
	cd "$CL/work" &&
	id=$(umask 077 && sbatch --parsable -o umask-batch.out --wrap="umask; echo \$SLURM_UMASK; touch made-by-batch") &&
	wait_job_state $id COMPLETED &&
	printf "0077\n0077\n" >expect &&
	test_cmp expect umask-batch.out &&
	test "$(stat -c %a umask-batch.out)" = 600 &&
	test "$(stat -c %a made-by-batch)" = 600
'

test_expect_success 'without a umask of its own the job gets the usual 0022' '
	cd "$CL/work" &&
	id=$(umask 022 && sbatch --parsable -o umask-022.out --wrap="umask") &&
	wait_job_state $id COMPLETED &&
	echo 0022 >expect &&
	test_cmp expect umask-022.out &&
	test "$(stat -c %a umask-022.out)" = 644
'

test_expect_success 'srun carries the umask to its tasks' '
	cd "$CL/work" &&
	(umask 077 && srun -N2 sh -c "umask; echo \$SLURM_UMASK; touch made-by-srun-\$SLURM_PROCID") >umask-srun.out &&
	printf "0077\n0077\n0077\n0077\n" >expect &&
	test_cmp expect umask-srun.out &&
	test "$(stat -c %a made-by-srun-0)" = 600 &&
	test "$(stat -c %a made-by-srun-1)" = 600
'

test_expect_success 'a daemonized node daemon reports start-up errors to the shell' '
	test_expect_code 1 sluice noded -N nosuchnode 2>err &&
	grep -q "nosuchnode.*not found" err &&
	test_expect_code 1 sluice noded -f "$CL/nonexistent.conf" -N comp001 2>err &&
	test -s err &&
	sed "s|^SlurmdLogFile=.*|SlurmdLogFile=$CL/no/such/dir/%n.log|" "$SLURM_CONF" >bad-log.conf &&
	test_expect_code 1 sluice noded -f "$PWD/bad-log.conf" -N comp001 2>err &&
	grep -q "unable to open log file" err
'

test_expect_success 'cluster_stop stops the daemonized node daemons' '
	pid=$(cat "$CL/noded-comp002.pid") &&
	noded_kill comp002 &&
	! kill -0 $pid 2>/dev/null
'

test_done
