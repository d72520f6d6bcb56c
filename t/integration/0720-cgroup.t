#!/bin/bash
test_description='cgroups on a real cgroup v1 hierarchy: a job in its own
cgroup with its cores and memory, OUT_OF_MEMORY with Slurm'"'"'s line, GPUs it was
not given hidden, every process (also one that left the session) killed at
cancel and after a node daemon restart, and the fallback where cgroups are
unavailable'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

CG=${SLUICE_CGROUP_ROOT:-/sys/fs/cgroup}
# Writable v1 controllers (root on a host, not a container with a
# read-only /sys/fs/cgroup): the real tests need them.
cg_v1_ok() {
	[ "$(id -u)" = 0 ] || return 1
	for c in freezer cpuset memory devices; do
		[ -e "$CG/$c/cgroup.procs" ] || return 1
	done
	d="$CG/freezer/sluice-probe-$$"
	mkdir "$d" 2>/dev/null && rmdir "$d"
}
cg_v1_ok && test_set_prereq CGV1
[ -e "$CG/memory/memory.oom_control" ] && grep -q oom_kill "$CG/memory/memory.oom_control" 2>/dev/null &&
	test_set_prereq OOMCOUNT

write_cgroup_conf() {
	cat >"$CL/etc/cgroup.conf" <<-EOF
	CgroupPlugin=cgroup/v1
	ConstrainCores=yes
	ConstrainRAMSpace=yes
	ConstrainSwapSpace=yes
	AllowedSwapSpace=0
	ConstrainDevices=yes
	EOF
}

test_expect_success CGV1 'cluster with task/cgroup and fake GPU device files' '
	GRES_CONF="NodeName=comp001 Name=gpu Type=h100 File=/tmp/sluice-cg-dev-$$/nvidia[0-7]" \
		cluster_write_conf 1 "ProctrackType=proctrack/cgroup" "TaskPlugin=task/affinity,task/cgroup" &&
	mkdir -p /tmp/sluice-cg-dev-$$ &&
	for i in 0 1 2 3 4 5 6 7; do
		rm -f /tmp/sluice-cg-dev-$$/nvidia$i &&
		mknod -m 666 /tmp/sluice-cg-dev-$$/nvidia$i c 195 $i || return 1
	done &&
	write_cgroup_conf &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle &&
	P=$SLUICE_CGROUP_PREFIX &&
	test -d "$CG/freezer/${P}_comp001" &&
	test -d "$CG/memory/${P}_comp001"
'

test_expect_success CGV1,USERS 'a job runs in its own cgroup with its cores and memory' '
	cd "$CL/work" && chmod 777 . &&
	id=$(su alice -c "sbatch --parsable -n1 --mem=100 -o cg.out --wrap=\"cat /proc/self/cgroup; sleep 300\"") &&
	wait_job_state $id RUNNING &&
	uid=$(id -u alice) &&
	J="${P}_comp001/uid_$uid/job_$id" &&
	wait_for 10 grep -q "memory:/$J/step_batch\$" cg.out &&
	grep -q "freezer:/$J/step_batch\$" cg.out &&
	grep -q "cpuset:/$J/step_batch\$" cg.out &&
	grep -q "devices:/$J/step_batch\$" cg.out &&
	test "$(cat "$CG/memory/$J/memory.limit_in_bytes")" = $((100 * 1024 * 1024)) &&
	test "$(cat "$CG/cpuset/$J/cpuset.cpus")" = 0 &&
	test "$(cat "$CG/cpuset/$J/step_batch/cpuset.cpus")" = 0 &&
	test "$(wc -l <"$CG/freezer/$J/step_batch/cgroup.procs")" -ge 2 &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! test -d \"$CG/freezer/$J\"" &&
	! test -d "$CG/memory/$J" && ! test -d "$CG/cpuset/$J"
'

test_expect_success CGV1,OOMCOUNT 'a job the OOM killer hits ends OUT_OF_MEMORY with Slurm'"'"'s line' '
	cd "$CL/work" &&
	id=$(sbatch --parsable --mem=40 -o oom.out --wrap="head -c 400M /dev/zero | tail; echo survived") &&
	wait_job_state $id OUT_OF_MEMORY 60 &&
	test "$(job_field $id Reason)" = OutOfMemory &&
	grep -q "^slurmstepd: error: Detected [1-9][0-9]* oom-kill event(s) in StepId=$id.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.\$" oom.out &&
	test "$(job_field $id ExitCode)" = 0:125 &&
	wait_for 10 sh -c "sacct -n -P -j $id -o JobID,State,ExitCode | grep -qx \"$id.batch|OUT_OF_MEMORY|0:125\"" &&
	sacct -n -P -X -j $id -o State,ExitCode >sacct.out &&
	echo "OUT_OF_MEMORY|0:125" >expect &&
	test_cmp expect sacct.out
'

test_expect_success CGV1 'a job cannot open the GPUs it was not given' '
	cd "$CL/work" &&
	D=/tmp/sluice-cg-dev-$$ &&
	id=$(sbatch --parsable --gres=gpu:1 -o dev.out --wrap="echo gpus=\$SLURM_JOB_GPUS; for i in 0 1 2 3 4 5 6 7; do cat $D/nvidia\$i 2>&1 | sed \"s/^/\$i: /\"; done") &&
	wait_job_state $id COMPLETED &&
	g=$(sed -n "s/^gpus=//p" dev.out) &&
	test -n "$g" &&
	for i in 0 1 2 3 4 5 6 7; do
		if [ "$i" = "$g" ]; then
			grep -q "^$i: .*No such device or address" dev.out || return 1
		else
			grep -q "^$i: .*Operation not permitted" dev.out || return 1
		fi
	done
'

test_expect_success CGV1 'the batch script numbers its GPUs 0-based within the job, as its steps do' '
	cd "$CL/work" &&
	hold=$(sbatch --parsable --gres=gpu:2 -o /dev/null --wrap="echo \$SLURM_JOB_GPUS >hold.gpus; sleep 300") &&
	wait_job_state $hold RUNNING &&
	wait_for 10 test -s hold.gpus &&
	cat >cvd.sh <<-\EOF &&
	#!/bin/bash
	echo $CUDA_VISIBLE_DEVICES $GPU_DEVICE_ORDINAL
	echo $SLURM_JOB_GPUS
	srun -n1 bash -c "echo \$CUDA_VISIBLE_DEVICES"
	EOF
	id=$(sbatch --parsable --gres=gpu:2 -o cvd.out -e cvd.err cvd.sh) &&
	wait_job_state $id COMPLETED &&
	scancel $hold &&
	test_must_be_empty cvd.err &&
	printf "0,1 0,1\n0,1\n" >expect &&
	sed -n "1p;3p" cvd.out >got && test_cmp expect got &&
	g=$(sed -n 2p cvd.out) && h=$(cat hold.gpus) &&
	test -n "$g" && test -n "$h" && test "$g" != "$h" &&
	wait_job_state $hold CANCELLED
'

# stepdev.sh: two concurrent steps of --gres=gpu:2 each (in a 4-GPU job)
# try every fake GPU; each waits until both run, so they overlap.
cat >"$CL/work/stepdev.sh" <<\EOF
#!/bin/bash
D=$1
for s in 1 2; do
	srun -n1 --exact --gres=gpu:2 bash -c "touch sd.run.$s; n=0; while [ \$(ls sd.run.* | wc -l) -lt 2 ] && [ \$n -lt 600 ]; do sleep 0.1; n=\$((n+1)); done; echo gpus=\$SLURM_STEP_GPUS; for i in 0 1 2 3 4 5 6 7; do cat $D/nvidia\$i 2>&1 | sed \"s/^/\$i: /\"; done; ls sd.run.* | wc -l" >sd.$s &
done
wait
EOF

# check_step_devices FILE: the step in FILE ran beside the other, opened
# its own GPUs (ENXIO from the fake device) and no other (EPERM)
check_step_devices() {
	g=$(sed -n "s/^gpus=//p" $1) &&
	test -n "$g" &&
	test "$(tail -n1 $1)" = 2 &&
	for i in 0 1 2 3 4 5 6 7; do
		case ",$g," in
		*",$i,"*) grep -q "^$i: .*No such device or address" $1 || return 1 ;;
		*) grep -q "^$i: .*Operation not permitted" $1 || return 1 ;;
		esac
	done
}

test_expect_success CGV1 'two concurrent steps each open only their own GPUs (step_S devices)' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -n2 --gres=gpu:4 -o sd.out -e sd.err stepdev.sh /tmp/sluice-cg-dev-$$) &&
	wait_job_state $id COMPLETED &&
	test_must_be_empty sd.err &&
	check_step_devices sd.1 &&
	check_step_devices sd.2 &&
	test "$(sed -n "s/^gpus=//p" sd.1)" != "$(sed -n "s/^gpus=//p" sd.2)"
'

test_expect_success CGV1 'scancel kills every process of the job, also one that left its session' '
	cd "$CL/work" &&
	cat >daemon.sh <<-\EOF &&
	#!/bin/bash
	# a daemon: its own session, reparented to init
	( setsid sleep 301 </dev/null >/dev/null 2>&1 & echo $! >$SLURM_JOB_ID.daemon )
	sleep 300
	EOF
	id=$(sbatch --parsable -o /dev/null daemon.sh) &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.daemon &&
	d=$(cat $id.daemon) &&
	kill -0 $d &&
	test "$(ps -o sid= -p $d)" -eq $d &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! kill -0 $d 2>/dev/null"
'

test_expect_success CGV1 'a script that ends takes what it left running with it' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="setsid sleep 302 </dev/null >/dev/null 2>&1 & echo \$! >\$SLURM_JOB_ID.left") &&
	wait_job_state $id COMPLETED &&
	d=$(cat $id.left) &&
	wait_for 10 sh -c "! kill -0 $d 2>/dev/null"
'

test_expect_success CGV1 'an srun step gets its own cgroup under its job, with the job'"'"'s memory' '
	cd "$CL/work" &&
	srun -n1 --mem=60 sh -c "p=\$(sed -n \"s/^[0-9]*:memory://p\" /proc/self/cgroup); echo \$p; cat $CG/memory\$p/../memory.limit_in_bytes" >step.out 2>step.err &&
	test_must_be_empty step.err &&
	grep -Eq "^/${P}_comp001/uid_0/job_[0-9]+/step_0\$" step.out &&
	test "$(sed -n 2p step.out)" = $((60 * 1024 * 1024)) &&
	j=$(sed -n "1s|.*/job_\([0-9]*\)/.*|\1|p" step.out) &&
	wait_for 10 sh -c "! test -d \"$CG/memory/${P}_comp001/uid_0/job_$j\""
'

test_expect_success CGV1,OOMCOUNT 'an srun step the OOM killer hits: Slurm'"'"'s line on srun'"'"'s stderr' '
	cd "$CL/work" &&
	{ srun -n1 --mem=40 sh -c "head -c 400M /dev/zero | tail" >oomstep.out 2>oomstep.err; rc=$?; } &&
	test $rc -ne 0 &&
	grep -Eq "^slurmstepd: error: Detected [1-9][0-9]* oom-kill event\(s\) in StepId=[0-9]+\.0\. Some of your processes may have been killed by the cgroup out-of-memory handler\.\$" oomstep.err
'

test_expect_success CGV1 'after kill -9 and restart of noded, scancel still kills everything' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null daemon.sh) &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.daemon &&
	d=$(cat $id.daemon) &&
	noded_kill comp001 KILL &&
	noded_start comp001 &&
	wait_for 30 sh -c "test \$(cat \"$CL\"/log/noded-comp001.* | grep -c \"slurmd version .* started\") -ge 2" &&
	kill -0 $d &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! kill -0 $d 2>/dev/null"
'

test_expect_success CGV1 'a dead supervisor'"'"'s job is killed through its cgroup' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null daemon.sh) &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.daemon &&
	d=$(cat $id.daemon) &&
	sup=$(sed -n "s/^pid=//p" "$CL/spool/comp001/job$id/state") &&
	test -n "$sup" &&
	kill -9 $sup &&
	wait_job_state $id NODE_FAIL 30 &&
	wait_for 10 sh -c "! kill -0 $d 2>/dev/null" &&
	uid=$(id -u) &&
	wait_for 10 sh -c "! test -d \"$CG/freezer/${P}_comp001/uid_$uid/job_$id\""
'

test_expect_success CGV1 'stop the cgroup cluster' '
	cluster_stop &&
	rm -rf /tmp/sluice-cg-dev-$$ &&
	! test -d "$CG/freezer/${P}_comp001/uid_0"
'

test_expect_success 'no usable cgroups: one log line, jobs still run and are tracked' '
	cluster_write_conf 1 "ProctrackType=proctrack/cgroup" "TaskPlugin=task/cgroup" &&
	printf "CgroupPlugin=cgroup/v1\nCgroupMountpoint=/nonexistent/cgroup\nConstrainRAMSpace=yes\n" >"$CL/etc/cgroup.conf" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle &&
	cd "$CL/work" &&
	id=$(sbatch --parsable --mem=100 -o fb.out --wrap="sleep 300 & echo \$! >\$SLURM_JOB_ID.pid; wait") &&
	wait_job_state $id RUNNING &&
	wait_for 10 test -s $id.pid &&
	pid=$(cat $id.pid) &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	wait_for 10 sh -c "! kill -0 $pid 2>/dev/null" &&
	cat "$CL"/log/noded-comp001.* | grep "cgroups unavailable" >lines &&
	test "$(wc -l <lines)" -eq 1 &&
	grep -q "CgroupPlugin=cgroup/v1 but /nonexistent/cgroup has no cgroup v1 freezer hierarchy" lines
'

test_done
