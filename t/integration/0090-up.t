#!/bin/bash
test_description='sluice up: a local cluster from nothing, stopped by Ctrl-C'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

UPDIR=$(mktemp -d /tmp/sluice-up.XXXXXX)
# other users (alice) reach the cluster's config and run directory
chmod 755 "$UPDIR"
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
	  sinfo -h -N -p defq -o %N >"$SHARNESS_TRASH_DIRECTORY/nodes" &&
	  printf "defq* 3 idle gpu:h100:4\nshort 3 idle gpu:h100:4\n" >expect &&
	  test_cmp expect sinfo.out &&
	  scontrol show topology | grep -q "^SwitchName=spine1 " &&
	  id=$(sbatch --parsable -o /dev/null --wrap=true) &&
	  wait_job_state $id COMPLETED )
'

getent hosts comp001 >/dev/null 2>&1 || test_set_prereq NORESOLVE
test_expect_success NORESOLVE 'where comp001 does not resolve, sluice up prints the /etc/hosts line, which makes the DDP idiom work' '
	line=$(sed -n "/^  host names: .*add to \/etc\/hosts (as root):$/{n;s/^    //p}" up.out) &&
	echo "# $line" &&
	test "$line" = "127.0.0.1 comp001 comp002 comp003" &&
	cp /etc/hosts hosts.new && echo "$line" >>hosts.new &&
	( . "$UPDIR/c/env.sh" &&
	  id=$(sbatch --parsable -N3 -o ddp.out --wrap="scontrol show hostnames \"\$SLURM_JOB_NODELIST\" | head -1") &&
	  wait_job_state $id COMPLETED ) &&
	master=$(cat ddp.out) && test "$master" = comp001 &&
	if unshare -m true 2>/dev/null; then
		unshare -m sh -c "mount --bind hosts.new /etc/hosts && getent hosts $master" >resolved &&
		grep -q "^127.0.0.1 *comp001" resolved
	fi
'

test_expect_success 'sluice up serves the controller metrics on loopback and prints where' '
	url=$(sed -n "s/^  metrics: *//p" up.out) &&
	echo "# $url" &&
	case "$url" in http://127.0.0.1:*/metrics) ;; *) false ;; esac &&
	grep -q "^MetricsAddress=127.0.0.1$" "$UPDIR/c/etc/slurm.conf" &&
	curl -sf "$url" | grep -q "^slurm_nodes 3$"
'

test_expect_success 'every virtual node serves its own metrics on loopback' '
	url=$(sed -n "s/^  node metrics: *\([^ ]*\) .*/\1/p" up.out) &&
	echo "# $url" &&
	case "$url" in http://127.0.0.1:*/metrics) ;; *) false ;; esac &&
	p=${url#http://127.0.0.1:} && p=${p%/metrics} &&
	for k in 0 1 2; do
		curl -sf "http://127.0.0.1:$((p + k))/metrics" >node.prom &&
		grep -q "^sluice_node_info{node=\"$(sed -n "$((k + 1))p" nodes)\"" node.prom || return 1
	done &&
	# no NVML, no InfiniBand here: the families are absent, said once each
	if ! ldconfig -p | grep -q libnvidia-ml.so.1; then
		! grep -q "^DCGM_" node.prom &&
		test "$(grep -c "metrics: no GPU families: cannot load libnvidia-ml.so.1" "$UPDIR/c/log/noded-comp003.log")" = 1
	fi &&
	if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
		! grep -q "^infiniband_" node.prom &&
		test "$(grep -c "metrics: no InfiniBand families: no device in /sys/class/infiniband" "$UPDIR/c/log/noded-comp003.log")" = 1
	fi
'

test_expect_success 'the state is private, the run directory is not' '
	test "$(stat -c %a "$UPDIR/c/state")" = 700 &&
	test "$(stat -c %a "$UPDIR/c/run")" = 755 &&
	test -S "$UPDIR/c/run/sluice-ctld.sock" &&
	find "$UPDIR/c/state" -mindepth 1 -perm /077 >open &&
	test_must_be_empty open &&
	test "$(cat "$UPDIR/c/run/ctld.pid")" = "$(cat "$UPDIR/c/state/sluice-ctld.lock")"
'

test_expect_success USERS 'another user submits through the socket and reads no state' '
	( . "$UPDIR/c/env.sh" &&
	  test_must_fail runuser -u alice -- cat "$UPDIR/c/etc/slurm.key" >/dev/null 2>&1 &&
	  test_must_fail runuser -u alice -- ls "$UPDIR/c/state" >/dev/null 2>&1 &&
	  id=$(runuser -u alice -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
		sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	  test "$(runuser -u alice -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" squeue -h -j $id -o %u)" = alice &&
	  scancel $id )
'

test_expect_success 'a second sluice up on the same directory says it is in use and exits 1' '
	test_expect_code 1 sluice up --dir "$UPDIR/c" >up2.out 2>up2.err &&
	grep "already running (controller pid $(cat "$UPDIR/c/run/ctld.pid"))" up2.err &&
	! grep -q "is up" up2.out &&
	( . "$UPDIR/c/env.sh" && scontrol ping )
'

test_expect_success 'without the lock file (deleted as stale) too' '
	rm "$UPDIR/c/state/sluice-ctld.lock" &&
	test_expect_code 1 sluice up --dir "$UPDIR/c" >up2.out 2>up2.err &&
	grep "already running (controller pid $(cat "$UPDIR/c/run/ctld.pid"))" up2.err &&
	( . "$UPDIR/c/env.sh" && scontrol ping )
'

test_expect_success 'Ctrl-C stops every daemon and exits 0' '
	pid=$(cat up.pid) &&
	kill -INT $pid &&
	wait_for 20 sh -c "! kill -0 $pid" &&
	! pgrep -f "$UPDIR/c" >/dev/null
'

test_done
