#!/bin/bash
test_description='NCCL transport check from the job output: a 2-node GPU job
whose output has NCCL INFO lines naming NET/Socket is recorded as falling back
to sockets (scontrol show job NcclTransport=, sluice why, /metrics and its
counter), one naming NET/IB as using IB; the verdict survives a controller
restart; a job without GPUs on 2 nodes and without NCCL_DEBUG is not read;
NCCL_DEBUG in the environment makes a 1-node job read'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v curl >/dev/null && test_set_prereq CURL
trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

MPORT=$(pick_ports 1)
nccl_line() { scontrol show job "$1" | grep "NcclTransport=" | sed 's/^ *//'; }
has_nccl() { test "$(nccl_line "$1")" = "$2"; }
metrics() { curl -sf "http://127.0.0.1:$MPORT/metrics"; }

# A job that prints what NCCL prints (NCCL_DEBUG=INFO), then waits for
# the test to let it end: $1 the network name of its channel lines.
fake_nccl_job() {
	cat <<-EOF
	#!/bin/sh
	echo "step 0 loading"
	echo "\$(hostname):\$\$:\$\$ [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"
	echo "\$(hostname):\$\$:\$\$ [0] NCCL INFO Using network $1"
	echo "\$(hostname):\$\$:\$\$ [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/$1/0"
	while [ ! -e "$CL/work/go-\$SLURM_JOB_ID" ]; do sleep 0.2; done
	EOF
}

test_expect_success 'a 2-node cluster with 8 GPUs each, the NCCL check every second' '
	cluster_write_conf 2 "MetricsType=metrics/openmetrics" "MetricsPort=$MPORT" &&
	echo "nccl interval=1" >"$CL/etc/health.conf" &&
	ctld_start &&
	noded_start comp001 && noded_start comp002 &&
	wait_for 30 nodes_idle &&
	mkdir "$CL/work/alice" && chown alice "$CL/work/alice"
'

test_expect_success 'NET/Socket lines: NcclTransport=Socket from the log, on the batch node' '
	fake_nccl_job Socket >sock.sh &&
	j=$(runuser -u alice -- sbatch --parsable -N 2 --gres=gpu:1 -D "$CL/work/alice" -o "$CL/work/alice/s-%j.out" sock.sh) &&
	echo $j >job_sock &&
	wait_job_state $j RUNNING &&
	wait_for 20 has_nccl $j "NcclTransport=Socket NcclCheck=log NcclNode=comp001" &&
	cat "$CL"/log/ctld.* | grep -q "job $j: NCCL uses TCP sockets, not the fabric (log on comp001: NCCL INFO Using network Socket)"
'

test_expect_success 'the line is the last of the record; Slurm'"'"'s lines are unchanged' '
	j=$(cat job_sock) &&
	scontrol show job $j >rec &&
	tail -3 rec | head -1 | grep -q "^   NcclTransport=Socket NcclCheck=log NcclNode=comp001$" &&
	grep -q "^   Power=" rec &&
	scontrol show job -o $j | grep -q " NcclTransport=Socket NcclCheck=log NcclNode=comp001$"
'

test_expect_success 'sluice why says so, with the evidence' '
	j=$(cat job_sock) &&
	sluice why $j >out 2>err && test_must_be_empty err &&
	grep -q "^NCCL: its collectives use TCP sockets, not the fabric: NCCL said so in its output.$" out &&
	grep -q "^  evidence (log on comp001 at [0-9T:-]*): NCCL INFO Using network Socket$" out &&
	sluice why --json $j | grep -q "\"transport\": *\"Socket\""
'

test_expect_success CURL 'metrics: the running job'"'"'s transport and the fallback counter' '
	j=$(cat job_sock) &&
	metrics >m &&
	grep -qx "sluice_job_nccl_transport{job_id=\"$j\",user=\"alice\",transport=\"Socket\",source=\"log\",node=\"comp001\"} 1" m &&
	grep -qx "sluice_jobs_nccl_socket_fallback_total 1" m
'

test_expect_success 'the verdict survives a controller restart' '
	j=$(cat job_sock) &&
	ctld_kill9 && ctld_start &&
	has_nccl $j "NcclTransport=Socket NcclCheck=log NcclNode=comp001" &&
	touch "$CL/work/go-$j" &&
	wait_job_state $j COMPLETED &&
	has_nccl $j "NcclTransport=Socket NcclCheck=log NcclNode=comp001"
'

test_expect_success CURL 'an ended job leaves the gauge' '
	j=$(cat job_sock) &&
	metrics >m &&
	! grep -q "sluice_job_nccl_transport{job_id=\"$j\"" m
'

test_expect_success CURL 'NET/IB lines: NcclTransport=IB, no fallback counted' '
	fake_nccl_job IB >ib.sh &&
	j=$(sbatch --parsable -N 2 --gres=gpu:2 -D "$CL/work" -o "$CL/work/i-%j.out" ib.sh) &&
	wait_for 20 has_nccl $j "NcclTransport=IB NcclCheck=log NcclNode=comp001" &&
	metrics >m &&
	grep -q "sluice_job_nccl_transport{job_id=\"$j\",.*transport=\"IB\",source=\"log\"" m &&
	grep -qx "sluice_jobs_nccl_socket_fallback_total 0" m &&
	touch "$CL/work/go-$j" && wait_job_state $j COMPLETED
'

test_expect_success 'a job without GPUs on 2 nodes and without NCCL_DEBUG is not read' '
	fake_nccl_job Socket >plain.sh &&
	j=$(sbatch --parsable -N 2 -D "$CL/work" -o "$CL/work/p-%j.out" plain.sh) &&
	wait_job_state $j RUNNING &&
	wait_for 10 grep -q "NCCL INFO Using network Socket" "$CL/work/p-$j.out" &&
	sleep 2 &&
	test -z "$(nccl_line $j)" &&
	! scontrol show job $j | grep -q Nccl &&
	touch "$CL/work/go-$j" && wait_job_state $j COMPLETED
'

test_expect_success 'NCCL_DEBUG in the environment: a 1-node job is read, stderr too' '
	fake_nccl_job Socket | sed "s/^\(echo .*NCCL INFO.*\)\$/\1 >\&2/" >err.sh &&
	j=$(NCCL_DEBUG=INFO sbatch --parsable -N 1 -D "$CL/work" -o "$CL/work/e-%j.out" -e "$CL/work/e-%j.err" err.sh) &&
	wait_for 20 has_nccl $j "NcclTransport=Socket NcclCheck=log NcclNode=comp001" &&
	test -s "$CL/work/e-$j.err" && ! grep -q NCCL "$CL/work/e-$j.out" &&
	touch "$CL/work/go-$j" && wait_job_state $j COMPLETED
'

test_done
