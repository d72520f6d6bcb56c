#!/bin/bash
test_description='cgroups on a real cgroup v2 tree: a job in its own cgroup
(system.slice/<node>_slurmstepd.scope/job_J/step_batch), every process of it
killed at cancel through cgroup.kill or the freezer, and its cgroup removed.
Runs on a v2 host (/sys/fs/cgroup) or on the v2 tree of a hybrid one
(/sys/fs/cgroup/unified: tracking only, it has no controllers)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

V2=
for r in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -e "$r/cgroup.controllers" ] && { V2=$r; break; }
done
if [ -n "$V2" ] && [ "$(id -u)" = 0 ] && mkdir -p "$V2/system.slice" 2>/dev/null &&
	mkdir "$V2/system.slice/sluice-probe-$$" 2>/dev/null && rmdir "$V2/system.slice/sluice-probe-$$"; then
	test_set_prereq CGV2
fi

test_expect_success CGV2 'cluster with cgroup v2 tracking and ConstrainDevices' '
	export SLUICE_CGROUP_ROOT=$V2 &&
	D=/tmp/sluice-cg2-dev-$$ &&
	GRES_CONF="NodeName=comp001 Name=gpu Type=h100 File=$D/nvidia[0-7]" \
		cluster_write_conf 1 "ProctrackType=proctrack/cgroup" "TaskPlugin=task/cgroup" &&
	mkdir -p $D &&
	for i in 0 1 2 3 4 5 6 7; do
		rm -f $D/nvidia$i &&
		mknod -m 666 $D/nvidia$i c 195 $i || return 1
	done &&
	printf "CgroupPlugin=cgroup/v2\nConstrainDevices=yes\n" >"$CL/etc/cgroup.conf" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle &&
	S="$V2/system.slice/${SLUICE_CGROUP_PREFIX}_comp001_slurmstepd.scope" &&
	test -d "$S"
'

test_expect_success CGV2 'a job runs in its v2 cgroup and scancel kills all of it' '
	cd "$CL/work" &&
	cat >daemon.sh <<-\EOF &&
	#!/bin/bash
	cat /proc/self/cgroup >$SLURM_JOB_ID.cg
	( setsid sleep 303 </dev/null >/dev/null 2>&1 & echo $! >$SLURM_JOB_ID.daemon )
	sleep 300
	EOF
	id=$(sbatch --parsable -o /dev/null daemon.sh) &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.daemon &&
	grep -q "^0::/system.slice/${SLUICE_CGROUP_PREFIX}_comp001_slurmstepd.scope/job_$id/step_batch\$" $id.cg &&
	d=$(cat $id.daemon) &&
	grep -qx $d "$S/job_$id/step_batch/cgroup.procs" &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! kill -0 $d 2>/dev/null" &&
	wait_for 10 sh -c "! test -d \"$S/job_$id\""
'

test_expect_success CGV2 'a script that ends takes what it left running with it' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="setsid sleep 304 </dev/null >/dev/null 2>&1 & echo \$! >\$SLURM_JOB_ID.left") &&
	wait_job_state $id COMPLETED &&
	d=$(cat $id.left) &&
	wait_for 10 sh -c "! kill -0 $d 2>/dev/null" &&
	wait_for 10 sh -c "! test -d \"$S/job_$id\""
'

# Where no BPF device program can be loaded (no CAP_BPF in a container),
# the node daemon said so at start: the device test is skipped then.
[ -n "${CL:-}" ] && ! grep -qs "ConstrainDevices=yes cannot be applied on cgroup v2 here" "$CL"/log/noded-comp001.* &&
	test_set_prereq BPFDEV

test_expect_success CGV2,BPFDEV 'a job cannot open the GPUs it was not given (BPF device program)' '
	cd "$CL/work" &&
	{
		id=$(sbatch --parsable --gres=gpu:2 -o dev.out --wrap="echo gpus=\$SLURM_JOB_GPUS; for i in 0 1 2 3 4 5 6 7; do cat $D/nvidia\$i 2>&1 | sed \"s/^/\$i: /\"; done") &&
		wait_job_state $id COMPLETED &&
		g=$(sed -n "s/^gpus=//p" dev.out) &&
		test -n "$g" &&
		for i in 0 1 2 3 4 5 6 7; do
			case ",$g," in
			*",$i,"*) grep -q "^$i: .*No such device or address" dev.out || return 1 ;;
			*) grep -q "^$i: .*Operation not permitted" dev.out || return 1 ;;
			esac
		done
	}
'

test_expect_success CGV2,BPFDEV 'two concurrent steps each open only their own GPUs (step_S BPF program)' '
	cd "$CL/work" &&
	cat >stepdev.sh <<-\EOF &&
	#!/bin/bash
	D=$1
	for s in 1 2; do
		srun -n1 --exact --gres=gpu:2 bash -c "touch sd.run.$s; n=0; while [ \$(ls sd.run.* | wc -l) -lt 2 ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done; echo gpus=\$SLURM_STEP_GPUS; for i in 0 1 2 3 4 5 6 7; do cat $D/nvidia\$i 2>&1 | sed \"s/^/\$i: /\"; done; ls sd.run.* | wc -l" >sd.$s &
	done
	wait
	EOF
	id=$(sbatch --parsable -n2 --gres=gpu:4 -o sd.out -e sd.err stepdev.sh $D) &&
	wait_job_state $id COMPLETED &&
	test_must_be_empty sd.err &&
	for f in sd.1 sd.2; do
		g=$(sed -n "s/^gpus=//p" $f) &&
		test -n "$g" &&
		test "$(tail -n1 $f)" = 2 &&
		for i in 0 1 2 3 4 5 6 7; do
			case ",$g," in
			*",$i,"*) grep -q "^$i: .*No such device or address" $f || return 1 ;;
			*) grep -q "^$i: .*Operation not permitted" $f || return 1 ;;
			esac
		done || return 1
	done
'

test_expect_success CGV2 'remove the fake devices' '
	rm -rf /tmp/sluice-cg2-dev-$$
'

test_done
