#!/bin/bash
test_description='sacct: the records of completed, failed, cancelled and timed out jobs'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# sacct's view of one job field (-X -n -P)
acct() { sacct -X -n -P -j "$1" -o "$2"; }
test_acct() { [ "$(acct "$1" "$2")" = "$3" ]; }

test_expect_success 'cluster starts; a job that will time out is started first' '
	cluster_start 2 &&
	cd "$CL/work" &&
	to=$(sbatch --parsable -J toolong -t 1 -o /dev/null --wrap="sleep 300") &&
	echo $to >to.id
'

test_expect_success 'completed, failed and cancelled jobs are recorded with Slurm states and exit codes' '
	cd "$CL/work" &&
	ok=$(sbatch --parsable -J quick-ok -o /dev/null --wrap=true) &&
	fail=$(sbatch --parsable -J quick-fail -o /dev/null --wrap="exit 3") &&
	sig=$(sbatch --parsable -J killed -o /dev/null --wrap="kill -9 \$\$") &&
	can=$(sbatch --parsable -J to-cancel -o /dev/null --wrap="sleep 300") &&
	wait_job_state $ok COMPLETED && wait_job_state $fail FAILED && wait_job_state $sig FAILED &&
	wait_job_state $can RUNNING && scancel $can && wait_job_state $can CANCELLED &&
	sacct -X -n -P -j $ok,$fail,$sig,$can -o JobID,JobName,State,ExitCode >out &&
	cat >expect <<-EOF &&
	$ok|quick-ok|COMPLETED|0:0
	$fail|quick-fail|FAILED|3:0
	$sig|killed|FAILED|0:9
	$can|to-cancel|CANCELLED by 0|0:0
	EOF
	test_cmp expect out &&
	echo "$ok $fail $sig $can" >ids
'

test_expect_success 'the default view: Slurm columns, widths and a cut state' '
	cd "$CL/work" && read ok fail sig can <ids &&
	sacct -X -j $ok,$can >out &&
	cat >expect <<-EOF &&
	JobID           JobName  Partition    Account  AllocCPUS      State ExitCode 
	------------ ---------- ---------- ---------- ---------- ---------- -------- 
	$(printf "%-12s %10s %10s %10s %10s %10s %8s " $ok quick-ok defq root 1 COMPLETED 0:0)
	$(printf "%-12s %10s %10s %10s %10s %10s %8s " $can to-cancel defq root 1 CANCELLED+ 0:0)
	EOF
	test_cmp expect out
'

test_expect_success 'widths, truncation, -p, -P, --delimiter and -n' '
	cd "$CL/work" && read ok fail sig can <ids &&
	sacct -X -j $fail -o JobName%4,JobName%-12,JobID%-3 >out &&
	printf "%s\n" "JobN JobName      Job " "---- ------------ --- " "qui+ quick-fail   $(printf "%-3s" $fail) " >expect &&
	test_cmp expect out &&
	sacct -X -p -j $ok -o JobID,State >out &&
	printf "JobID|State|\n$ok|COMPLETED|\n" >expect && test_cmp expect out &&
	sacct -X -P -n --delimiter=:: -j $ok -o JobID,State,ExitCode >out &&
	echo "$ok::COMPLETED::0:0" >expect && test_cmp expect out
'

test_expect_success 'times, elapsed, nodes and TRES of a finished job' '
	cd "$CL/work" && read ok fail sig can <ids &&
	case "$(acct $can NodeList)" in comp00[12]) ;; *) false ;; esac &&
	test "$(acct $can AllocTRES)" = "billing=1,cpu=1,mem=1G,node=1" &&
	test "$(acct $can ReqMem)" = 1G &&
	test "$(acct $can AllocCPUS)" = 1 &&
	test "$(acct $can Timelimit)" = UNLIMITED &&
	test "$(acct $can User)" = root && test "$(acct $can UID)" = 0 &&
	start=$(acct $can Start) && end=$(acct $can End) &&
	case "$start" in 20[0-9][0-9]-*T*:*:*) ;; *) false ;; esac &&
	e=$(( $(date -d "$end" +%s) - $(date -d "$start" +%s) )) &&
	test "$(acct $can ElapsedRaw)" = $e &&
	test "$(acct $can Elapsed)" = "$(printf "00:00:%02d" $e)" &&
	test "$(acct $can CPUTimeRAW)" = $e
'

test_expect_success 'a held job: pending view and the default window leave it out' '
	cd "$CL/work" &&
	h=$(sbatch --parsable -H -J held -o /dev/null --wrap=true) &&
	sacct -n -P -j $h -o State,Start,End,Eligible,NodeList,Timelimit,Reason,AllocTRES >out &&
	echo "PENDING|Unknown|Unknown|Unknown|None assigned|UNLIMITED|JobHeldUser|" >expect &&
	test_cmp expect out &&
	! sacct -n -X -o JobID | grep -qx "$h *" &&
	scancel $h &&
	test "$(acct $h Start)" = None
'

test_expect_success 'records outlive the job (MinJobAge purges only the queue)' '
	cd "$CL/work" && read ok fail sig can <ids &&
	scontrol update jobid=$ok comment=x 2>/dev/null; : &&
	ctld_kill9 && ctld_start &&
	test "$(acct $ok State)" = COMPLETED
'

test_expect_success USERS 'a user sees their own jobs; -a and root see everyone' '
	cd "$CL/work" &&
	a=$(runuser -u alice -- sbatch --parsable -D /tmp -o /dev/null --wrap=true) &&
	b=$(runuser -u bob -- sbatch --parsable -D /tmp -o /dev/null --wrap=true) &&
	wait_job_state $a COMPLETED && wait_job_state $b COMPLETED &&
	runuser -u alice -- sacct -X -n -P -o JobID,User >out &&
	echo "$a|alice" >expect && test_cmp expect out &&
	runuser -u alice -- sacct -a -X -n -P -o User >out &&
	grep -qx bob out && grep -qx root out &&
	runuser -u alice -- sacct -u bob -X -n -P -o JobID >out &&
	echo $b >expect && test_cmp expect out &&
	sacct -X -n -P -o User >out && grep -qx alice out && grep -qx bob out
'

test_expect_success 'filters: --name, -s, -S/-E, -N, -r' '
	cd "$CL/work" && read ok fail sig can <ids &&
	test "$(sacct -X -n -P --name=quick-fail -o JobID)" = $fail &&
	sacct -X -n -P -s F -S 00:00 -E now -o JobID >out &&
	printf "%s\n" $fail $sig >expect && test_cmp expect out &&
	test -z "$(sacct -X -n -P -s CD -S 2000-01-01 -E 2000-01-02 -o JobID)" &&
	test -z "$(sacct -X -n -P -r short -o JobID)" &&
	sacct -X -n -P -N comp001,comp002 -j $ok -o JobID >out && echo $ok >expect && test_cmp expect out
'

test_expect_success 'errors as Slurm words them' '
	test_expect_code 1 sacct -o Foo 2>err &&
	echo "sacct: error: Invalid field requested: \"Foo\"" >expect && test_cmp expect err &&
	test_expect_code 1 sacct -j abc 2>err &&
	echo "sacct: fatal: Bad job/step specified: abc" >expect && test_cmp expect err &&
	test_expect_code 1 sacct -s foo 2>err &&
	echo "sacct: fatal: unrecognized job state value '"'"'foo'"'"'" >expect && test_cmp expect err &&
	test_expect_code 1 sacct -u nosuchuser 2>err &&
	echo "sacct: error: Invalid user id: nosuchuser" >expect && test_cmp expect err &&
	sacct -j 999999 >out 2>err && test_must_be_empty err &&
	test $(wc -l <out) = 2
'

test_expect_success '--helpformat lists the fields four to a line; -b and --json' '
	cd "$CL/work" && read ok fail sig can <ids &&
	sacct -e >out && test $(wc -l <out) = 28 &&
	head -1 out >first &&
	echo "Account             AdminComment        AllocCPUS           AllocNodes         " >expect &&
	test_cmp expect first &&
	sacct -b -X -n -j $fail >out &&
	printf "%-12s %10s %8s \n" $fail FAILED 3:0 >expect && test_cmp expect out &&
	sacct --json -j $fail >json &&
	python3 -c "import json,sys; d=json.load(open(\"json\")); j=d[\"jobs\"][0]; assert j[\"job_id\"]==$fail and j[\"state\"][\"current\"]==\"FAILED\" and j[\"exit_code\"][\"return_code\"]==3 and d[\"meta\"][\"Slurm\"][\"release\"]==\"22.05.8\", j"
'

test_expect_success 'the timed out job ends TIMEOUT in its record' '
	to=$(cat "$CL/work/to.id") &&
	wait_for 100 test_acct $to State TIMEOUT &&
	test "$(acct $to Timelimit)" = 00:01:00 &&
	test "$(acct $to TimelimitRaw)" = 1
'

test_done
