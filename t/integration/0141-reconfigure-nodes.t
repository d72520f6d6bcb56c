#!/bin/bash
test_description='scontrol reconfigure reaches every node daemon: each re-reads
slurm.conf, cgroup.conf and health.conf, the next job on every node runs the
new Prolog and gets the new cgroup.conf limits, the node logs what changed and
what needs a restart (its own CPUs, its port), and a running job keeps running'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

noded_said() { cat "$CL/log/noded-$1".* 2>/dev/null | grep -q -- "$2"; }
said_count() { cat "$CL/log/noded-$1".* 2>/dev/null | grep -c -- "$2"; }

CG=${SLUICE_CGROUP_ROOT:-/sys/fs/cgroup}
# cgroups the node daemons can use (root, a writable freezer and pids
# hierarchy or a v2 root with pids): the PidsLimit checks need them; the
# rest runs either way.
CGV=
if [ "$(id -u)" = 0 ]; then
	if [ -e "$CG/freezer/cgroup.procs" ] && [ -e "$CG/pids/cgroup.procs" ] &&
		mkdir "$CG/pids/sluice-probe-$$" 2>/dev/null && rmdir "$CG/pids/sluice-probe-$$"; then
		CGV=v1
	elif grep -qw pids "$CG/cgroup.controllers" 2>/dev/null && mkdir -p "$CG/system.slice" 2>/dev/null &&
		mkdir "$CG/system.slice/sluice-probe-$$" 2>/dev/null && rmdir "$CG/system.slice/sluice-probe-$$"; then
		CGV=v2
	fi
fi
# job_pids_max NODE ID: pids.max of the job's cgroup there.
job_pids_max() {
	if [ "$CGV" = v1 ]; then
		cat "$CG/pids/${SLUICE_CGROUP_PREFIX}_$1/uid_$(id -u)/job_$2/pids.max"
	else
		cat "$CG/system.slice/${SLUICE_CGROUP_PREFIX}_$1_slurmstepd.scope/job_$2/pids.max"
	fi
}

PD=$(mktemp -d /tmp/sluice-rn.XXXXXX)
chmod 755 "$PD"

test_expect_success 'a two-node cluster with Prolog A' '
	for p in a b; do
		printf "#!/bin/sh\necho %s >\"$PD/%s.\$SLURMD_NODENAME.\$SLURM_JOB_ID\"\n" $p $p >"$PD/prolog_$p" || return 1
	done &&
	chmod 755 "$PD/prolog_a" "$PD/prolog_b" &&
	if [ -n "$CGV" ]; then
		set -- "ProctrackType=proctrack/cgroup" "TaskPlugin=task/cgroup"
	else
		set --
	fi &&
	cluster_write_conf 2 "Prolog=$PD/prolog_a" "$@" &&
	printf "CgroupPlugin=cgroup/${CGV:-v2}\nPidsLimit=100\n" >"$CL/etc/cgroup.conf" &&
	ctld_start &&
	noded_start comp001 && noded_start comp002 &&
	wait_for 30 nodes_idle
'

# Where v2 cannot enable the pids controller for the node scope (a
# container), the node daemon said so at start: the pids checks are skipped.
[ -n "$CGV" ] && [ -n "${CL:-}" ] && ! noded_said comp001 "cannot be applied" && ! noded_said comp001 "cgroups unavailable" &&
	test_set_prereq CGPIDS

test_expect_success 'jobs run Prolog A on each node; a long job keeps running' '
	for n in comp001 comp002; do
		id=$(sbatch --parsable -w $n -o /dev/null --wrap=true) &&
		wait_job_state $id COMPLETED &&
		test "$(cat "$PD/a.$n.$id")" = a || return 1
	done &&
	long=$(sbatch --parsable -w comp001 -o "$CL/work/long.out" --wrap="echo start; sleep 600") &&
	wait_job_state $long RUNNING &&
	wait_for 20 job_launched $long &&
	echo $long >long.id
'

test_expect_success CGPIDS 'the running job has PidsLimit 100' '
	test "$(job_pids_max comp001 $(cat long.id))" = 100
'

test_expect_success 'Prolog B, a health check, a new PidsLimit and reconfigure: every node re-reads' '
	sed -i "s|^Prolog=.*|Prolog=$PD/prolog_b|" "$SLURM_CONF" &&
	printf "CgroupPlugin=cgroup/${CGV:-v2}\nPidsLimit=50\n" >"$CL/etc/cgroup.conf" &&
	printf "memory min_free=1M\n" >"$CL/etc/health.conf" &&
	scontrol reconfigure &&
	for n in comp001 comp002; do
		wait_for 20 noded_said $n "reconfigure requested by the controller" &&
		wait_for 20 noded_said $n "reconfigure: slurm.conf re-read.*changed:.*Prolog" &&
		wait_for 20 noded_said $n "reconfigure: $CL/etc/health.conf re-read: 1 check(s)" || return 1
	done
'

test_expect_success 'the next job on each node runs Prolog B, not A' '
	for n in comp001 comp002; do
		id=$(sbatch --parsable -w $n -o /dev/null --wrap=true) &&
		wait_job_state $id COMPLETED &&
		test "$(cat "$PD/b.$n.$id")" = b &&
		! test -e "$PD/a.$n.$id" || return 1
	done
'

test_expect_success CGPIDS 'a new job gets PidsLimit 50; the running job keeps 100' '
	wait_for 20 noded_said comp001 "reconfigure: cgroup.conf applied to new jobs: .*PidsLimit=50" &&
	id=$(sbatch --parsable -w comp002 -o /dev/null --wrap="sleep 600") &&
	wait_job_state $id RUNNING &&
	wait_for 20 job_launched $id &&
	wait_for 20 job_pids_max comp002 $id &&
	test "$(job_pids_max comp002 $id)" = 50 &&
	test "$(job_pids_max comp001 $(cat long.id))" = 100 &&
	scancel $id
'

test_expect_success 'the running job was not touched' '
	test_job_state $(cat long.id) RUNNING &&
	grep -qx start "$CL/work/long.out"
'

test_expect_success 'a node'"'"'s own CPUs and its port: said to need a restart, the node keeps reporting what it has' '
	port=$(sed -n "s/^NodeName=comp002 .*Port=\([0-9]*\).*/\1/p" "$SLURM_CONF") &&
	sed -i "/^NodeName=comp002 /s/Port=$port/Port=$((port + 100)) CPUs=4 CoresPerSocket=4/" "$SLURM_CONF" &&
	sed -i "/^NodeName=comp001 /s/\$/ CPUs=4 CoresPerSocket=4/" "$SLURM_CONF" &&
	scontrol reconfigure &&
	wait_for 20 noded_said comp002 "reconfigure: Port changed ($port -> $((port + 100))): needs a restart" &&
	wait_for 20 noded_said comp002 "reconfigure: CPUs changed (8 -> 4): needs a restart" &&
	wait_for 20 noded_said comp001 "reconfigure: CPUs changed (8 -> 4): needs a restart" &&
	test_job_state $(cat long.id) RUNNING
'

test_expect_success 'a config with errors changes nothing on the nodes' '
	n=$(said_count comp001 "reconfigure: slurm.conf re-read") &&
	echo "NoSuchKey=1" >>"$SLURM_CONF" &&
	test_must_fail scontrol reconfigure &&
	kill -HUP $(cat "$CL/noded-comp001.pid") &&
	wait_for 20 noded_said comp001 "reconfigure: config not applied" &&
	test "$(said_count comp001 "reconfigure: slurm.conf re-read")" = "$n" &&
	sed -i "/^NoSuchKey=1/d" "$SLURM_CONF"
'

test_expect_success 'the long job is still running and is cancelled cleanly' '
	test_job_state $(cat long.id) RUNNING &&
	scancel $(cat long.id) &&
	wait_job_state $(cat long.id) CANCELLED
'

rm -rf "$PD"
test_done
