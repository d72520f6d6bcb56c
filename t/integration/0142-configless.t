#!/bin/bash
test_description='configless (SlurmctldParameters=enable_configless): node
daemons started with --conf-server and no slurm.conf of their own fetch the
config files from the controller, register and run jobs; they fetch again at
scontrol reconfigure; a node starts from its cache while the controller is
down; a request that is not signed with the cluster key gets nothing, and the
key itself is never served'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

noded_said() { cat "$CL/log/noded-$1".* 2>/dev/null | grep -q -- "$2"; }

# configless_start NAME [ARGS...]: a node daemon with no slurm.conf (no -f,
# no SLURM_CONF), its files from the controller, cached in $CL/cache-NAME.
configless_start() {
	local name=$1; shift
	(unset SLURM_CONF; daemon_run noded -D -N "$name" --conf-server "127.0.0.1:$CTLD_PORT" \
		--conf-cache "$CL/cache-$name" --authinfo "key=$CL/etc/slurm.key" "$@") \
		>>"$CL/log/noded-$name.stderr" 2>&1 &
	echo $! >"$CL/noded-$name.pid"
	disown $!
}

PD=$(mktemp -d /tmp/sluice-cl.XXXXXX)
chmod 755 "$PD"

test_expect_success 'a controller with enable_configless and two configless nodes' '
	for p in a b; do
		printf "#!/bin/sh\necho %s >\"$PD/%s.\$SLURMD_NODENAME.\$SLURM_JOB_ID\"\n" $p $p >"$PD/prolog_$p" || return 1
	done &&
	chmod 755 "$PD/prolog_a" "$PD/prolog_b" &&
	cluster_write_conf 2 "SlurmctldParameters=enable_configless" "Prolog=$PD/prolog_a" &&
	printf "memory min_free=1M\n" >"$CL/etc/health.conf" &&
	ctld_start &&
	configless_start comp001 && configless_start comp002 &&
	wait_for 30 nodes_idle
'

test_expect_success 'the nodes read the files the controller served, from their cache' '
	for n in comp001 comp002; do
		noded_said $n "configless: slurm.conf gres.conf topology.conf cgroup.conf health.conf from 127.0.0.1:$CTLD_PORT cached in $CL/cache-$n" &&
		test_cmp "$CL/etc/slurm.conf" "$CL/cache-$n/slurm.conf" &&
		test_cmp "$CL/etc/gres.conf" "$CL/cache-$n/gres.conf" &&
		test_cmp "$CL/etc/health.conf" "$CL/cache-$n/health.conf" &&
		noded_said $n "health: 1 check(s) from $CL/cache-$n/health.conf" || return 1
	done
'

test_expect_success 'the cluster key is never served' '
	! ls "$CL"/cache-*/slurm.key 2>/dev/null &&
	! grep -rqF "$(cat "$CL/etc/slurm.key")" "$CL"/cache-*
'

test_expect_success 'each node runs a job with the Prolog it was served' '
	for n in comp001 comp002; do
		id=$(sbatch --parsable -w $n -o "$CL/work/$n.out" --wrap="echo ran on \$SLURMD_NODENAME") &&
		wait_job_state $id COMPLETED &&
		grep -qx "ran on $n" "$CL/work/$n.out" &&
		test "$(cat "$PD/a.$n.$id")" = a || return 1
	done
'

test_expect_success 'a changed Prolog on the controller and reconfigure: the nodes fetch it and use it' '
	sed -i "s|^Prolog=.*|Prolog=$PD/prolog_b|" "$SLURM_CONF" &&
	rm "$CL/etc/health.conf" &&
	scontrol reconfigure &&
	for n in comp001 comp002; do
		wait_for 20 grep -qx "Prolog=$PD/prolog_b" "$CL/cache-$n/slurm.conf" &&
		wait_for 20 noded_said $n "reconfigure: slurm.conf re-read.*changed:.*Prolog" &&
		! test -e "$CL/cache-$n/health.conf" || return 1
	done &&
	id=$(sbatch --parsable -w comp001 -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED &&
	test "$(cat "$PD/b.comp001.$id")" = b
'

test_expect_success 'a node starts from its cache while the controller is down' '
	noded_kill comp002 &&
	kill -TERM "$CTLD_PID" && wait_gone "$CTLD_PID" &&
	configless_start comp002 &&
	wait_for 20 noded_said comp002 "starting from the cached config in $CL/cache-comp002" &&
	pid=$(cat "$CL/noded-comp002.pid") && kill -0 $pid &&
	ctld_start &&
	wait_for 30 nodes_idle &&
	id=$(sbatch --parsable -w comp002 -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED &&
	test "$(cat "$PD/b.comp002.$id")" = b
'

test_expect_success 'without a cache and without the controller a configless node does not start' '
	test_must_fail env -u SLURM_CONF sluice noded -D -N comp002 --conf-server 127.0.0.1:1 \
		--conf-cache "$CL/cache-none" --authinfo "key=$CL/etc/slurm.key" 2>err &&
	grep -q "configless: cannot reach the controller at 127.0.0.1:1.*no cached config in $CL/cache-none" err &&
	! test -e "$CL/cache-none/slurm.conf"
'

test_expect_success USERS 'a request not signed with the cluster key gets no config' '
	chmod 777 "$CL/work" &&
	test_must_fail runuser -u alice -- env -u SLURM_CONF sluice noded -D -N comp002 \
		--conf-server "127.0.0.1:$CTLD_PORT" --conf-cache "$CL/work/alice-cache" \
		--authinfo "key=$CL/etc/slurm.key" 2>err &&
	cat err &&
	grep -q "configless: the controller at 127.0.0.1:$CTLD_PORT refused the config files: authentication required" err &&
	! test -e "$CL/work/alice-cache/slurm.conf"
'

test_expect_success 'a controller without enable_configless refuses, and the node says why' '
	sed -i "/^SlurmctldParameters=enable_configless/d" "$SLURM_CONF" &&
	scontrol reconfigure &&
	test_must_fail env -u SLURM_CONF sluice noded -D -N comp002 --conf-server "127.0.0.1:$CTLD_PORT" \
		--conf-cache "$CL/cache-off" --authinfo "key=$CL/etc/slurm.key" 2>err &&
	grep -q "refused the config files: configless operation is not enabled" err &&
	! test -e "$CL/cache-off/slurm.conf"
'

rm -rf "$PD"
test_done
