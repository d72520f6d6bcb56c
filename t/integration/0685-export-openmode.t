#!/bin/bash
test_description='sbatch --export forms (ALL,K=V | NONE | K), SBATCH_EXPORT, and --open-mode=append|truncate'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 1
'

test_expect_success '--open-mode=append keeps what earlier jobs wrote; the default truncates' '
	a=$(sbatch --parsable --open-mode=append -o app.out --wrap="echo run1") &&
	wait_job_state $a COMPLETED 30 &&
	b=$(sbatch --parsable --open-mode=append -o app.out --wrap="echo run2") &&
	wait_job_state $b COMPLETED 30 &&
	printf "run1\nrun2\n" >expect && test_cmp expect app.out &&
	c=$(sbatch --parsable --open-mode=truncate -o app.out --wrap="echo run3") &&
	wait_job_state $c COMPLETED 30 &&
	echo run3 >expect && test_cmp expect app.out &&
	d=$(SBATCH_OPEN_MODE=append sbatch --parsable -o app.out --wrap="echo run4") &&
	wait_job_state $d COMPLETED 30 &&
	printf "run3\nrun4\n" >expect && test_cmp expect app.out
'

# What Slurm 22.05 printed for the same jobs with FOO=bar in the caller's
# environment (realslurm).
test_expect_success '--export forms as Slurm 22.05 runs them' '
	export FOO=bar &&
	e1=$(sbatch --parsable --export=NONE -o e1.out --wrap="echo FOO=\$FOO") &&
	e2=$(sbatch --parsable --export=FOO,BAZ=1 -o e2.out --wrap="echo FOO=\$FOO BAZ=\$BAZ") &&
	e3=$(SBATCH_EXPORT=NONE sbatch --parsable -o e3.out --wrap="echo FOO=\$FOO") &&
	e4=$(sbatch --parsable --export=ALL,FOO=over -o e4.out --wrap="echo FOO=\$FOO") &&
	e5=$(sbatch --parsable -o e5.out --wrap="echo FOO=\$FOO") &&
	for j in $e1 $e2 $e3 $e4 $e5; do wait_job_state $j COMPLETED 30 || return 1; done &&
	echo FOO= >expect && test_cmp expect e1.out &&
	echo "FOO=bar BAZ=1" >expect && test_cmp expect e2.out &&
	echo FOO= >expect && test_cmp expect e3.out &&
	echo FOO=over >expect && test_cmp expect e4.out &&
	echo FOO=bar >expect && test_cmp expect e5.out
'

test_done
