#!/bin/bash
test_description='step records (acct_step) and the resource use gathered on the nodes'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v sqlite3 >/dev/null && test_set_prereq SQLITE3

BATCH=4294967291
EXTERN=4294967292

# step_col JOB STEP COLUMN: a column of the step's row in the state DB
# (read-only; the controller writes it in WAL mode).
step_col() {
	sqlite3 -readonly "$CL/state/sluice.db" \
		"SELECT $3 FROM acct_step WHERE job_id=$1 AND step_id=$2" 2>/dev/null
}
# step_ended JOB STEP: the row has its end
step_ended() { e=$(step_col "$1" "$2" end); test -n "$e" && test "$e" -gt 0; }
step_running() { test "$(step_col "$1" "$2" state)" = 1 && test "$(step_col "$1" "$2" end)" = 0; }
# col_is JOB STEP COLUMN VALUE
col_is() { test "$(step_col "$1" "$2" "$3")" = "$4"; }
# in_range VALUE LOW HIGH
in_range() { test -n "$1" && test "$1" -ge "$2" && test "$1" -le "$3"; }

test_expect_success SQLITE3 'cluster starts with jobacct_gather/linux and PrologFlags=Contain' '
	cluster_start 2 JobAcctGatherType=jobacct_gather/linux JobAcctGatherFrequency=task=1 \
		PrologFlags=Contain
'

test_expect_success SQLITE3 'a batch job that touches 60 MB shows MaxRSS of about 60 MB' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap="perl -e \"vec(\\\$x, (60<<20) - 1, 8) = 1; sleep 2\"") &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 10 step_ended $id $BATCH &&
	rss=$(step_col $id $BATCH max_rss_kb) &&
	echo "MaxRSS ${rss}K" &&
	in_range "$rss" 61440 80000 &&
	test "$(step_col $id $BATCH max_rss_node)" = comp001 &&
	test "$(step_col $id $BATCH state)" = 3 &&
	test "$(step_col $id $BATCH exit_code)" = 0 &&
	test "$(step_col $id $BATCH name)" = batch &&
	test "$(step_col $id $BATCH ntasks)" = 1 &&
	vm=$(step_col $id $BATCH max_vmsize_kb) && in_range "$vm" 61440 10000000 &&
	in_range "$(step_col $id $BATCH sys_cpu_us)" 1 10000000 &&
	step_col $id $BATCH tres_usage_in_max |
		grep -Eq "^energy=0,fs/disk=[0-9]+,mem=${rss}K,pages=[0-9]+,vmem=${vm}K$"
'

test_expect_success SQLITE3 'a short job still shows its memory (rusage at the end)' '
	id=$(sbatch --parsable -o /dev/null --wrap="perl -e \"vec(\\\$x, (40<<20) - 1, 8) = 1\"") &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 10 step_ended $id $BATCH &&
	in_range "$(step_col $id $BATCH max_rss_kb)" 40960 60000
'

test_expect_success SQLITE3 'an srun step on 2 nodes records both nodes and where the max was' '
	cat >two.sh <<-\EOF &&
	#!/bin/sh
	srun -N2 -n2 sh -c "if [ \$SLURM_PROCID = 1 ]; then perl -e \"vec(\\\$x, (50<<20) - 1, 8) = 1; sleep 1\"; else perl -e \"vec(\\\$x, (10<<20) - 1, 8) = 1; sleep 1\"; fi"
	EOF
	id=$(sbatch --parsable -N2 -o two.out two.sh) &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 10 step_ended $id 0 &&
	test "$(step_col $id 0 nodelist)" = "comp[001-002]" &&
	test "$(step_col $id 0 nnodes)" = 2 &&
	test "$(step_col $id 0 ntasks)" = 2 &&
	test "$(step_col $id 0 tasks_done)" = 2 &&
	test "$(step_col $id 0 state)" = 3 &&
	test "$(step_col $id 0 max_rss_node)" = comp002 &&
	test "$(step_col $id 0 max_rss_task)" = 1 &&
	in_range "$(step_col $id 0 max_rss_kb)" 51200 70000 &&
	ave=$(step_col $id 0 ave_rss_kb) && in_range "$ave" 30000 45000 &&
	test "$(step_col $id 0 alloc_tres)" = "cpu=2,mem=2G,node=2" &&
	echo "$id.0|sh|COMPLETED|0:0|2|comp[001-002]|comp002|1|cpu=2,mem=2G,node=2" >expect &&
	sacct -j $id.0 -P -n --format=JobID,JobName,State,ExitCode,NTasks,NodeList,MaxRSSNode,MaxRSSTask,AllocTRES >actual &&
	test_cmp expect actual &&
	rss=$(sacct -j $id.0 -P -n --format=MaxRSS) && echo "sacct MaxRSS $rss" &&
	in_range "${rss%K}" 51200 70000
'

test_expect_success SQLITE3 'the extern step spans the job on its nodes (PrologFlags=Contain)' '
	id=$(sbatch --parsable -N2 -o /dev/null --wrap="true") &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 10 step_ended $id $EXTERN &&
	test "$(step_col $id $EXTERN name)" = extern &&
	test "$(step_col $id $EXTERN nodelist)" = "comp[001-002]" &&
	test "$(step_col $id $EXTERN state)" = 3 &&
	test "$(step_col $id $EXTERN start)" = "$(step_col $id $BATCH start)"
'

test_expect_success SQLITE3 'a failing step and a step killed by a signal' '
	cat >fail.sh <<-\EOF &&
	#!/bin/sh
	srun sh -c "exit 3"
	srun sh -c "kill -9 \$\$"
	exit 2
	EOF
	id=$(sbatch --parsable -o fail.out fail.sh) &&
	wait_job_state $id FAILED 30 &&
	wait_for 10 step_ended $id 1 &&
	test "$(step_col $id 0 state)" = 5 &&
	test "$(step_col $id 0 exit_code)" = 768 &&
	test "$(step_col $id 0 name)" = sh &&
	test "$(step_col $id 1 state)" = 4 &&
	test "$(step_col $id 1 exit_code)" = 9 &&
	wait_for 10 step_ended $id $BATCH &&
	test "$(step_col $id $BATCH state)" = 5 &&
	test "$(step_col $id $BATCH exit_code)" = 512 &&
	cat >expect <<-EOF &&
	$id.batch|batch|FAILED|2:0
	$id.0|sh|FAILED|3:0
	$id.1|sh|CANCELLED|0:9
	EOF
	sacct -j $id.batch,$id.0,$id.1 -P -n --format=JobID,JobName,State,ExitCode >actual &&
	test_cmp expect actual
'

test_expect_success SQLITE3 'a cancelled job: its running step is CANCELLED' '
	id=$(sbatch --parsable -o /dev/null --wrap="srun sleep 100") &&
	wait_for 20 step_running $id 0 &&
	scancel $id &&
	wait_job_state $id CANCELLED 30 &&
	wait_for 20 step_ended $id 0 &&
	test "$(step_col $id 0 state)" = 4 &&
	wait_for 10 step_ended $id $BATCH &&
	wait_for 10 step_ended $id $EXTERN &&
	test "$(step_col $id $EXTERN state)" = 4 &&
	: the job end closes the batch step at once, its node report merges in later &&
	: and says the same: CANCELLED 0:15, as the Slurm 22.05 capture shows it &&
	wait_for 10 col_is $id $BATCH tasks_done 1 &&
	cat >expect <<-EOF &&
	$id.batch|CANCELLED|0:15
	$id.extern|CANCELLED|0:0
	EOF
	sacct -j $id.batch,$id.extern -P -n --format=JobID,State,ExitCode >actual &&
	test_cmp expect actual
'

# The step ends while the controller is down: its supervisor keeps its
# report (done=1 in its spool record) and delivers it once it is back.
step_done_on_node() { grep -q "^done=1" "$CL/spool/comp001/step$1.$2/state" 2>/dev/null; }
test_expect_success SQLITE3 'a step that ends while the controller is down is recorded' '
	id=$(sbatch --parsable -o /dev/null --wrap="srun sh -c \"sleep 2; exit 5\"") &&
	wait_for 20 step_running $id 0 &&
	ctld_kill9 &&
	wait_for 20 step_done_on_node $id 0 &&
	ctld_start &&
	wait_job_state $id FAILED 30 &&
	wait_for 30 col_is $id 0 tasks_done 1 &&
	test "$(step_col $id 0 state)" = 5 &&
	test "$(step_col $id 0 exit_code)" = 1280 &&
	test -n "$(step_col $id 0 user_cpu_us)"
'

test_expect_success SQLITE3 'srun making its own allocation: step 0 and no batch step' '
	id=$(srun -N2 sh -c "echo \$SLURM_JOB_ID" | sort -u) &&
	test -n "$id" &&
	wait_for 10 step_ended $id 0 &&
	test "$(step_col $id 0 state)" = 3 &&
	test "$(step_col $id 0 name)" = sh &&
	test "$(step_col $id 0 tasks_done)" = 2 &&
	test -z "$(step_col $id $BATCH state)" &&
	wait_for 10 step_ended $id $EXTERN
'

sup_pid() { sed -n "s/^pid=//p" "$CL/spool/comp001/job$1/state"; }

# The batch supervisor dies: noded kills its script (srun with it, so the
# step's tasks are killed: CANCELLED), and reports the job NODE_FAIL; the
# batch step, whose end nobody reports, and the extern step end with it.
test_expect_success SQLITE3 'a dead batch supervisor: the job ends NODE_FAIL, no step stays open' '
	id=$(sbatch --parsable -N2 -o /dev/null --wrap="srun -N2 sleep 1000") &&
	wait_for 20 step_running $id 0 &&
	sp=$(sup_pid $id) && test -n "$sp" &&
	kill -9 $sp &&
	wait_job_state $id NODE_FAIL 20 &&
	wait_for 20 step_ended $id 0 &&
	st=$(step_col $id 0 state) && { test "$st" = 4 || test "$st" = 7; } &&
	wait_for 10 step_ended $id $BATCH &&
	wait_for 10 step_ended $id $EXTERN &&
	test "$(step_col $id $BATCH state)" = 7 &&
	test "$(step_col $id $EXTERN state)" = 7
'

test_done
