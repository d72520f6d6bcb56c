#!/bin/bash
test_description='a step launch captured on its way to one node runs nothing on another and takes no I/O'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SPY=$SHARNESS_TEST_DIRECTORY/../launch_spy.py

# Needs a network namespace of its own for alice's srun (launch_spy.py).
unshare -n true 2>/dev/null && test_set_prereq NETNS

test_expect_success 'cluster starts' '
	cluster_start 2
'

node_port() { sed -n "s/^NodeName=$1 .*Port=\([0-9]*\).*/\1/p" "$CL/etc/slurm.conf"; }

# Issue 19: an eavesdropper took alice's launch frame for comp001 and sent
# it, unchanged, to comp002 before srun did; comp002 ran alice's tasks,
# sent their output to the eavesdropper and burnt the credential there,
# and alice's srun failed with "Job credential replayed".
test_expect_success USERS,PYTHON,NETNS 'comp001 launch replayed to comp002 first: refused there, srun unharmed' '
	p1=$(node_port comp001) && p2=$(node_port comp002) &&
	test -n "$p1" && test -n "$p2" &&
	(cd /tmp && python3 "$SPY" $p1 $p2 "$CL/work/spy.out" -- \
		runuser -u alice -- srun -N2 -l sh -c "echo out \$SLURMD_NODENAME; echo err \$SLURM_PROCID >&2") \
		>"$CL/work/srun.out" 2>"$CL/work/srun.err" &&
	sort "$CL/work/srun.out" >out &&
	printf "0: out comp001\n1: out comp002\n" >expect &&
	test_cmp expect out &&
	grep -q "^0: err 0" "$CL/work/srun.err" && grep -q "^1: err 1" "$CL/work/srun.err" &&
	! grep -q "replayed" "$CL/work/srun.err" &&
	# the replayer got one answer (the refusal) and then the connection
	# closed: no output frame, no task exit
	cat "$CL/work/spy.out" &&
	test $(wc -l <"$CL/work/spy.out") = 2 &&
	tail -1 "$CL/work/spy.out" | grep -qx closed &&
	cat "$CL"/log/noded-comp002.* | grep -q "launch is for another node of the step"
'

# Issue 19, second half: every per-node field of a launch can be derived
# from what is on the wire (the credential's nodes and layout), so the
# eavesdropper writes comp002's launch itself from comp001's and presents
# it there first. Before the launch MAC, comp002 ran alice's tasks, sent
# their output to the eavesdropper and refused srun's real launch as
# replayed. Now only a holder of the step's launch key (srun, given it over
# the Unix socket) can write a launch comp002 takes.
test_expect_success USERS,PYTHON,NETNS 'comp002 launch forged from comp001 sent first: refused there, srun unharmed' '
	p1=$(node_port comp001) && p2=$(node_port comp002) &&
	rm -f "$CL/work/spy.out" &&
	(cd /tmp && python3 "$SPY" --forge $p1 $p2 "$CL/work/spy.out" -- \
		runuser -u alice -- srun -N2 -l sh -c "echo out \$SLURMD_NODENAME; echo err \$SLURM_PROCID >&2") \
		>"$CL/work/srun.out" 2>"$CL/work/srun.err" &&
	sort "$CL/work/srun.out" >out &&
	printf "0: out comp001\n1: out comp002\n" >expect &&
	test_cmp expect out &&
	grep -q "^0: err 0" "$CL/work/srun.err" && grep -q "^1: err 1" "$CL/work/srun.err" &&
	! grep -q "replayed" "$CL/work/srun.err" &&
	# one answer (the refusal), then closed: no output frame, no task exit
	cat "$CL/work/spy.out" &&
	test $(wc -l <"$CL/work/spy.out") = 2 &&
	tail -1 "$CL/work/spy.out" | grep -qx closed &&
	cat "$CL"/log/noded-comp002.* | grep -q "launch MAC does not match the step.s launch key"
'

test_done
