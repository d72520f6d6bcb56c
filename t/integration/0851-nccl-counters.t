#!/bin/bash
test_description='NCCL transport check from the fabric counters (a fake sysfs
tree): a 2-node GPU job whose batch node'"'"'s active port stays still for the
window is recorded as Socket from the counters; once the port moves data it
is Fabric; NCCL lines in the output outweigh the counters; a node without an
active port gives no counter verdict'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

nccl_line() { scontrol show job "$1" | grep "NcclTransport=" | sed 's/^ *//'; }
has_nccl() { test "$(nccl_line "$1")" = "$2"; }

# A fake InfiniBand tree under $1: one active EDR port, counters at 0.
ib_tree() {
	local p="$1/class/infiniband/mlx5_0/ports/1"
	mkdir -p "$p/counters" &&
	echo "4: ACTIVE" >"$p/state" && echo "5: LinkUp" >"$p/phys_state" &&
	echo "100 Gb/sec (4X EDR)" >"$p/rate" && echo InfiniBand >"$p/link_layer" &&
	for c in port_rcv_data port_xmit_data port_rcv_packets port_xmit_packets; do
		echo 0 >"$p/counters/$c"; done
}
PORT1=sys1/class/infiniband/mlx5_0/ports/1

# A job that waits for the test to let it end; $1: what it prints first.
waiting_job() {
	printf "#!/bin/sh\n%s\n" "$1"
	echo 'while [ ! -e "$SLURM_SUBMIT_DIR/go-$SLURM_JOB_ID" ]; do sleep 0.2; done'
}

test_expect_success 'a 2-node GPU cluster, fake fabric ports, counters judged over 3 s' '
	ib_tree "$PWD/sys1" && ib_tree "$PWD/sys2" &&
	cluster_write_conf 2 &&
	echo "nccl interval=1 window=3 min_rate=1M" >"$CL/etc/health.conf" &&
	ctld_start &&
	SLUICE_SYSFS_ROOT="$PWD/sys1" noded_start comp001 &&
	SLUICE_SYSFS_ROOT="$PWD/sys2" noded_start comp002 &&
	wait_for 30 nodes_idle
'

test_expect_success 'still ports for the window: Socket from the counters' '
	waiting_job "echo training" >still.sh &&
	j=$(sbatch --parsable -N 2 --gres=gpu:8 -o /dev/null still.sh) &&
	echo $j >job_still &&
	wait_job_state $j RUNNING &&
	wait_for 20 has_nccl $j "NcclTransport=Socket NcclCheck=counters NcclNode=comp001" &&
	sluice why $j >out &&
	grep -q "^NCCL: its collectives use TCP sockets, not the fabric: the fabric ports of its batch node stayed nearly still.$" out &&
	grep -q "evidence (counters on comp001 at .*): fabric ports of comp001 moved 0 bytes in [0-9]* s" out
'

test_expect_success 'the port moves data: Fabric from the counters' '
	j=$(cat job_still) &&
	echo 2000000000 >$PORT1/counters/port_xmit_data &&
	wait_for 20 has_nccl $j "NcclTransport=Fabric NcclCheck=counters NcclNode=comp001" &&
	sluice why $j | grep -q "^NCCL: the fabric ports of its batch node carry traffic.$" &&
	touch "$PWD/go-$j" && wait_job_state $j COMPLETED
'

test_expect_success 'NCCL lines in the output outweigh still counters' '
	waiting_job "echo \"h:1:1 [0] NCCL INFO Using network IB\"" >ib.sh &&
	j=$(sbatch --parsable -N 2 --gres=gpu:1 -o "$PWD/ib-%j.out" ib.sh) &&
	wait_for 20 has_nccl $j "NcclTransport=IB NcclCheck=log NcclNode=comp001" &&
	sleep 4 &&
	has_nccl $j "NcclTransport=IB NcclCheck=log NcclNode=comp001" &&
	touch "$PWD/go-$j" && wait_job_state $j COMPLETED
'

test_expect_success 'no active port on the batch node: no counter verdict' '
	echo "1: DOWN" >$PORT1/state &&
	waiting_job "echo training" >down.sh &&
	j=$(sbatch --parsable -N 2 --gres=gpu:1 -o /dev/null down.sh) &&
	wait_job_state $j RUNNING &&
	sleep 5 &&
	test -z "$(nccl_line $j)" &&
	touch "$PWD/go-$j" && wait_job_state $j COMPLETED
'

test_done
