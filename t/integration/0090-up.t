#!/bin/bash
test_description='sluice up: a local cluster from nothing, stopped by Ctrl-C'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

UPDIR=$(mktemp -d /tmp/sluice-up.XXXXXX)
cleanup rm -rf "$UPDIR"

up_ready() { [ -f "$UPDIR/c/env.sh" ] && grep -q "source $UPDIR/c/env.sh" up.out; }

test_expect_success 'sluice up starts 3 nodes and prints how to use them' '
	base=$(pick_ports 4) &&
	{ setsid sluice up --nodes 3 --gpus 4 --dir "$UPDIR/c" --port $base >up.out 2>up.err & } &&
	echo $! >up.pid &&
	wait_for 60 up_ready
'

test_expect_success 'the second shell sees the cluster' '
	( . "$UPDIR/c/env.sh" &&
	  sinfo -h -o "%P %D %t %G" >sinfo.out &&
	  printf "defq* 3 idle gpu:h100:4\nshort 3 idle gpu:h100:4\n" >expect &&
	  test_cmp expect sinfo.out &&
	  scontrol show topology | grep -q "^SwitchName=spine1 " &&
	  id=$(sbatch --parsable -o /dev/null --wrap=true) &&
	  wait_job_state $id COMPLETED )
'

test_expect_success 'Ctrl-C stops every daemon and exits 0' '
	pid=$(cat up.pid) &&
	kill -INT $pid &&
	wait_for 20 sh -c "! kill -0 $pid" &&
	! pgrep -f "$UPDIR/c" >/dev/null
'

test_done
