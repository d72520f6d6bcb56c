#!/bin/bash
test_description='fencing: a node cut off from the controller stops its job
before the controller runs it elsewhere (no job runs twice at once)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# A real partition: the controller and each node daemon in a network
# namespace of their own (as 0120-netns.t), joined by veth pairs; cutting
# node 1 off is taking its link down. SIGSTOP of its node daemon would not
# do: the job's supervisor runs on by itself.
. "$SHARNESS_TEST_DIRECTORY/netns.sh"

# Routed links from the controller's namespace to each node's.
netns_setup() {
	ip netns add "$NS_CTL" && ip -n "$NS_CTL" link set lo up || return 1
	for i in 1 2; do
		ip netns add "$NS-n$i" &&
		ip -n "$NS-n$i" link set lo up &&
		ip -n "$NS_CTL" link add "v$i" type veth peer name eth0 netns "$NS-n$i" &&
		ip -n "$NS-n$i" addr add "$NET.$((i + 1))/24" dev eth0 &&
		ip -n "$NS-n$i" link set eth0 up &&
		ip -n "$NS_CTL" addr add "$NET.1/32" dev "v$i" &&
		ip -n "$NS_CTL" link set "v$i" up &&
		ip -n "$NS_CTL" route add "$NET.$((i + 1))/32" dev "v$i" || return 1
	done
}

noded_ns() {
	local name=comp00$1
	ip netns exec "$NS-n$1" sluice noded -D -N "$name" >>"$CL/log/noded-$name.stderr" 2>&1 &
	echo $! >"$CL/noded-$name.pid"
	disown $!
}

# SlurmdTimeout=6: lease 12 s; KillWait=2 (cluster.sh).
test_expect_success 'controller and two nodes, each in its own namespace' '
	netns_setup &&
	SLURMD_TIMEOUT=6 CTLD_ADDR=$NET.1 NODE_ADDRS="$NET.2 $NET.3" cluster_write_conf 2 &&
	{ ip netns exec "$NS_CTL" sluice ctld -D >>"$CL/log/ctld.stderr" 2>&1 & } &&
	echo $! >"$CL/ctld.pid" && disown $! &&
	wait_for 20 scontrol ping &&
	noded_ns 1 && noded_ns 2 &&
	wait_for 30 nodes_idle
'

cat >"$SHARNESS_TRASH_DIRECTORY/stamp.sh" <<\STAMP
#!/bin/bash
echo "start $SLURMD_NODENAME restart=${SLURM_RESTART_COUNT:-none}"
while :; do echo "$SLURMD_NODENAME $(date +%s.%N)"; sleep 0.2; done
STAMP
chmod +x "$SHARNESS_TRASH_DIRECTORY/stamp.sh"

test_expect_success 'a job writing timestamps runs on node 1' '
	cd "$CL/work" &&
	scontrol update nodename=comp002 state=drain reason=later &&
	id=$(sbatch --parsable --open-mode=append -o stamps.out \
		"$SHARNESS_TRASH_DIRECTORY/stamp.sh") &&
	echo $id >id &&
	wait_job_state $id RUNNING && wait_for 10 job_launched $id &&
	test "$(job_field $id NodeList)" = comp001 &&
	wait_for 10 grep -q "^comp001 " stamps.out &&
	scontrol update nodename=comp002 state=resume
'

test_expect_success 'node 1 cut off: DOWN, its job requeued and run on node 2' '
	cd "$CL/work" && id=$(cat id) &&
	ip -n "$NS-n1" link set eth0 down &&
	wait_for 30 test_node_state comp001 "down*" &&
	wait_for 60 grep -q "^comp002 " stamps.out &&
	test_job_state $id RUNNING &&
	test "$(job_field $id Restarts)" = 1 &&
	test "$(job_field $id NodeList)" = comp002
'

test_expect_success 'the copy on node 1 stopped itself (lease) before the one on node 2 started' '
	cd "$CL/work" &&
	grep -q "job $(cat id): the controller has not heard from this node for its lease" \
		"$CL"/log/noded-comp001.* &&
	grep -q "DUE TO NODE FAILURE" stamps.out &&
	last1=$(awk "\$1 == \"comp001\" { t = \$2 } END { print t }" stamps.out) &&
	first2=$(awk "\$1 == \"comp002\" { print \$2; exit }" stamps.out) &&
	echo "comp001 last $last1, comp002 first $first2" &&
	test -n "$last1" && test -n "$first2" &&
	awk -v a="$last1" -v b="$first2" "BEGIN { exit !(a < b) }" &&
	# and node 1 wrote nothing after node 2 started
	awk -v b="$first2" "\$1 == \"comp001\" && \$2 >= b { bad = 1 } END { exit bad }" stamps.out
'

test_expect_success 'SLURM_RESTART_COUNT=1 in the second run, unset in the first' '
	cd "$CL/work" &&
	grep -x "start comp001 restart=none" stamps.out &&
	grep -x "start comp002 restart=1" stamps.out
'

test_expect_success 'node 1 reconnected returns to service; the stale report changes nothing' '
	id=$(cat id) &&
	ip -n "$NS-n1" link set eth0 up &&
	wait_for 30 test_node_state comp001 idle &&
	test_job_state $id RUNNING &&
	test "$(job_field $id NodeList)" = comp002 &&
	wait_for 20 sh -c "! ls -d \"$CL\"/spool/comp001/job$id 2>/dev/null" &&
	scancel $id && wait_job_state $id CANCELLED
'

test_done
