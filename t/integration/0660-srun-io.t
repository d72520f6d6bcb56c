#!/bin/bash
test_description='srun -o/-e/-i patterns, --multi-prog, -K, -W, task environment'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success '-o with %t writes one file per task, %j %s %N expanded' '
	cd "$CL/work" &&
	srun -N2 -n3 -o "out-%j.%s-%t-%N.txt" sh -c "echo rank \$SLURM_PROCID" 2>err &&
	test_must_be_empty err &&
	ls out-*.txt | sort >files &&
	id=$(sed -n "s/^out-\([0-9]*\)\.0-0-.*/\1/p" files) &&
	printf "out-$id.0-0-comp001.txt\nout-$id.0-1-comp001.txt\nout-$id.0-2-comp002.txt\n" >expect &&
	test_cmp expect files &&
	echo "rank 2" >expect && test_cmp expect out-$id.0-2-comp002.txt
'

test_expect_success 'without -e stderr goes to the -o file; -e splits it' '
	srun -o both.txt sh -c "echo o; echo e >&2" &&
	sort both.txt >got && printf "e\no\n" >expect && test_cmp expect got &&
	srun -o o.txt -e e.txt sh -c "echo o; echo e >&2" &&
	echo o >expect && test_cmp expect o.txt &&
	echo e >expect && test_cmp expect e.txt
'

test_expect_success '%n per node, %% and %u; a backslash turns patterns off' '
	srun -N2 -n4 -o "node%n.txt" -l sh -c "echo \$SLURM_PROCID" &&
	printf "0: 0\n1: 1\n" >expect && sort node0.txt >got && test_cmp expect got &&
	printf "2: 2\n3: 3\n" >expect && sort node1.txt >got && test_cmp expect got &&
	srun -o "pct%%-%u.txt" echo x && test -s "pct%-$(id -un).txt" &&
	srun -o "lit\\%j.txt" echo y && test -s "lit%j.txt"
'

test_expect_success '-o N keeps only task N'"'"'s output, -o none drops it' '
	srun -n3 -o 1 sh -c "echo task \$SLURM_PROCID" >out &&
	echo "task 1" >expect && test_cmp expect out &&
	srun -n2 -o none echo x >out && test_must_be_empty out &&
	srun -n2 -e none sh -c "echo x >&2" 2>err && test_must_be_empty err
'

test_expect_success '--open-mode=append appends, the default truncates' '
	srun -o app.txt echo one && srun --open-mode=append -o app.txt echo two &&
	printf "one\ntwo\n" >expect && test_cmp expect app.txt &&
	srun -o app.txt echo three && echo three >expect && test_cmp expect app.txt
'

test_expect_success '-i with %t gives each task its own file' '
	echo zero >in-0 && echo one >in-1 &&
	srun -n2 -l -i "in-%t" cat | sort >out &&
	printf "0: zero\n1: one\n" >expect && test_cmp expect out &&
	test_must_fail srun -i nosuchfile cat 2>err &&
	grep -q "^srun: error: Could not open stdin file .*nosuchfile: No such file or directory$" err
'

test_expect_success '--multi-prog runs a program per rank with %t and %o' '
	printf "# comment\n0 echo zero %%t %%o\n1-2 echo rest %%t %%o\n" >mp.conf &&
	srun -n3 -l --multi-prog mp.conf | sort >out &&
	printf "0: zero 0 0\n1: rest 1 0\n2: rest 2 1\n" >expect && test_cmp expect out &&
	printf "0 echo a\n* echo '"'"'b c'"'"' %%t\n" >star.conf &&
	srun -n3 -l --multi-prog star.conf | sort >out &&
	printf "0: a\n1: b c 1\n2: b c 2\n" >expect && test_cmp expect out
'

test_expect_success '--multi-prog errors as Slurm prints them' '
	printf "0 echo zero\n" >short.conf &&
	test_expect_code 1 srun -n3 --multi-prog short.conf 2>err &&
	echo "srun: error: Configuration file short.conf invalid, no record for task id 1" >expect &&
	test_cmp expect err &&
	printf "0-5 echo x\n" >big.conf &&
	test_expect_code 1 srun -n3 --multi-prog big.conf 2>err &&
	printf "srun: error: Invalid task id, 5 >= ntasks\nsrun: error: Line 1 of configuration file big.conf invalid\n" >expect &&
	test_cmp expect err &&
	printf "0 echo a\n0-1 echo b\n" >dup.conf &&
	test_expect_code 1 srun -n2 --multi-prog dup.conf 2>err &&
	printf "srun: error: Duplicate record for task 0\nsrun: error: Line 2 of configuration file dup.conf invalid\n" >expect &&
	test_cmp expect err &&
	test_expect_code 1 srun --multi-prog nofile 2>err &&
	echo "srun: error: Could not open multi_prog config file nofile" >expect &&
	test_cmp expect err
'

test_expect_success '-K ends the step when a task fails, with Slurm'"'"'s lines' '
	start=$(date +%s) &&
	test_expect_code 143 srun -n2 -K sh -c "if [ \$SLURM_PROCID = 1 ]; then exit 3; fi; exec sleep 60" 2>err &&
	test $(( $(date +%s) - start )) -lt 30 &&
	grep -q "^srun: error: comp001: task 1: Exited with exit code 3$" err &&
	grep -Eq "^srun: launch/slurm: _step_signal: Terminating StepId=[0-9]+\.0$" err &&
	grep -Eq "^slurmstepd: error: \*\*\* STEP [0-9]+\.0 ON comp001 CANCELLED AT .* \*\*\*$" err &&
	grep -q "^srun: error: comp001: task 0: Terminated$" err &&
	grep -Eq "^srun: Force Terminated StepId=[0-9]+\.0$" err &&
	test $(grep -c "task 1: Exited" err) = 1
'

test_expect_success 'without -K a failing task does not stop the others' '
	test_expect_code 3 srun -n2 sh -c "if [ \$SLURM_PROCID = 1 ]; then exit 3; fi; sleep 1; echo done" >out 2>err &&
	echo done >expect && test_cmp expect out
'

test_expect_success '-W kills what is left N seconds after the first task ended' '
	start=$(date +%s) &&
	test_expect_code 137 srun -n2 -W 1 sh -c "[ \$SLURM_PROCID = 0 ] || exec sleep 60" 2>err &&
	test $(( $(date +%s) - start )) -lt 30 &&
	grep -q "^srun: First task exited 1s ago$" err &&
	grep -Eq "^srun: StepId=[0-9]+\.0 task 1: running$" err &&
	grep -Eq "^srun: StepId=[0-9]+\.0 task 0: exited$" err &&
	grep -q "^srun: error: comp001: task 1: Killed$" err
'

test_expect_success 'tasks with the same end are reported together' '
	test_expect_code 2 srun -n2 sh -c "exit 2" 2>err &&
	echo "srun: error: comp001: tasks 0-1: Exited with exit code 2" >expect &&
	test_cmp expect err
'

test_expect_success 'task environment as Slurm sets it' '
	srun -N2 -n3 -l env >env.out &&
	grep -q "^0: SLURM_GTIDS=0,1$" env.out &&
	grep -q "^2: SLURM_GTIDS=2$" env.out &&
	grep -q "^1: SLURM_LOCALID=1$" env.out &&
	grep -q "^0: SLURM_STEP_TASKS_PER_NODE=2,1$" env.out &&
	grep -q "^0: SLURM_TASKS_PER_NODE=2,1$" env.out &&
	grep -q "^2: SLURMD_NODENAME=comp002$" env.out &&
	grep -Eq "^2: SLURM_TOPOLOGY_ADDR=([a-z0-9]+\.)*comp002$" env.out &&
	grep -Eq "^0: SLURM_TOPOLOGY_ADDR_PATTERN=(switch\.)*node$" env.out &&
	grep -q "^0: SRUN_DEBUG=3$" env.out &&
	grep -q "^0: SLURM_LAUNCH_NODE_IPADDR=127.0.0.1$" env.out &&
	grep -q "^0: SLURM_SRUN_COMM_HOST=127.0.0.1$" env.out &&
	grep -q "^0: SLURM_JOB_UID=$(id -u)$" env.out &&
	grep -q "^0: SLURM_JOB_USER=$(id -un)$" env.out &&
	grep -q "^0: SLURM_JOB_PARTITION=" env.out &&
	grep -q "^0: SLURM_CLUSTER_NAME=test$" env.out &&
	grep -Eq "^0: SLURM_JOB_CPUS_PER_NODE=[0-9]" env.out &&
	grep -Eq "^1: SLURM_CPUS_ON_NODE=[0-9]+$" env.out &&
	grep -Eq "^2: SLURM_TASK_PID=[0-9]+$" env.out
'

test_expect_success 'input variables: SLURM_KILL_BAD_EXIT, SLURM_STDOUTMODE' '
	SLURM_STDOUTMODE="env-%t.txt" srun -n2 echo hi &&
	test -s env-0.txt && test -s env-1.txt &&
	SLURM_KILL_BAD_EXIT=1 test_expect_code 143 srun -n2 sh -c "[ \$SLURM_PROCID = 1 ] && exit 1; exec sleep 60" 2>err &&
	grep -q "_step_signal: Terminating" err
'

test_expect_success 'bad -K and --cpu-bind values fail as Slurm' '
	test_expect_code 1 srun --kill-on-bad-exit=x true 2>err &&
	echo "srun: error: Invalid numeric value \"x\" for --kill-on-bad-exit." >expect &&
	test_cmp expect err &&
	test_expect_code 1 srun --cpu-bind=bogus true 2>err &&
	grep -q "^srun: error: unrecognized --cpu-bind argument \"bogus\"$" err &&
	srun --cpu-bind=cores --mem-bind=local --exact --overlap true
'

test_expect_success '--task-prolog exports variables, --task-epilog runs after the task' '
	cat >prolog.sh <<-\EOF &&
	#!/bin/sh
	echo "export FROM_PROLOG=yes"
	echo "print hello from prolog"
	EOF
	cat >epilog.sh <<-EOF &&
	#!/bin/sh
	echo "\$SLURM_PROCID" >>"$CL/work/epilog.out"
	EOF
	chmod +x prolog.sh epilog.sh &&
	test_expect_code 4 srun -n2 --task-prolog="$PWD/prolog.sh" --task-epilog="$PWD/epilog.sh" \
		sh -c "echo \$FROM_PROLOG; exit 4" >out 2>/dev/null &&
	sort out >got && printf "hello from prolog\nhello from prolog\nyes\nyes\n" >expect &&
	test_cmp expect got &&
	wait_for 10 sh -c "test \$(wc -l <\"$CL/work/epilog.out\") -ge 2" &&
	sort "$CL/work/epilog.out" >got && printf "0\n1\n" >expect && test_cmp expect got
'

test_expect_success 'srun'"'"'s resource limits reach the tasks (PropagateResourceLimits)' '
	(ulimit -S -n 123 && ulimit -S -c 0 && srun sh -c "ulimit -n; ulimit -c" >out) &&
	printf "123\n0\n" >expect && test_cmp expect out &&
	srun env >env2.out && ! grep -q "^SLURM_RLIMIT_" env2.out
'

# Task output in whole lines (issue 18): each task writes half a line,
# waits, and ends it; before, srun printed "part-0 part-1 part-3 part-2 end-1".
test_expect_success 'each task'"'"'s lines reach srun whole, stdout and stderr' '
	srun -N2 -n4 bash -c "printf \"part-\$SLURM_PROCID \"; printf \"err-\$SLURM_PROCID \" >&2; sleep 1;
		printf \"end-\$SLURM_PROCID\\n\"; printf \"fin-\$SLURM_PROCID\\n\" >&2" >out 2>err &&
	sort out >got &&
	printf "part-0 end-0\npart-1 end-1\npart-2 end-2\npart-3 end-3\n" >expect &&
	test_cmp expect got &&
	sort err >got &&
	printf "err-0 fin-0\nerr-1 fin-1\nerr-2 fin-2\nerr-3 fin-3\n" >expect &&
	test_cmp expect got
'

test_expect_success '--label labels whole lines' '
	srun -N2 -n4 -l bash -c "printf \"part-\$SLURM_PROCID \"; sleep 1; printf \"end-\$SLURM_PROCID\\n\"" >out &&
	sort out >got &&
	printf "0: part-0 end-0\n1: part-1 end-1\n2: part-2 end-2\n3: part-3 end-3\n" >expect &&
	test_cmp expect got
'

# 200000 bytes in 50 writes, all tasks at once: more than the node reads
# from a task at a time (64 KiB)
test_expect_success 'a line longer than one read stays whole' '
	srun -N2 -n4 sh -c "sleep 0.5; for i in \$(seq 50); do
		yes \$SLURM_PROCID | head -c 8000 | tr -d \"\\n\"; sleep 0.02; done; echo" >long &&
	test $(wc -l <long) = 4 &&
	for r in 0 1 2 3; do test $(grep -cx "$r$r*" long) = 1 || return 1; done &&
	awk "{ print length }" long | sort -u >len &&
	echo 200000 >expect && test_cmp expect len
'

test_expect_success 'a line longer than the node keeps whole loses nothing' '
	srun sh -c "yes x | head -c 3000000 | tr -d \"\\n\"; echo" >huge &&
	test $(wc -l <huge) = 1 && test $(grep -cx "x*" huge) = 1 &&
	test $(wc -c <huge) = 1500001 &&
	srun -l sh -c "yes x | head -c 3000000 | tr -d \"\\n\"; echo" >huge &&
	test $(grep -vc "^0: x*\$" huge) = 0 &&
	sed "s/^0: //" huge | tr -d "\\n" | wc -c >got &&
	echo 1500000 >expect && test_cmp expect got
'

test_expect_success 'a last line without newline is not lost' '
	srun sh -c "printf \"a\\nno-newline\"; printf \"e\\nerr-end\" >&2" >out 2>err &&
	printf "a\nno-newline" >expect && test_cmp expect out &&
	printf "e\nerr-end" >expect && test_cmp expect err &&
	srun -n2 -l sh -c "printf last-\$SLURM_PROCID" >out &&
	sort out >got &&
	printf "0: last-0\n1: last-1\n" >expect && test_cmp expect got
'

test_expect_success '-u passes a partial line at once (a prompt before the task ends)' '
	{ srun -u sh -c "printf \"prompt> \"; exec sleep 60" >uout 2>&1 & } &&
	pid=$! &&
	wait_for 30 grep -q "prompt> " uout &&
	kill $pid &&
	{ wait $pid || :; } &&
	grep -q "^prompt> " uout &&
	wait_for 30 sh -c "test -z \"\$(squeue -h)\""
'

test_expect_success 'the batch step'"'"'s output file gets its tasks'"'"' lines whole' '
	cat >lines.sh <<-\EOF &&
	#!/bin/sh
	srun bash -c "printf \"part-\$SLURM_PROCID \"; sleep 1; printf \"end-\$SLURM_PROCID\\n\""
	EOF
	id=$(sbatch --parsable -N2 -n4 -o lines-%j.out lines.sh) &&
	wait_job_state $id COMPLETED &&
	sort lines-$id.out >got &&
	printf "part-0 end-0\npart-1 end-1\npart-2 end-2\npart-3 end-3\n" >expect &&
	test_cmp expect got
'

# The host's CPUs 0 and 1 (both needed; CI machines may have one).
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ] &&
	taskset -p $$ 2>/dev/null | grep -Eq "mask: *(0x)?[0-9a-f]*[37bf]$" &&
	test_set_prereq TWOCPUS

test_expect_success TWOCPUS '--cpu-bind binds each task (map_cpu, mask_cpu, cores, verbose)' '
	srun -n2 -l --cpu-bind=map_cpu:1,0 sh -c "grep Cpus_allowed_list /proc/self/status" | sort >out &&
	printf "0: Cpus_allowed_list:\t1\n1: Cpus_allowed_list:\t0\n" >expect && test_cmp expect out &&
	srun --cpu-bind=mask_cpu:0x2 sh -c "grep Cpus_allowed_list /proc/self/status" >out &&
	printf "Cpus_allowed_list:\t1\n" >expect && test_cmp expect out &&
	srun -N1 -n2 -l --cpu-bind=cores sh -c "grep Cpus_allowed_list /proc/self/status" | sort >out &&
	printf "0: Cpus_allowed_list:\t0\n1: Cpus_allowed_list:\t1\n" >expect && test_cmp expect out &&
	srun --cpu-bind=verbose,map_cpu:1 true 2>err &&
	grep -Eq "^cpu-bind=MAP - comp001, task  0  0 \[[0-9]+\]: mask 0x2 set$" err &&
	srun --cpu-bind=none sh -c "grep Cpus_allowed_list /proc/self/status" >out &&
	grep -q "0-1" out
'

test_done
