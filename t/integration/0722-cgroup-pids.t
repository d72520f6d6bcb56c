#!/bin/bash
test_description='cgroup.conf PidsLimit (a Sluice key): check-config takes a
number and refuses anything else; with it every job gets pids.max in its
cgroup (v1 pids hierarchy, or the v2 pids controller) and a fork bomb stops
at the limit while the node stays usable; without it no pids limit is set'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

CG=${SLUICE_CGROUP_ROOT:-/sys/fs/cgroup}
# A writable v1 freezer and pids hierarchy, else a v2 root with the pids
# controller: root on a host, not a container with a read-only cgroup tree.
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
[ -n "$CGV" ] && test_set_prereq CGPIDS
command -v python3 >/dev/null && test_set_prereq PYTHON3

# job_cg ID: the job's cgroup directory that holds pids.max.
job_cg() {
	if [ $CGV = v1 ]; then
		echo "$CG/pids/${SLUICE_CGROUP_PREFIX}_comp001/uid_$(id -u)/job_$1"
	else
		echo "$CG/system.slice/${SLUICE_CGROUP_PREFIX}_comp001_slurmstepd.scope/job_$1"
	fi
}

test_expect_success 'check-config takes PidsLimit=N and refuses other values' '
	cluster_write_conf 1 "ProctrackType=proctrack/cgroup" "TaskPlugin=task/cgroup" &&
	printf "ConstrainCores=yes\nPidsLimit=4096\n" >"$CL/etc/cgroup.conf" &&
	sluice check-config "$CL/etc" >out 2>err &&
	test_must_be_empty err &&
	! grep -q PidsLimit out &&
	for v in -1 lots 4194305; do
		printf "PidsLimit=%s\n" $v >"$CL/etc/cgroup.conf" &&
		test_expect_code 1 sluice check-config "$CL/etc" 2>err &&
		grep -q "cgroup.conf:1: bad value .$v. for .PidsLimit." err || return 1
	done
'

test_expect_success CGPIDS 'a cluster with PidsLimit=24' '
	printf "CgroupPlugin=cgroup/$CGV\nPidsLimit=24\n" >"$CL/etc/cgroup.conf" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle
'

# Where v2 cannot enable the pids controller for the node's scope (a
# container's delegated tree), the node daemon said so at start: the limit
# tests are skipped then.
[ -n "${CL:-}" ] && ! grep -qs "PidsLimit=24 cannot be applied" "$CL"/log/noded-comp001.* &&
	test_set_prereq PIDSLIMIT

test_expect_success CGPIDS,PIDSLIMIT 'a job runs with pids.max set to the limit' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="sleep 300") &&
	wait_job_state $id RUNNING &&
	J=$(job_cg $id) &&
	wait_for 10 test -d "$J/step_batch" &&
	test "$(cat "$J/pids.max")" = 24 &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! test -d \"$J\""
'

test_expect_success CGPIDS,PIDSLIMIT,PYTHON3 'a fork bomb stops at the limit and the node goes on' '
	cd "$CL/work" &&
	cat >bomb.py <<-\EOF &&
	import os, signal, sys
	kids = []
	try:
	    while len(kids) < 1000:
	        p = os.fork()
	        if p == 0:
	            signal.pause()
	            os._exit(0)
	        kids.append(p)
	    print("not stopped", len(kids))
	except OSError as e:
	    print("stopped", len(kids), e.errno)
	sys.stdout.flush()
	for k in kids:
	    os.kill(k, signal.SIGKILL)
	EOF
	id=$(sbatch --parsable -o bomb.out --wrap="python3 bomb.py") &&
	wait_job_state $id COMPLETED 60 &&
	cat bomb.out &&
	read word n errno <bomb.out &&
	test "$word" = stopped &&
	test "$errno" = 11 &&
	test "$n" -ge 10 && test "$n" -lt 24 &&
	id=$(sbatch --parsable -o after.out --wrap="echo still fine") &&
	wait_job_state $id COMPLETED &&
	grep -qx "still fine" after.out
'

test_expect_success CGPIDS 'without PidsLimit a job has no pids limit' '
	cd "$CL/work" &&
	noded_kill comp001 &&
	printf "CgroupPlugin=cgroup/$CGV\n" >"$CL/etc/cgroup.conf" &&
	noded_start comp001 &&
	wait_for 30 nodes_idle &&
	id=$(sbatch --parsable -o /dev/null --wrap="cat /proc/self/cgroup >\$SLURM_JOB_ID.cg; sleep 300") &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.cg &&
	J=$(job_cg $id) &&
	if [ $CGV = v1 ]; then
		! grep -q ":pids:/${SLUICE_CGROUP_PREFIX}_comp001/" $id.cg &&
		! test -d "$J"
	else
		{ ! test -e "$J/pids.max" || test "$(cat "$J/pids.max")" = max; }
	fi &&
	scancel $id &&
	wait_job_state $id CANCELLED
'

test_expect_success 'stop the cluster' '
	cluster_stop
'

test_done
