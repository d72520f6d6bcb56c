#!/bin/bash
test_description='a cluster authenticated by MUNGE (its own munged and key)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# A private munged needs root (it must read a root-owned key) and the
# daemon itself; probe by starting one, which also proves it accepts our
# directory layout.
if [ "$(id -u)" = 0 ] && [ -x /usr/sbin/munged ]; then
	probe=$(mktemp -d /tmp/sluice-mprobe.XXXXXX)
	if munged_start "$probe" >/dev/null 2>&1; then
		test_set_prereq MUNGED
	fi
	[ -s "$probe/munged.pid" ] && kill "$(cat "$probe/munged.pid")" 2>/dev/null
	rm -rf "$probe"
fi
if ! test_have_prereq MUNGED; then
	skip_all='needs root and a working /usr/sbin/munged'
	test_done
fi

test_expect_success 'cluster starts and the nodes register over munge' '
	AUTH=munge cluster_start 2 &&
	grep -q "^AuthType=auth/munge$" "$SLURM_CONF" &&
	grep -q "^AuthInfo=socket=$CL/munge/munge.sock$" "$SLURM_CONF"
'

test_expect_success 'scontrol shows the munge configuration' '
	scontrol show config >conf &&
	grep -Eq "^AuthType += auth/munge$" conf &&
	grep -Eq "^AuthInfo += socket=$CL/munge/munge.sock$" conf
'

test_expect_success 'a batch job runs to completion' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o job.out --wrap="echo hello from \$SLURMD_NODENAME") &&
	squeue -h -t all -j $id -o %i >q && test "$(cat q)" = "$id" &&
	wait_job_state $id COMPLETED &&
	grep -Eq "^hello from comp00[12]$" job.out &&
	test "$(job_field $id ExitCode)" = 0:0
'

test_expect_success 'scontrol updates work for root' '
	scontrol update nodename=comp002 state=drain reason=munge-test &&
	wait_for 10 test_node_state comp002 drained &&
	scontrol update nodename=comp002 state=resume &&
	wait_for 10 test_node_state comp002 idle
'

test_expect_success 'srun launches a step on two nodes (launch credential by munge)' '
	cd "$CL/work" &&
	srun -N2 -l sh -c "echo \$SLURMD_NODENAME" >out 2>err &&
	sort out >actual &&
	printf "0: comp001\n1: comp002\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'srun -n4 over two nodes of one host (credential checked by both)' '
	srun -N2 -n4 sh -c "echo \$SLURM_PROCID" | sort >out &&
	printf "0\n1\n2\n3\n" >expect &&
	test_cmp expect out
'

test_expect_success 'srun steps inside a batch job' '
	cd "$CL/work" &&
	cat >steps.sh <<-\EOF &&
	#!/bin/sh
	#SBATCH -N 2
	srun -l sh -c "echo step \$SLURM_STEP_ID on \$SLURMD_NODENAME" | sort
	srun -N1 true
	EOF
	id=$(sbatch --parsable -o steps.out steps.sh) &&
	wait_job_state $id COMPLETED &&
	grep -q "^0: step 0 on comp001$" steps.out &&
	grep -q "^1: step 0 on comp002$" steps.out
'

test_expect_success USERS 'a user submits over munge as herself' '
	id=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	test "$(squeue -h -j $id -o %u)" = alice &&
	runuser -u alice -- scancel $id &&
	wait_job_state $id CANCELLED 10
'

test_expect_success USERS 'a user cannot cancel another user'"'"'s job' '
	id=$(runuser -u bob -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	test_expect_code 210 runuser -u alice -- scancel $id 2>err &&
	grep -q "Access/permission denied" err &&
	test "$(job_state $id)" = PENDING &&
	scancel $id
'

test_expect_success USERS 'a user'"'"'s batch job runs as her' '
	d=$(mktemp -d) && chmod 777 $d &&
	id=$(runuser -u alice -- sbatch --parsable -D $d -o id.out --wrap="id -u") &&
	wait_job_state $id COMPLETED &&
	id -u alice >expect &&
	test_cmp expect $d/id.out &&
	rm -rf $d
'

test_expect_success USERS 'a user'"'"'s srun runs as her' '
	d=$(mktemp -d) && chmod 777 $d && cd $d &&
	runuser -u alice -- srun -N2 id -un >out &&
	printf "alice\nalice\n" >expect &&
	test_cmp expect out &&
	cd "$SHARNESS_TRASH_DIRECTORY" && rm -rf $d
'

# Issue 19 under auth/munge: no cluster key, so no launch MAC; the node
# takes a launch only in a frame signed by the step's user (the signature
# covers the body, node index and layout included). The eavesdropper
# rewrites alice's comp001 launch into comp002's and, unable to sign it as
# alice, sends it unsigned to comp002 first: refused, and srun runs whole.
unshare -n true 2>/dev/null && test_set_prereq NETNS
node_port() { sed -n "s/^NodeName=$1 .*Port=\([0-9]*\).*/\1/p" "$CL/etc/slurm.conf"; }
test_expect_success USERS,PYTHON,NETNS 'a launch forged for comp002 from alice'"'"'s comp001 launch is refused' '
	p1=$(node_port comp001) && p2=$(node_port comp002) &&
	test -n "$p1" && test -n "$p2" &&
	pc=$(sed -n "s/^SlurmctldPort=//p" "$CL/etc/slurm.conf") && test -n "$pc" &&
	(cd /tmp && python3 "$SHARNESS_TEST_DIRECTORY/../launch_spy.py" --forge --relay $pc $p1 $p2 \
		"$CL/work/spy.out" -- runuser -u alice -- srun -N2 -l sh -c "echo out \$SLURMD_NODENAME") \
		>"$CL/work/srun.out" 2>"$CL/work/srun.err" &&
	sort "$CL/work/srun.out" >out &&
	printf "0: out comp001\n1: out comp002\n" >expect &&
	test_cmp expect out &&
	! grep -q "replayed" "$CL/work/srun.err" &&
	cat "$CL/work/spy.out" &&
	test $(wc -l <"$CL/work/spy.out") = 2 &&
	tail -1 "$CL/work/spy.out" | grep -qx closed &&
	cat "$CL"/log/noded-comp002.* | grep -q "launch not signed by the step.s user (auth/munge)"
'

ctld_log() { cat "$CL"/log/ctld.* 2>/dev/null; }
auth_failures() { ctld_log | grep -c "authentication failed"; }

test_expect_success 'a request signed by another munge key is rejected' '
	cd "$SHARNESS_TRASH_DIRECTORY" &&
	munged_start "$CL/munge-other" &&
	mkdir -p "$CL/etc-other" && cp "$CL/etc/"*.conf "$CL/etc-other/" &&
	sed -i "s|^AuthInfo=.*|AuthInfo=socket=$CL/munge-other/munge.sock|" "$CL/etc-other/slurm.conf" &&
	before=$(squeue -h | wc -l) &&
	test_must_fail env SLURM_CONF=$CL/etc-other/slurm.conf sbatch -H --wrap=true 2>err &&
	grep -q "Protocol authentication error" err &&
	test_must_fail env SLURM_CONF=$CL/etc-other/slurm.conf scontrol update nodename=comp001 state=drain reason=x 2>err &&
	grep -q "Protocol authentication error" err &&
	test "$(squeue -h | wc -l)" = "$before" &&
	test_node_state comp001 idle &&
	ctld_log | grep -q "authentication failed: Invalid credential"
'

test_expect_success 'the controller still signs its replies after a bad credential' '
	! ctld_log | grep -q "unable to sign" &&
	scontrol ping | grep -q "is UP" &&
	id=$(sbatch --parsable -H --wrap=true) && scancel $id
'

test_expect_success 'a node daemon with the wrong key cannot register' '
	noded_kill comp002 &&
	wait_for 10 test_node_state comp002 "idle*" &&
	n0=$(auth_failures) &&
	{ SLURM_CONF=$CL/etc-other/slurm.conf sluice noded -D -N comp002 >>"$CL/log/noded-other.stderr" 2>&1 & } &&
	echo $! >"$CL/noded-comp002.pid" && disown $! &&
	wait_for 10 eval "test \$(auth_failures) -gt $n0" &&
	test_node_state comp002 "idle*"
'

test_expect_success 'the node comes back with the right key' '
	noded_kill comp002 &&
	noded_start comp002 &&
	wait_for 20 test_node_state comp002 idle
'

test_expect_success PYTHON 'a replayed submission is refused (munged replay detection)' '
	replay_is_refused
'

test_expect_success PYTHON 'a submission captured before a controller restart is refused after it (auth/munge)' '
	replay_after_restart_is_refused
'

test_done
