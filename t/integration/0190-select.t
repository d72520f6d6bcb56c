#!/bin/bash
test_description='select/cons_tres rules from slurm.conf: whole cores (CR_Core_Memory), partition OverSubscribe, --contiguous'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# 4 nodes of 8 CPUs: comp[001-002] 2 sockets x 2 cores x 2 threads
# (partition thr), comp003 in an OverSubscribe=FORCE:2 partition (fs),
# comp004 in an OverSubscribe=YES:2 one (ys). SelectTypeParameters is
# cluster.sh's CR_Core_Memory, DefMemPerCPU=1024. Features: comp[001-002]
# rack1, comp[003-004] rack2.
export NODE_ATTRS_1="SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=2 Feature=h100,ib,rack1"
export NODE_ATTRS_2="SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=2 Feature=h100,ib,rack1"
export NODE_ATTRS_3="Feature=h100,ib,rack2" NODE_ATTRS_4="Feature=h100,ib,rack2"

test_expect_success 'cluster with thread nodes and oversubscribed partitions' '
	cluster_write_conf 4 "SchedulerType=sched/backfill" &&
	{
		echo "PartitionName=thr Nodes=comp[001-002] State=UP"
		echo "PartitionName=fs Nodes=comp003 OverSubscribe=FORCE:2 State=UP"
		echo "PartitionName=ys Nodes=comp004 OverSubscribe=YES:2 State=UP"
		echo "PartitionName=yd Nodes=comp004 OverSubscribe=yes State=UP"
		echo "PartitionName=fd Nodes=comp004 OverSubscribe=Force State=UP"
	} >>"$CL/etc/slurm.conf" &&
	ctld_start &&
	for i in 1 2 3 4; do noded_start comp00$i; done &&
	wait_for 30 nodes_idle &&
	sinfo -h -o "%P %h" >out &&
	grep -qx "fs FORCE:2" out && grep -qx "ys YES:2" out &&
	grep -qx "yd YES:4" out && grep -qx "fd FORCE:4" out &&
	scontrol show partition fd | grep -q " OverSubscribe=FORCE:4$"
'

cancel_all() { scancel -u root; wait_for 20 sh -c "test -z \"\$(squeue -h -t PD,R,CG)\""; }

test_expect_success 'CR_Core: CPUs come in whole cores (ThreadsPerCore=2)' '
	a=$(sbatch --parsable -p thr -w comp001 -n1 -t 5 -o /dev/null --wrap="sleep 297") &&
	b=$(sbatch --parsable -p thr -w comp001 -n3 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING && wait_job_state $b RUNNING &&
	test "$(job_field $a NumCPUs)" = 2 &&
	test "$(job_field $b NumCPUs)" = 4 &&
	scontrol show job -d $a >out &&
	grep -qx "     Nodes=comp001 CPU_IDs=0-1 Mem=2048 GRES=" out &&
	scontrol show job -d $b >out &&
	grep -qx "     Nodes=comp001 CPU_IDs=2-5 Mem=4096 GRES=" out &&
	test "$(sinfo -h -p thr -n comp001 -N -o %C)" = "6/2/0/8" &&
	c=$(sbatch --parsable -p thr -w comp001 -N1 -n3 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $c Resources &&
	cancel_all
'

test_expect_success 'OverSubscribe=FORCE:2: two jobs share the CPUs, a third waits' '
	a=$(sbatch --parsable -p fs -n8 -t 5 -o /dev/null --wrap="sleep 297") &&
	b=$(sbatch --parsable -p fs -n8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING && wait_job_state $b RUNNING &&
	c=$(sbatch --parsable -p fs -n8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $c Resources &&
	scontrol show job -d $b >out &&
	grep -qx "     Nodes=comp003 CPU_IDs=0-7 Mem=8192 GRES=" out &&
	grep -q "^   OverSubscribe=YES " out &&
	test "$(squeue -h -j $a -o %h)" = YES &&
	test "$(sinfo -h -p fs -n comp003 -N -o %C)" = "8/0/0/8" &&
	scontrol show node comp003 >out &&
	grep -q "AllocMem=16384 " out &&
	grep -q "CPUAlloc=8 " out
'

test_expect_success 'shared allocations survive a controller restart' '
	ctld_kill9 && ctld_start &&
	wait_job_state $a RUNNING && wait_job_state $b RUNNING &&
	sleep 1 && test_job_state $c PENDING &&
	scancel $a &&
	wait_job_state $c RUNNING &&
	cancel_all
'

test_expect_success 'OverSubscribe=FORCE: memory and GPUs are not shared' '
	a=$(sbatch --parsable -p fs -n1 --mem=20000 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING &&
	b=$(sbatch --parsable -p fs -n1 --mem=20000 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $b Resources &&
	cancel_all &&
	a=$(sbatch --parsable -p fs -n1 --gres=gpu:8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING &&
	b=$(sbatch --parsable -p fs -n1 --gres=gpu:1 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $b Resources &&
	cancel_all
'

test_expect_success 'OverSubscribe=YES:2 shares only between jobs that ask (-s)' '
	a=$(sbatch --parsable -p ys -n8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING &&
	b=$(sbatch --parsable -p ys -s -n8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $b Resources &&
	test "$(squeue -h -j $a -o %h)" = OK &&
	test "$(squeue -h -j $b -o %h)" = YES &&
	scancel $a &&
	wait_job_state $b RUNNING &&
	c=$(sbatch --parsable -p ys --oversubscribe -n8 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $c RUNNING &&
	test "$(job_field $c NodeList)" = comp004 &&
	cancel_all
'

test_expect_success '--contiguous takes consecutive nodes, or waits' '
	x=$(sbatch --parsable -p defq -w comp002 --exclusive -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $x RUNNING &&
	j=$(sbatch --parsable -p defq -N2 --exclusive --contiguous -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $j RUNNING &&
	test "$(job_field $j NodeList)" = "comp[003-004]" &&
	test "$(job_field $j Contiguous)" = 1 &&
	scancel $j && wait_for 20 sh -c "test -z \"\$(squeue -h -j $j -t R,CG)\"" &&
	k=$(sbatch --parsable -p defq -N3 --exclusive --contiguous -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $k Resources &&
	scancel $x &&
	wait_job_state $k RUNNING &&
	cancel_all
'

test_expect_success '--constraint: matching OR and counts' '
	j=$(sbatch --parsable -N2 --exclusive -C "[rack1|rack2]" -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $j RUNNING &&
	test "$(job_field $j NodeList)" = "comp[001-002]" &&
	k=$(sbatch --parsable -N2 --exclusive -C "[rack1|rack2]" -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $k RUNNING &&
	test "$(job_field $k NodeList)" = "comp[003-004]" &&
	cancel_all &&
	j=$(sbatch --parsable --exclusive -C "[rack1*1&rack2*1]" -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $j RUNNING &&
	test "$(job_field $j NodeList)" = "comp[001,003]" &&
	cancel_all &&
	test_must_fail sbatch -C "rack1*3" --wrap=true 2>err &&
	grep -q "Requested node configuration is not available" err
'

test_expect_success USERS '--exclusive=user: a node is shared with the same user only' '
	d=$(mktemp -d) && chmod 777 $d &&
	a=$(runuser -u alice -- sbatch --parsable -p ys --exclusive=user -n1 -t 5 -D $d -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING &&
	test "$(squeue -h -j $a -o %h)" = USER &&
	test "$(job_field $a NumCPUs)" = 1 &&
	b=$(runuser -u bob -- sbatch --parsable -p ys -n1 -t 5 -D $d -o /dev/null --wrap="sleep 297") &&
	wait_for 10 test_reason $b Resources &&
	c=$(runuser -u alice -- sbatch --parsable -p ys -n1 -t 5 -D $d -o /dev/null --wrap="sleep 297") &&
	wait_job_state $c RUNNING &&
	scancel $a $c &&
	wait_job_state $b RUNNING &&
	scancel $b && cancel_all &&
	test_expect_code 255 sbatch --exclusive=nodes --wrap=true 2>err &&
	grep -qx "sbatch: error: Invalid --exclusive specification" err
'

test_expect_success 'SelectTypeParameters cannot change by reconfigure (as Slurm)' '
	sed -i "s/^SelectTypeParameters=.*/SelectTypeParameters=CR_CPU_Memory/" "$CL/etc/slurm.conf" &&
	test_must_fail scontrol reconfigure 2>err &&
	grep -q "SelectTypeParameters changed: needs a restart" err
'

test_expect_success 'CR_Core without _Memory: memory is only checked, not consumed' '
	cluster_stop && unset NODE_ATTRS_1 NODE_ATTRS_2 NODE_ATTRS_3 NODE_ATTRS_4 &&
	cluster_write_conf 1 "SchedulerType=sched/backfill" &&
	sed -i "s/^SelectTypeParameters=.*/SelectTypeParameters=CR_Core/" "$CL/etc/slurm.conf" &&
	ctld_start && noded_start comp001 && wait_for 30 nodes_idle &&
	a=$(sbatch --parsable -n1 --mem=20000 -t 5 -o /dev/null --wrap="sleep 297") &&
	b=$(sbatch --parsable -n1 --mem=20000 -t 5 -o /dev/null --wrap="sleep 297") &&
	wait_job_state $a RUNNING && wait_job_state $b RUNNING &&
	scontrol show job -d $b >out &&
	grep -qx "     Nodes=comp001 CPU_IDs=1 Mem=0 GRES=" out &&
	grep -q "MinMemoryNode=20000M" out &&
	scontrol show node comp001 >out &&
	grep -q "AllocMem=0 " out &&
	test_must_fail sbatch -n1 --mem=40000 --wrap=true 2>err &&
	printf "%s\n" "sbatch: error: Memory specification can not be satisfied" \
		"sbatch: error: Batch job submission failed: Requested node configuration is not available" >expect &&
	test_cmp expect err &&
	test_must_fail sbatch -c 9 --wrap=true 2>err &&
	grep -qx "sbatch: error: CPU count per node can not be satisfied" err &&
	cancel_all
'

test_done
