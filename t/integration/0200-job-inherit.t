#!/bin/bash
test_description='what a job inherits: no daemon descriptors (node daemons run as real daemons)'
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
