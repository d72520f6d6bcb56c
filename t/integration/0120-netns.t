#!/bin/bash
test_description='controller and node daemons on separate hosts (network namespaces)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

. "$SHARNESS_TEST_DIRECTORY/netns.sh"

# netns_setup: a bridge in the controller's namespace with one veth port per
# node namespace, so every "host" reaches every other (srun inside a batch
# job connects from one node to the others). Without bridge support, routed
# links to the controller only, and no NODE2NODE prerequisite.
netns_setup() {
	ip netns add "$NS_CTL" && ip -n "$NS_CTL" link set lo up || return 1
	local bridge=
	if ip -n "$NS_CTL" link add br0 type bridge 2>/dev/null; then
		bridge=1
		ip -n "$NS_CTL" addr add "$NET.1/24" dev br0 &&
		ip -n "$NS_CTL" link set br0 up || return 1
	fi
	for i in 1 2; do
		ip netns add "$NS-n$i" &&
		ip -n "$NS-n$i" link set lo up &&
		ip -n "$NS_CTL" link add "v$i" type veth peer name eth0 netns "$NS-n$i" &&
		ip -n "$NS-n$i" addr add "$NET.$((i + 1))/24" dev eth0 &&
		ip -n "$NS-n$i" link set eth0 up || return 1
		if [ -n "$bridge" ]; then
			ip -n "$NS_CTL" link set "v$i" master br0 &&
			ip -n "$NS_CTL" link set "v$i" up || return 1
		else
			ip -n "$NS_CTL" addr add "$NET.1/32" dev "v$i" &&
			ip -n "$NS_CTL" link set "v$i" up &&
			ip -n "$NS_CTL" route add "$NET.$((i + 1))/32" dev "v$i" || return 1
		fi
	done
	[ -z "$bridge" ] || test_set_prereq NODE2NODE
}

# noded_ns I: start comp00I's daemon in its namespace.
noded_ns() {
	local name=comp00$1
	ip netns exec "$NS-n$1" sluice noded -D -N "$name" >>"$CL/log/noded-$name.stderr" 2>&1 &
	echo $! >"$CL/noded-$name.pid"
	disown $!
}

test_expect_success 'three namespaces joined by veth pairs' '
	netns_setup &&
	ip -n "$NS-n2" -4 -br addr show dev eth0 | grep -q " $NET.3/24" &&
	ip -n "$NS_CTL" route get $NET.3 >/dev/null
'

test_expect_success 'controller starts in its namespace' '
	CTLD_ADDR=$NET.1 NODE_ADDRS="$NET.2 $NET.3" cluster_write_conf 2 &&
	grep -q "^SlurmctldHost=.*($NET.1)$" "$SLURM_CONF" &&
	grep -q "^NodeName=comp002 NodeAddr=$NET.3 " "$SLURM_CONF" &&
	{ ip netns exec "$NS_CTL" sluice ctld -D >>"$CL/log/ctld.stderr" 2>&1 & } &&
	echo $! >"$CL/ctld.pid" && disown $! &&
	wait_for 20 scontrol ping
'

test_expect_success 'the controller is not reachable from outside its namespace' '
	test_must_fail command scontrol ping >/dev/null 2>&1
'

test_expect_success 'node daemons in two other namespaces register' '
	noded_ns 1 && noded_ns 2 &&
	wait_for 30 nodes_idle &&
	scontrol show node comp002 >node &&
	grep -q "NodeAddr=$NET.3 " node
'

test_expect_success 'a batch job runs on each node in its namespace' '
	cd "$CL/work" &&
	for i in 1 2; do
		id=$(sbatch --parsable -w comp00$i -o job$i.out \
			--wrap="echo \$SLURMD_NODENAME \$SLURM_JOB_NODELIST; ip netns identify") &&
		wait_job_state $id COMPLETED || return 1
		printf "comp00%s comp00%s\n%s\n" $i $i "$NS-n$i" >expect &&
		test_cmp expect job$i.out || return 1
	done
'

test_expect_success 'a two-node batch job gets both nodes' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -N2 -o both.out --wrap="echo \$SLURM_JOB_NODELIST \$SLURM_NNODES") &&
	wait_job_state $id COMPLETED &&
	echo "comp[001-002] 2" >expect &&
	test_cmp expect both.out
'

test_expect_success 'srun -N2 -l runs one task in each namespace' '
	cd "$CL/work" &&
	srun -N2 -l sh -c "echo \$SLURMD_NODENAME \$(ip netns identify)" >out 2>err &&
	sort out >actual &&
	printf "0: comp001 %s\n1: comp002 %s\n" "$NS-n1" "$NS-n2" >expect &&
	test_cmp expect actual
'

cat >"$SHARNESS_TRASH_DIRECTORY/steps.sh" <<\EOF
#!/bin/sh
#SBATCH -N 2
srun -l sh -c 'echo $SLURMD_NODENAME $(ip -4 -br addr show dev eth0 | awk "{print \$3}")' | sort
EOF

test_expect_success NODE2NODE 'srun inside a batch job launches across namespaces' '
	script=$SHARNESS_TRASH_DIRECTORY/steps.sh &&
	cd "$CL/work" &&
	id=$(sbatch --parsable -o steps.out "$script") &&
	wait_job_state $id COMPLETED &&
	printf "0: comp001 %s\n1: comp002 %s\n" "$NET.2/24" "$NET.3/24" >expect &&
	test_cmp expect steps.out
'

test_expect_success 'killing one node daemon makes its node not responding' '
	noded_kill comp002 KILL &&
	wait_for 20 test_node_state comp002 "idle*" &&
	test_node_state comp001 idle &&
	sinfo -h -N -n comp002 -o %t | sort -u >st && echo "idle*" >expect && test_cmp expect st
'

test_expect_success 'jobs still run on the other node' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o other.out --wrap="echo \$SLURMD_NODENAME") &&
	wait_job_state $id COMPLETED &&
	echo comp001 >expect && test_cmp expect other.out
'

test_expect_success 'the node daemon comes back and the node is idle again' '
	noded_ns 2 &&
	wait_for 20 test_node_state comp002 idle &&
	srun -w comp002 sh -c "ip netns identify" >out &&
	echo "$NS-n2" >expect && test_cmp expect out
'

test_done
