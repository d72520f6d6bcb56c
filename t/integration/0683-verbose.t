#!/bin/bash
test_description='sbatch -v and srun -v list the options set, as Slurm 22.05 does (captured on realslurm)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

# Slurm 22.05 printed exactly these lines (then its plugin lines, which
# Sluice has none of) for the same command.
test_expect_success 'sbatch -v: the defined options, sorted, normalised values, on stderr' '
	cat >expect <<-\EOF &&
	sbatch: defined options
	sbatch: -------------------- --------------------
	sbatch: account             : root
	sbatch: chdir               : /tmp
	sbatch: comment             : hi
	sbatch: cpus-per-task       : 2
	sbatch: error               : /dev/null
	sbatch: exclusive           : exclusive
	sbatch: export              : ALL,A=1
	sbatch: hold                : set
	sbatch: job-name            : cli_v
	sbatch: mail-type           : END,FAIL
	sbatch: mem-per-cpu         : 100
	sbatch: nice                : 5
	sbatch: nodes               : 1-2
	sbatch: ntasks              : 4
	sbatch: open-mode           : a
	sbatch: output              : /dev/null
	sbatch: partition           : defq
	sbatch: requeue             : requeue
	sbatch: signal              : B:USR1@30
	sbatch: time                : 01:30:00
	sbatch: verbose             : 1
	sbatch: wckey               : wk
	sbatch: wrap                : true
	sbatch: -------------------- --------------------
	sbatch: end of defined options
	EOF
	sbatch -v -H -J cli_v -o /dev/null -t 90 -n 4 -c 2 -p defq -A root --export=ALL,A=1 \
		--signal=B:USR1@30 --open-mode=append -N 1-2 --comment=hi --nice=5 --requeue \
		--exclusive --mail-type=END,FAIL --wckey=wk --chdir=/tmp -e /dev/null \
		--mem-per-cpu=100 --wrap=true >out 2>err &&
	grep -q "^Submitted batch job [0-9]*$" out &&
	test_cmp expect err &&
	scancel $(awk "{print \$4}" out)
'

test_expect_success 'sbatch -vv: environment input listed too, memory and days as Slurm prints them' '
	SBATCH_TIMELIMIT=1-2 sbatch -vv -H --mem=1024 -o /dev/null --wrap=true >out 2>err &&
	grep -qx "sbatch: time                : 1-02:00:00" err &&
	grep -qx "sbatch: mem                 : 1G" err &&
	grep -qx "sbatch: verbose             : 2" err &&
	scancel $(awk "{print \$4}" out) &&
	sbatch -v -H --mem=1000 -o /dev/null --wrap=true >out 2>err &&
	grep -qx "sbatch: mem                 : 1000" err &&
	scancel $(awk "{print \$4}" out)
'

test_expect_success 'no -v, or -Q: no listing, stderr clean' '
	sbatch -H -o /dev/null --wrap=true >out 2>err &&
	test_must_be_empty err &&
	scancel $(awk "{print \$4}" out) &&
	sbatch -v -Q -H -o /dev/null --wrap=true >out 2>err &&
	test_must_be_empty err &&
	test_must_be_empty out
'

test_expect_success 'srun -v lists its options before running' '
	srun -v -J cli_v -n1 -t 5 true 2>err &&
	head -8 err >head &&
	cat >expect <<-\EOF &&
	srun: defined options
	srun: -------------------- --------------------
	srun: job-name            : cli_v
	srun: ntasks              : 1
	srun: time                : 00:05:00
	srun: verbose             : 1
	srun: -------------------- --------------------
	srun: end of defined options
	EOF
	test_cmp expect head
'

test_done
