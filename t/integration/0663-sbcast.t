#!/bin/bash
test_description='sbcast: copy a file to the nodes of a job'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2 &&
	chmod 777 "$CL/work"
'

# Both nodes run on this host and write the same DEST: the first copy
# is forced (without -f the node that comes second may find the first
# one's file, as Slurm's sbcast does with a shared /tmp).
test_expect_success 'sbcast copies a file, as the job'"'"'s user, with its mode' '
	cd "$CL/work" &&
	seq 1 100000 >src.txt && chmod 751 src.txt && chown alice src.txt &&
	cat >bc.sh <<-\EOF &&
	#!/bin/sh
	sbcast -f src.txt "$PWD/copy.txt"; echo rc=$?
	stat -c "%a %U %s" copy.txt
	cmp src.txt copy.txt && echo same
	sbcast src.txt "$PWD/copy.txt"; echo rc=$?
	sbcast -f -p src.txt "$PWD/copy.txt"; echo rc=$?
	[ "$(stat -c %Y src.txt)" = "$(stat -c %Y copy.txt)" ] && echo mtime kept
	sbcast src.txt /nonexistent/dir/x; echo rc=$?
	sbcast nosuch x; echo rc=$?
	sbcast src.txt; echo rc=$?
	EOF
	id=$(su alice -c "sbatch --parsable -N2 -o bc.out -e bc.err bc.sh") &&
	wait_job_state $id COMPLETED &&
	printf "rc=0\n751 alice 588895\nsame\nrc=17\nrc=0\nmtime kept\nrc=2\nrc=255\nrc=1\n" >expect &&
	test_cmp expect bc.out &&
	grep -Eq "^sbcast: error: REQUEST_FILE_BCAST\(comp00[12]\): File exists$" bc.err &&
	grep -q "^sbcast: error: REQUEST_FILE_BCAST(comp001): No such file or directory$" bc.err &&
	grep -q "^sbcast: error: REQUEST_FILE_BCAST(comp002): No such file or directory$" bc.err &&
	grep -q "^sbcast: error: Can'"'"'t open \`nosuch\`: No such file or directory$" bc.err &&
	grep -q "^Need two file names, have 1 names$" bc.err
'

test_expect_success 'sbcast needs a job' '
	(unset SLURM_JOB_ID; test_expect_code 1 sbcast src.txt /tmp/x 2>err) &&
	echo "sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use the --jobid option." >expect &&
	test_cmp expect err
'

test_expect_success 'a user cannot sbcast into another user'"'"'s job' '
	id=$(sbatch --parsable -N1 -o /dev/null --wrap="sleep 30") &&
	wait_job_state $id RUNNING &&
	test_must_fail su alice -c "sbcast --jobid=$id src.txt $CL/work/stolen" 2>err &&
	test ! -e stolen &&
	scancel $id
'

test_done
