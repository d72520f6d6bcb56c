#!/bin/bash
test_description='outputs and errors compared with captured Slurm 22.05'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 2
'

# compare_err FILE CMD...: stderr and exit status as in the compat file.
compare_err() {
	f=$1; shift
	"$@" >actual.out 2>actual.err; st=$?
	compat_stderr "$f" >expect.err &&
	test_cmp expect.err actual.err &&
	test "$st" = "$(compat_status "$f")"
}

test_expect_success 'sinfo --bogus' 'compare_err err_sinfo_bad_option.txt sinfo --bogus'
test_expect_success 'squeue --bogus' 'compare_err err_squeue_bad_option.txt squeue --bogus'
test_expect_success 'squeue -t BOGUS' 'compare_err err_squeue_-t_bad_state.txt squeue -t BOGUS'
test_expect_success 'squeue -j unknown' 'compare_err err_squeue_-j_unknown.txt squeue -j 999999'
test_expect_success 'scontrol show job unknown' 'compare_err err_scontrol_show_job_unknown.txt scontrol show job 999999'
test_expect_success 'scontrol frobnicate' 'compare_err err_scontrol_bad_command.txt scontrol frobnicate'
test_expect_success 'sbatch with no script' 'compare_err err_sbatch_no_script.txt sbatch </dev/null'

test_expect_success 'sinfo -p nosuch prints the header only' '
	sinfo -p nosuch >out && compat_stdout err_sinfo_-p_unknown.txt >expect && test_cmp expect out
'

test_expect_success 'squeue -p nosuch prints the header only' '
	squeue -p nosuch >out && compat_stdout err_squeue_-p_unknown.txt >expect && test_cmp expect out
'

test_expect_success 'sinfo -n unknown: rows with no nodes' '
	sinfo -n comp999 >out && compat_stdout err_sinfo_-n_unknown.txt >expect && test_cmp expect out
'

test_expect_success 'sinfo -o with a bad letter' '
	sinfo -o "%!" >out 2>err &&
	printf "%%!\n%%!\n" >expect && test_cmp expect out &&
	echo "Invalid node format specification: !" >expect && test_cmp expect err
'

test_expect_success 'scontrol show partition matches Slurm layout for the same config' '
	scontrol show partition short >out &&
	sed -n "/^PartitionName=short/,/^\$/p" "$SHARNESS_TEST_DIRECTORY/../compat/scontrol_show_partition.txt" |
		sed -e "s/comp\[001-016\]/comp[001-002]/" -e "s/PriorityJobFactor=10/PriorityJobFactor=1/" \
		    -e "s/TotalCPUs=1024 TotalNodes=16/TotalCPUs=16 TotalNodes=2/" \
		    -e "s/TRES=.*/TRES=cpu=16,mem=64G,node=2,billing=16,gres\/gpu=16,gres\/gpu:h100=16/" >expect &&
	test_cmp expect out
'

# Slurm 22.05's default for -s is the -O list "...,nodeaiot:.16 ,nodelist:0":
# one blank (the field's suffix) before NODELIST, in the header and rows.
test_expect_success 'sinfo -s: one blank before NODELIST, as the -O default' '
	sinfo -s >out &&
	head -1 out >head &&
	echo "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST" >expect &&
	test_cmp expect head &&
	sed -n 2p out | grep -Eq "^[^ ]+ +up +[^ ]+ +[0-9]+/[0-9]+/[0-9]+/[0-9]+ comp"
'

test_expect_success 'scontrol show hostnames / hostlist' '
	scontrol show hostnames "comp[001-003]" >out &&
	printf "comp001\ncomp002\ncomp003\n" >expect && test_cmp expect out &&
	scontrol show hostlist comp001,comp002,comp003,comp007 >out &&
	echo "comp[001-003,007]" >expect && test_cmp expect out
'

test_expect_success 'every command answers --help and -V' '
	for c in sbatch srun squeue sinfo scontrol scancel; do
		$c --help >/dev/null || return 1
		$c -V >v && grep -qx "slurm 22.05.8" v || return 1
	done
'

test_done
