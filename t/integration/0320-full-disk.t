#!/bin/bash
test_description='a full state filesystem: reads go on, changes are refused with a clear error, recovery without a restart'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

[ "$(id -u)" = 0 ] && test_set_prereq ROOT

# big_submit: a held job with a 32 KB script, so that the state DB grows fast.
big_submit() { sbatch --parsable -H -o /dev/null --wrap="$BIG"; }
BIG="true $(head -c 32000 /dev/zero | tr '\0' x)"

test_expect_success ROOT 'cluster starts with StateSaveLocation on a 1 MB tmpfs' '
	cluster_write_conf 1 &&
	mount -t tmpfs -o size=1m,mode=0700 tmpfs "$CL/state" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle
'
# (cluster_stop unmounts it)

test_expect_success ROOT 'a job runs, waiting for a flag' '
	run=$(sbatch --parsable -o "$CL/work/run.out" --wrap="while ! test -e $CL/work/go; do sleep 0.1; done; echo finished") &&
	wait_job_state $run RUNNING
'

test_expect_success ROOT 'fill the filesystem: a submission fails with the directory and the reason' '
	: >acked &&
	for i in 1 2 3; do big_submit >>acked || return 1; done &&
	dd if=/dev/zero of="$CL/state/fill" bs=4k 2>/dev/null;
	for i in $(seq 1 100); do
		big_submit >>acked 2>err || break
	done &&
	grep "state save location .$CL/state.: No space left on device" err &&
	grep "Batch job submission failed: No space left on device" err
'

test_expect_success ROOT 'while full: changes are refused, logged once, reads work' '
	for i in 1 2 3; do
		test_must_fail sbatch -H -o /dev/null --wrap=true 2>err2 &&
		grep -q "state save location .$CL/state.: No space left on device" err2 || return 1
	done &&
	test_must_fail scancel $(head -1 acked) 2>err3 &&
	grep -q "No space left on device" err3 &&
	test "$(grep -c "refusing state changes" "$CL/log/ctld.stderr")" = 1 &&
	squeue -h -o %i >q && test -s q &&
	sinfo -h -o %D >/dev/null &&
	test "$(job_state $(head -1 acked))" = PENDING &&
	scontrol ping
'

test_expect_success ROOT 'while full: the running job finishes' '
	touch "$CL/work/go" &&
	wait_for 20 grep -q finished "$CL/work/run.out"
'

test_expect_success ROOT 'space returns: submissions work again without a restart, the job end is recorded' '
	rm -f "$CL/state/fill" &&
	wait_for 20 big_submit >>acked &&
	grep -q "can be written again" "$CL/log/ctld.stderr" &&
	wait_job_state $run COMPLETED 40
'

test_expect_success ROOT 'no acknowledged job is lost, memory and DB agree (restart)' '
	squeue -h -t PD -o %i | sort >before &&
	sort acked >acked.s &&
	comm -23 acked.s before >missing &&
	test_must_be_empty missing &&
	ctld_kill9 &&
	ctld_start &&
	squeue -h -t PD -o %i | sort >after &&
	test_cmp before after &&
	test "$(job_state $run)" = COMPLETED
'

test_done
