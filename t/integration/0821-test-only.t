#!/bin/bash
test_description='sbatch/srun --test-only: the backfill plan'"'"'s start, CPUs, nodes and partition, or the refusal, as Slurm 22.05 prints them; nothing is submitted; salloc has no such option'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

iso() { date -d "@$1" +%Y-%m-%dT%H:%M:%S; }

# The line as Slurm prints it, with the time replaced (checked apart).
norm() { sed -E "s/at [0-9-]+T[0-9:]+ /at TIME /" "$@"; }

test_expect_success 'an idle cluster: start now, on stderr, no job made' '
	t0=$(date +%s) &&
	sbatch --test-only -N2 -n4 --wrap=true >out 2>err &&
	test_must_be_empty out &&
	echo "sbatch: Job 1 to start at TIME using 4 processors on nodes comp[001-002] in partition defq" >expect &&
	norm err >got && test_cmp expect got &&
	when=$(sed -E "s/.*at ([^ ]+) using.*/\1/" err) &&
	t=$(date -d "$when" +%s) && test $t -ge $t0 && test $t -le $((t0 + 5)) &&
	test -z "$(squeue -h -t all)"
'

test_expect_success 'srun --test-only: the same, as srun; -Q keeps it quiet' '
	srun --test-only -n3 true 2>err &&
	echo "srun: Job 2 to start at TIME using 3 processors on nodes comp001 in partition defq" >expect &&
	norm err >got && test_cmp expect got &&
	sbatch --test-only -Q --wrap=true >out 2>err &&
	test_must_be_empty out && test_must_be_empty err
'

test_expect_success 'a busy cluster: the start is when the running job'"'"'s time limit frees the nodes' '
	b=$(sbatch --parsable -N2 --exclusive -t 10 -o /dev/null --wrap="sleep 120") &&
	wait_job_state $b RUNNING &&
	st=$(date -d "$(job_field $b StartTime)" +%s) &&
	sbatch --test-only -p short -N2 -t 5 --wrap=true 2>err &&
	echo "sbatch: Job $((b + 1)) to start at $(iso $((st + 600))) using 2 processors on nodes comp[001-002] in partition short" >expect &&
	test_cmp expect err &&
	test "$(squeue -h -t all -o %i)" = "$b"
'

test_expect_success 'a pending higher-priority job reserves first: the probe plans after it' '
	p=$(sbatch --parsable -N2 --exclusive -t 10 -o /dev/null --wrap=true) &&
	wait_for 10 test_reason $p Resources &&
	st=$(date -d "$(job_field $b StartTime)" +%s) &&
	sbatch --test-only -N2 --exclusive -t 5 --wrap=true 2>err &&
	# the reservation ends on the bf_resolution grid (60 s), as Slurm
	grep -q "to start at $(iso $(( (st + 1200) / 60 * 60 ))) using 16 processors" err &&
	scancel $b $p
'

test_expect_success 'refusals: allocation failure and exit 1; the partition line first' '
	test_expect_code 1 sbatch --test-only -N3 -p short --wrap=true 2>err &&
	echo "allocation failure: Requested node configuration is not available" >expect &&
	test_cmp expect err &&
	test_expect_code 1 sbatch --test-only --tmp=10 --wrap=true 2>err &&
	test_cmp expect err &&
	test_expect_code 1 srun --test-only --mincpus=9 true 2>err &&
	test_cmp expect err &&
	test_expect_code 1 sbatch --test-only -Q -p nosuch --wrap=true 2>err &&
	cat >expect <<-\EOF &&
	sbatch: error: invalid partition specified: nosuch
	allocation failure: Invalid partition name specified
	EOF
	test_cmp expect err &&
	test_expect_code 1 sbatch --test-only --deadline=now-5 --wrap=true 2>err &&
	echo "allocation failure: Requested time limit is invalid (missing or exceeds some limit)" >expect &&
	test_cmp expect err
'

test_expect_success 'a --begin in the future: planned from then' '
	sbatch --test-only --begin=now+1hour --wrap=true 2>err &&
	when=$(sed -E "s/.*at ([^ ]+) using.*/\1/" err) &&
	t=$(date -d "$when" +%s) && now=$(date +%s) &&
	test $t -ge $((now + 3590)) && test $t -le $((now + 3610))
'

test_expect_success 'salloc --test-only: unrecognized, as in Slurm 22.05' '
	test_expect_code 255 salloc --test-only true 2>err &&
	cat >expect <<-\EOF &&
	salloc: unrecognized option '"'"'--test-only'"'"'
	Try "salloc --help" for more information
	EOF
	test_cmp expect err
'

test_done
