#!/bin/bash
test_description='authentication and authorization'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

test_expect_success 'a client signing with the wrong key is rejected' '
	mkdir -p bad && cp "$CL/etc/"*.conf bad/ &&
	head -c 32 /dev/urandom | od -An -tx1 | tr -d " \n" >bad/slurm.key &&
	chmod 600 bad/slurm.key &&
	! SLURM_CONF=$PWD/bad/slurm.conf sbatch -H --wrap=true 2>err &&
	test -s err &&
	test "$(squeue -h | wc -l)" = 0
'

test_expect_success 'garbage on the controller port does not harm it' '
	head -c 5000 /dev/urandom >junk &&
	{ exec 7<>/dev/tcp/127.0.0.1/$CTLD_PORT && cat junk >&7; exec 7>&-; } 2>/dev/null;
	printf "\377\377\377\377SL" >big &&
	{ exec 7<>/dev/tcp/127.0.0.1/$CTLD_PORT && cat big >&7; exec 7>&-; } 2>/dev/null;
	scontrol ping | grep -q "is UP"
'

test_expect_success USERS 'a user without the key submits through the local socket as herself' '
	id=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	test "$(squeue -h -j $id -o %u)" = alice
'

test_expect_success USERS 'a user cannot drain a node' '
	test_expect_code 1 runuser -u alice -- scontrol update nodename=comp001 state=drain reason=x 2>err &&
	grep -q "Access/permission denied" err &&
	test_node_state comp001 idle
'

test_expect_success USERS 'a user cannot release or cancel another user'"'"'s job' '
	id=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	test_must_fail runuser -u bob -- scontrol release $id 2>err &&
	test "$(job_state $id)" = PENDING &&
	test_expect_code 210 runuser -u bob -- scancel $id 2>/dev/null
'

test_expect_success USERS 'a batch job runs as the submitting user with her groups' '
	d=$(mktemp -d) && chmod 777 $d &&
	id=$(runuser -u alice -- sbatch --parsable -D $d -o id.out --wrap="id -u; id -g; id -G") &&
	wait_job_state $id COMPLETED &&
	{ id -u alice; id -g alice; id -G alice; } >expect &&
	test_cmp expect $d/id.out &&
	test "$(stat -c %U $d/id.out)" = alice
'

test_expect_success PYTHON 'a replayed signed submission is refused (auth/slurm nonce cache)' '
	replay_is_refused
'

test_expect_success PYTHON 'a submission captured before a controller restart is refused after it (auth/slurm: credentials from before the start)' '
	replay_after_restart_is_refused
'

test_expect_success 'daemons refuse a key file that group or others can read' '
	ctld_kill9 &&
	chmod 644 "$CL/etc/slurm.key" &&
	test_must_fail timeout 20 sluice ctld -D 2>err &&
	grep -q "slurm.key.*accessible by group or others (mode 0644).*chmod 600 $CL/etc/slurm.key" err &&
	test_must_fail timeout 20 sluice noded -D -N comp001 2>err &&
	grep -q "slurm.key.*chmod 600" err &&
	chmod 600 "$CL/etc/slurm.key" &&
	ctld_start &&
	scontrol ping | grep -q "is UP"
'

test_done
