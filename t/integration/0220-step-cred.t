#!/bin/bash
test_description='step credentials are bound to their launch and used once per node'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

REQ=$SLUICE_BUILD/t/test_ctld_requests

test_expect_success 'cluster starts' '
	cluster_start 2
'

noded_log() { cat "$CL"/log/noded-$1.*; }

test_expect_success 'srun on one and on two nodes still works' '
	test "$(srun hostname -s | wc -l)" = 1 &&
	srun -N2 -l sh -c "echo \$SLURMD_NODENAME \$SLURM_STEP_NODELIST \$SLURM_NTASKS" | sort >out &&
	printf "0: comp001 comp[001-002] 2\n1: comp002 comp[001-002] 2\n" >expect &&
	test_cmp expect out
'

test_expect_success 'a step inside a job gets its own id, tasks and nodes from the node daemon' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -N2 -o step.out --wrap="srun -n3 sh -c \"echo \\\$SLURM_STEP_ID \\\$SLURM_NTASKS \\\$SLURM_STEP_NODELIST\" | sort -u") &&
	wait_job_state $id COMPLETED &&
	echo "0 3 comp[001-002]" >expect &&
	test_cmp expect step.out
'

test_expect_success 'start a job whose credentials the tests take' '
	go=$(mktemp -u /tmp/sluice-go.XXXXXX) &&
	id=$(sbatch --parsable -N2 -D /tmp -o /dev/null --wrap="while [ ! -e $go ]; do sleep 0.1; done") &&
	wait_job_state $id RUNNING &&
	echo $id >job.id
'

test_expect_success 'a credential does not run another command than it was issued for' '
	id=$(cat job.id) &&
	"$REQ" stepcred $id cred.a &&
	pwned=$(mktemp -u /tmp/sluice-pwned.XXXXXX) &&
	"$REQ" launch cred.a "touch $pwned" >out &&
	cat out &&
	grep -q "^2002 launch does not match its credential" out &&
	wait_for 10 sh -c "cat \"$CL\"/log/noded-comp001.* | grep -q \"step $id\.[0-9]* from .*: launch does not match its credential (command, environment or directory changed)\"" &&
	! test -e $pwned
'

test_expect_success 'the credential runs its own launch once; a second launch is refused' '
	"$REQ" launch cred.a >out && grep -q "^0 " out &&
	"$REQ" launch cred.a >out &&
	echo "4009 Job credential replayed" >expect && test_cmp expect out &&
	wait_for 10 sh -c "cat \"$CL\"/log/noded-comp001.* | grep -q \"Job credential replayed: credential already used on this node\""
'

test_expect_success 'a credential used before a node daemon restart stays used' '
	id=$(cat job.id) &&
	"$REQ" stepcred $id cred.b 1 &&
	"$REQ" launch cred.b >out && grep -q "^0 " out &&
	noded_kill comp002 && noded_start comp002 &&
	wait_for 10 sh -c "\"$REQ\" launch cred.b | grep -q \"^4009 Job credential replayed\\$\""
'

test_expect_success 'the job ends' '
	touch $go && wait_job_state $(cat job.id) COMPLETED && rm -f $go
'

test_done
