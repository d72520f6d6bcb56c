#!/bin/bash
test_description='when a job ends, every step it still runs is killed (as Slurm)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
# Heartbeats far apart: the controller's kill of a job it no longer runs
# (node_kill_strays, at each heartbeat) must not be what ends the steps.
export SLUICE_HEARTBEAT_MS=60000
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

# The task records its pid. The batch host ends the job's steps before it
# reports the end, so once the job shows COMPLETED its task there is gone;
# other nodes hear of the end from the controller (step_gone_soon).
step_gone() { # step_gone PIDFILE
	pid=$(cat "$1") && test -n "$pid" && ! kill -0 "$pid" 2>/dev/null
}
step_gone_soon() { # step_gone_soon PIDFILE
	pid=$(cat "$1") && test -n "$pid" &&
	wait_for 20 sh -c "! kill -0 $pid 2>/dev/null"
}

test_expect_success 'a single-node job whose script exits kills its running step' '
	cd "$CL/work" &&
	cat >bg.sh <<-\EOF &&
	#!/bin/sh
	srun -n1 sh -c "echo \$\$ >task1.pid; exec sleep 3001" &
	while [ ! -s task1.pid ]; do sleep 0.1; done
	exit 0
	EOF
	id=$(sbatch --parsable -N1 -o bg.out -e bg.err bg.sh) &&
	wait_job_state $id COMPLETED &&
	step_gone task1.pid
'

test_expect_success 'a step started with setsid (out of the script'"'"'s process group) too' '
	cat >ss.sh <<-\EOF &&
	#!/bin/sh
	setsid srun -n1 sh -c "echo \$\$ >task2.pid; exec sleep 3002" &
	while [ ! -s task2.pid ]; do sleep 0.1; done
	exit 0
	EOF
	id=$(sbatch --parsable -N1 -o ss.out -e ss.err ss.sh) &&
	wait_job_state $id COMPLETED &&
	step_gone task2.pid
'

test_expect_success 'a step started from outside the job (srun --jobid) too, CANCELLED 0:15 in sacct as in Slurm' '
	id=$(sbatch --parsable -N1 -o out.out -e out.err --wrap "sleep 2") &&
	wait_job_state $id RUNNING &&
	(srun --jobid=$id --overlap sh -c "echo \$\$ >task4.pid; exec sleep 3004" >o4 2>e4 &) &&
	wait_for 10 test -s task4.pid &&
	wait_job_state $id COMPLETED &&
	step_gone task4.pid &&
	wait_for 10 sh -c "sacct -n -P -j $id -o JobID,State,ExitCode 2>/dev/null | grep -qx \"$id.0|CANCELLED|0:15\""
'

test_expect_success 'a two-node job whose script exits kills its step on both nodes' '
	cat >two.sh <<-\EOF &&
	#!/bin/sh
	setsid srun -N2 -n2 sh -c "echo \$\$ >task3.\$SLURM_PROCID.pid; exec sleep 3003" &
	while [ ! -s task3.0.pid ] || [ ! -s task3.1.pid ]; do sleep 0.1; done
	exit 0
	EOF
	id=$(sbatch --parsable -N2 -o two.out -e two.err two.sh) &&
	wait_job_state $id COMPLETED &&
	step_gone task3.0.pid && step_gone_soon task3.1.pid
'

test_done
