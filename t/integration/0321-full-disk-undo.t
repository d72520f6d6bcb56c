#!/bin/bash
test_description='a full state filesystem: a submission reported as failed never runs and leaves no trace'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

[ "$(id -u)" = 0 ] && test_set_prereq ROOT

# ghost N: a runnable job named ghost-N (a 32 KB script, so that the state
# DB grows fast) that leaves $CL/work/ghost.N.ran when it runs.
BIG="true $(head -c 32000 /dev/zero | tr '\0' x)"
ghost() {
	sbatch --parsable -J "ghost-$1" -o /dev/null \
		--wrap="echo I-RAN >$CL/work/ghost.$1.ran; $BIG"
}

test_expect_success ROOT 'cluster starts with StateSaveLocation on a 1 MB tmpfs' '
	cluster_write_conf 1 &&
	mount -t tmpfs -o size=1m,mode=0700 tmpfs "$CL/state" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle
'
# (cluster_stop unmounts it)

test_expect_success ROOT 'fill the filesystem: runnable submissions until one is reported failed' '
	: >acked &&
	dd if=/dev/zero of="$CL/state/fill" bs=4k 2>/dev/null;
	failed= &&
	for i in $(seq 1 100); do
		if ghost $i >>acked 2>err; then continue; fi
		failed=$i && break
	done &&
	test -n "$failed" &&
	echo $failed >failed &&
	grep "Batch job submission failed: No space left on device" err
'

test_expect_success ROOT 'space returns: the failed submission never ran and is not a job' '
	failed=$(cat failed) &&
	rm -f "$CL/state/fill" &&
	wait_for 20 grep -q "can be written again" "$CL/log/ctld.stderr" &&
	last=$(ghost after) && echo $last >>acked &&
	for id in $(cat acked); do wait_job_state $id COMPLETED 60 || return 1; done &&
	test -e "$CL/work/ghost.after.ran" &&
	! test -e "$CL/work/ghost.$failed.ran" &&
	squeue -h -n "ghost-$failed" -o %i >q && test_must_be_empty q &&
	sacct -n -X -P --name="ghost-$failed" -o JobID >a && test_must_be_empty a
'

test_expect_success ROOT 'every acknowledged submission ran once, no job id is used twice' '
	for id in $(cat acked); do
		test "$(job_state $id)" = COMPLETED || return 1
	done &&
	sacct -n -X -P -o JobID >ids &&
	sort ids | uniq -d >dups &&
	test_must_be_empty dups &&
	test "$(wc -l <ids)" = "$(wc -l <acked)"
'

test_expect_success ROOT 'after a restart: still no trace of it' '
	failed=$(cat failed) &&
	ctld_kill9 &&
	ctld_start &&
	squeue -h -n "ghost-$failed" -o %i >q2 && test_must_be_empty q2 &&
	sacct -n -X -P --name="ghost-$failed" -o JobID >a2 && test_must_be_empty a2 &&
	! test -e "$CL/work/ghost.$failed.ran"
'

test_done
