#!/bin/bash
test_description='PrologFlags=Alloc,NoHold,Serial: the Prolog runs on every
node at allocation but the allocation is not held for it (the job is RUNNING,
not CONFIGURING); a step that reaches a node whose Prolog still runs waits for
it there, and the Prolog is not run again; Serial runs one Prolog at a time on
a node'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

PD=$(mktemp -d /tmp/sluice-peh.XXXXXX)
chmod 755 "$PD"

script() { # script PATH BODY: an executable sh script
	printf '#!/bin/sh\n%s\n' "$2" >"$1" && chmod 755 "$1"
}

runs() { cat "$PD/$1.$2.$3" 2>/dev/null | wc -l; }
ran() { test "$(runs "$2" "$3" "$4")" = "$1"; }

# The Prolog waits while $PD/gate exists (at most 20 s); it fails (exit 5)
# when another Prolog runs on the node at the same time (mkdir as a test).
test_expect_success 'cluster of 2 nodes with PrologFlags=Alloc,NoHold,Serial' '
	script "$PD/prolog" "mkdir $PD/busy.\$SLURMD_NODENAME || exit 5; echo run >>$PD/p.\$SLURM_JOB_ID.\$SLURMD_NODENAME; i=0; while test -e $PD/gate && test \$i -lt 200; do sleep 0.1; i=\$((i+1)); done; sleep 0.3; rmdir $PD/busy.\$SLURMD_NODENAME; exit 0" &&
	cluster_start 2 "Prolog=$PD/prolog" "PrologFlags=Alloc,NoHold,Serial"
'

test_expect_success 'NoHold: the allocation is RUNNING while the Prolog runs; its step waits for it' '
	touch $PD/gate &&
	{ srun -N2 -D /tmp sh -c "echo \$SLURM_JOB_ID; test -e $PD/gate && echo early" >out 2>err & } &&
	wait_for 10 ran 1 p 1 comp001 &&
	wait_for 10 ran 1 p 1 comp002 &&
	test "$(squeue -h -j 1 -o %t)" = R &&
	sleep 1 &&
	! test -s out &&
	rm -f $PD/gate &&
	wait_for 20 sh -c "test \$(wc -l <out) = 2" &&
	! grep -q early out &&
	test "$(runs p 1 comp001)" = 1 &&
	test "$(runs p 1 comp002)" = 1
'

test_expect_success 'Serial: two jobs on a node run their Prologs one after the other' '
	a=$(sbatch --parsable -w comp001 -n1 -D /tmp -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -w comp001 -n1 -D /tmp -o /dev/null --wrap=true) &&
	c=$(sbatch --parsable -w comp001 -n1 -D /tmp -o /dev/null --wrap=true) &&
	wait_job_state $a COMPLETED 30 &&
	wait_job_state $b COMPLETED 30 &&
	wait_job_state $c COMPLETED 30 &&
	test_node_state comp001 idle &&
	test "$(runs p $a comp001)" = 1 &&
	test "$(runs p $c comp001)" = 1
'

rm -rf "$PD"
test_done
