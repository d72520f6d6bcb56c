#!/bin/bash
test_description='scontrol listpids: the processes of a job'"'"'s steps on a node, from its node daemon'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

header() { echo "PID      JOBID    STEPID   LOCALID GLOBALID"; }

# A two-node job: the batch script (and the srun it runs) on comp001, step
# 0 with three tasks (block: 0 and 1 on comp001, 2 on comp002), each task
# a shell with a child, so every task has one process that is no task.
test_expect_success 'a job with a batch step and a step on two nodes' '
	cd "$CL/work" &&
	cat >lp.sh <<-\EOF &&
	#!/bin/sh
	srun -n3 sh -c "sleep 300 & echo \$\$ \$! >t.\$SLURM_PROCID; wait"
	EOF
	J=$(sbatch --parsable -N2 -n3 -o lp.out -e lp.err lp.sh) &&
	wait_for 30 sh -c "test -s t.0 && test -s t.1 && test -s t.2"
'

row() { printf "%-8s %-8s %-8s %-7s %-8s\n" "$@"; }

test_expect_success 'listpids JOB.STEP NODE: the tasks there, then their children' '
	read t0 c0 <t.0 && read t1 c1 <t.1 && read t2 c2 <t.2 &&
	scontrol listpids $J.0 comp001 >actual &&
	{ header; row $t0 $J 0 0 0; row $t1 $J 0 1 1;
	  for c in $(printf "%s\n" $c0 $c1 | sort -n); do row $c $J 0 - -; done; } >expect &&
	test_cmp expect actual &&
	scontrol listpids $J.0 comp002 >actual &&
	{ header; row $t2 $J 0 0 2; row $c2 $J 0 - -; } >expect &&
	test_cmp expect actual
'

test_expect_success 'listpids JOB NODE: the batch step first (the script is task 0, srun is no task)' '
	scontrol listpids $J comp001 >actual &&
	head -1 actual >h && header >expect && test_cmp expect h &&
	sed -n 2p actual >b && sed -n "s/^\([0-9]*\) .*/\1/p" b >pid &&
	row $(cat pid) $J batch 0 0 >expect && test_cmp expect b &&
	grep -q "^[0-9]* *$J *batch *- *- *$" actual &&
	test "$(grep -c " 0        [0-9]" actual)" = 2 &&
	test "$(wc -l <actual)" -ge 6
'

test_expect_success 'any user may list (Slurm lets anyone read a step'"'"'s pids)' '
	runuser -u bob -- scontrol listpids $J.0 comp002 >actual &&
	test "$(wc -l <actual)" = 3
'

test_expect_success 'nothing there: Slurm'"'"'s sentences, exit 1' '
	test_expect_code 1 scontrol listpids $J.7 comp001 >out 2>err &&
	header >expect && test_cmp expect out &&
	echo "StepId=$J.7 does not exist on node comp001." >expect && test_cmp expect err &&
	test_expect_code 1 scontrol listpids 999 comp001 >out 2>err &&
	echo "There are no steps for job 999 on node comp001." >expect && test_cmp expect err &&
	test_expect_code 1 scontrol listpids abc comp001 >out 2>err &&
	test_must_be_empty out &&
	echo "\"abc\" does not look like a jobid" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol listpids $J comp999 2>err &&
	grep -q "JobId=$J does not exist on node comp999." err
'

test_expect_success 'listpids * NODE: every job there; nothing once the job is gone' '
	scontrol listpids "*" comp002 >actual &&
	test "$(wc -l <actual)" = 3 &&
	scancel $J && wait_job_state $J CANCELLED &&
	wait_for 20 sh -c "! scontrol listpids \"*\" comp002 >/dev/null 2>&1" &&
	test_expect_code 1 scontrol listpids "*" comp002 2>err &&
	echo "No job steps exist on this node." >expect && test_cmp expect err
'

test_done
