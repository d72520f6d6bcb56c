#!/bin/bash
test_description='sbatch: script sources, directives, options, patterns, errors'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
# the node daemons run as real daemons (not -D) here
NODED_DAEMON=1
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

test_expect_success 'script from stdin with #SBATCH directives' '
	cd "$CL/work" &&
	printf "#!/bin/sh\n#SBATCH -J fromstdin\n#SBATCH -o stdin-%%j-%%x.out\necho \$SLURM_JOB_NAME\n" |
		sbatch --parsable >id &&
	id=$(cat id) &&
	wait_job_state $id COMPLETED &&
	echo fromstdin >expect &&
	test_cmp expect stdin-$id-fromstdin.out
'

test_expect_success 'command line overrides directives; %u %N %% patterns' '
	cd "$CL/work" &&
	cat >job.sh <<-\EOF &&
	#!/bin/sh
	#SBATCH -J fromfile
	echo "name=$SLURM_JOB_NAME"
	echo "args=$*"
	EOF
	id=$(sbatch --parsable -J override -o "pat-%u-%N-%%.out" job.sh a b) &&
	wait_job_state $id COMPLETED &&
	f=$(ls pat-root-comp00*-%.out) &&
	printf "name=override\nargs=a b\n" >expect &&
	test_cmp expect "$f"
'

test_expect_success 'default output file is slurm-<id>.out in the submit dir' '
	cd "$CL/work" &&
	id=$(sbatch --parsable --wrap="echo default") &&
	wait_job_state $id COMPLETED &&
	echo default >expect &&
	test_cmp expect slurm-$id.out
'

test_expect_success '-e separates stderr; -D sets the working directory' '
	cd "$CL/work" && mkdir -p sub &&
	id=$(sbatch --parsable -D sub -o o.txt -e e.txt --wrap="pwd; echo oops >&2") &&
	wait_job_state $id COMPLETED &&
	echo "$CL/work/sub" >expect && test_cmp expect sub/o.txt &&
	echo oops >expect && test_cmp expect sub/e.txt
'

test_expect_success '-H holds the job until released' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	test_reason $id JobHeldUser &&
	test "$(job_field $id Priority)" = 0 &&
	scontrol release $id &&
	wait_job_state $id COMPLETED
'

test_expect_success '--begin in the future pends with BeginTime' '
	cd "$CL/work" &&
	id=$(sbatch --parsable --begin=now+3600 -o /dev/null --wrap=true) &&
	wait_for 5 test_reason $id BeginTime &&
	scancel $id
'

test_expect_success '--wait returns the job exit code' '
	cd "$CL/work" &&
	test_expect_code 7 sbatch --wait -o /dev/null --wrap="exit 7" >out &&
	grep -Eq "^Submitted batch job [0-9]+$" out
'

test_expect_success 'time limit above partition MaxTime pends (EnforcePartLimits=NO)' '
	id=$(sbatch --parsable -p short -t 2:00:00 -o /dev/null --wrap=true) &&
	wait_for 5 test_reason $id PartitionTimeLimit &&
	scancel $id
'

test_expect_success 'empty script is refused with Slurm text' '
	test_expect_code 1 sbatch </dev/null 2>err &&
	echo "sbatch: error: Batch script is empty!" >expect &&
	test_cmp expect err
'

test_expect_success 'unknown partition is refused with Slurm text' '
	test_expect_code 1 sbatch -p nosuch --wrap=true 2>err &&
	compat_stderr err_sbatch_-p_unknown.txt >expect &&
	test_cmp expect err
'

test_expect_success 'unknown option: getopt text, exit 255 as Slurm' '
	test_expect_code 255 sbatch --bogus --wrap=true 2>err &&
	printf "sbatch: unrecognized option %s\nTry \"sbatch --help\" for more information\n" "'"'"'--bogus'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'script without #! is refused' '
	printf "echo hi\n" >nobang.sh &&
	test_expect_code 1 sbatch nobang.sh 2>err &&
	grep -q "This does not look like a batch script" err
'

test_done
