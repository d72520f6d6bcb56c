# netns.sh: sharness helpers for tests whose controller and node daemons
# run on separate "hosts": network namespaces of their own, named
# $NS_CTL (the controller's, where the commands run too) and $NS-n1,
# $NS-n2 (one per node daemon), addresses in $NET.0/24. Each test builds
# its own links between them (netns_setup). Nothing outside these
# namespaces is touched, and they are deleted at exit whatever happens.
# Source after lib.sh; skips the whole test without root, ip netns or veth.
NS=sluice-$$-$RANDOM
NS_CTL=$NS-ctl
NET=10.254.$(( RANDOM % 250 + 1 ))

netns_cleanup() {
	local n
	for n in "$NS_CTL" "$NS-n1" "$NS-n2"; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	return 0
}

if [ "$(id -u)" = 0 ] && command -v ip >/dev/null &&
	ip netns add "$NS-probe" 2>/dev/null; then
	ip -n "$NS-probe" link add probe0 type veth peer name probe1 2>/dev/null &&
		test_set_prereq NETNS
	ip netns del "$NS-probe"
fi
if ! test_have_prereq NETNS; then
	skip_all='needs root, ip netns and veth links'
	test_done
fi

trap 'trap "" INT TERM HUP; cluster_stop; netns_cleanup; die' EXIT
trap 'exit 130' INT TERM HUP

# The commands reach the controller only from its namespace: run them there
# (the helpers of cluster.sh use these too).
for c in sinfo squeue scontrol sbatch srun scancel; do
	eval "$c() { ip netns exec \"\$NS_CTL\" $c \"\$@\"; }"
done
