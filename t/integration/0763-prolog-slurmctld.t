#!/bin/bash
test_description='PrologSlurmctld and EpilogSlurmctld run by the controller
without blocking it: the job is CONFIGURING while the prolog runs and is
launched when it succeeds; a failing or timed-out one requeues a batch job and
cancels an srun allocation; the epilog gets the exit code; a controller
restarted meanwhile runs the prolog again'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

PD=$(mktemp -d /tmp/sluice-pe.XXXXXX)
chmod 755 "$PD"

test_expect_success 'cluster starts with PrologSlurmctld and EpilogSlurmctld' '
	printf "#!/bin/sh\nenv >$PD/penv.\$SLURM_JOB_ID\ntest -e $PD/pfail && exit 2\ntest -e $PD/phold && sleep 3\ntest -e $PD/phang && sleep 60\nexit 0\n" >$PD/pctld &&
	printf "#!/bin/sh\nenv >$PD/eenv.\$SLURM_JOB_ID\n" >$PD/ectld &&
	chmod 755 $PD/pctld $PD/ectld &&
	cluster_start 1 "PrologSlurmctld=$PD/pctld" "EpilogSlurmctld=$PD/ectld" "PrologEpilogTimeout=4"
'

test_expect_success 'the job is CONFIGURING while the prolog runs, the controller answers, then it runs' '
	touch $PD/phold &&
	id=$(sbatch --parsable -o /dev/null -D /tmp --wrap="exit 3") &&
	wait_for 10 sh -c "squeue -h -j $id -t CF -o %T | grep -qx CONFIGURING" &&
	test "$(squeue -h -j $id -o %t)" = CF &&
	scontrol ping >/dev/null &&
	! job_launched $id &&
	rm -f $PD/phold &&
	wait_job_state $id FAILED 20 &&
	grep -qx "SLURM_SCRIPT_CONTEXT=prolog_slurmctld" $PD/penv.$id &&
	grep -qx "SLURM_JOB_ID=$id" $PD/penv.$id &&
	grep -qx "SLURM_JOB_NODELIST=comp001" $PD/penv.$id &&
	grep -qx "SLURM_JOB_USER=root" $PD/penv.$id &&
	grep -qx "SLURM_CLUSTER_NAME=test" $PD/penv.$id &&
	! grep -q "^PATH=" $PD/penv.$id &&
	wait_for 10 test -s $PD/eenv.$id &&
	grep -qx "SLURM_SCRIPT_CONTEXT=epilog_slurmctld" $PD/eenv.$id &&
	grep -qx "SLURM_JOB_EXIT_CODE2=3:0" $PD/eenv.$id
'

test_expect_success 'a failing PrologSlurmctld requeues a batch job (not launched, eligible later)' '
	touch $PD/pfail &&
	id=$(sbatch --parsable -o /dev/null -D /tmp --wrap=true) &&
	wait_for 20 sh -c "test \"\$(scontrol show job $id | tr \" \" \"\\n\" | sed -n s/^Restarts=//p)\" = 1" &&
	test "$(job_state $id)" = PENDING &&
	! job_launched $id &&
	grep -q "job $id: PrologSlurmctld failed: exit status 2" "$CL"/log/ctld.* &&
	scancel $id && wait_job_state $id CANCELLED
'

test_expect_success 'a failing PrologSlurmctld cancels an srun allocation' '
	test_expect_code 1 srun -t 1 true 2>err &&
	cat err && grep -q "has been revoked" err &&
	id=$(squeue -h -t all -o %i | sort -n | tail -1) &&
	test "$(job_state $id)" = CANCELLED &&
	rm -f $PD/pfail
'

test_expect_success 'a PrologSlurmctld past PrologEpilogTimeout is killed and the job requeued' '
	touch $PD/phang &&
	id=$(sbatch --parsable -o /dev/null -D /tmp --wrap=true) &&
	wait_for 20 sh -c "test \"\$(scontrol show job $id | tr \" \" \"\\n\" | sed -n s/^Restarts=//p)\" = 1" &&
	grep -q "job $id: PrologSlurmctld failed: timed out" "$CL"/log/ctld.* &&
	! pgrep -f "$PD/pctld" &&
	rm -f $PD/phang && scancel $id
'

test_expect_success 'a controller restarted while the prolog runs runs it again, then launches the job' '
	touch $PD/phold &&
	id=$(sbatch --parsable -o /dev/null -D /tmp --wrap=true) &&
	wait_for 10 sh -c "squeue -h -j $id -t CF -o %T | grep -qx CONFIGURING" &&
	ctld_kill9 && ctld_start &&
	grep -q "job $id: its PrologSlurmctld was cut short" "$CL"/log/ctld.* ||
		wait_for 20 grep -q "job $id: its PrologSlurmctld was cut short" "$CL"/log/ctld.* &&
	rm -f $PD/phold &&
	wait_job_state $id COMPLETED 30
'

rm -rf "$PD"
test_done
