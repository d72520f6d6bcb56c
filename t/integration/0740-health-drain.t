#!/bin/bash
test_description='built-in health checks (health.conf): an uncorrectable ECC error
injected through the fake NVML drains the node with a reason naming the GPU
and the count, set by SlurmUser; clearing it resumes the node; a drain an
admin set is never lifted by passing checks; the controller metric
sluice_health_check_failing names the node and the check'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SRC=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
command -v cc >/dev/null && test_set_prereq CC
command -v curl >/dev/null && test_set_prereq CURL
trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

MPORT=$(pick_ports 1)
reason() { scontrol show node "$1" | sed -n 's/^ *Reason=//p'; }
noded_said() { cat "$CL/log/noded-$1".* 2>/dev/null | grep -q "$2"; }
# failing NODE CHECK: the controller has the node's check failing (metric)
failing() { curl -sf "http://127.0.0.1:$MPORT/metrics" | grep -qx "sluice_health_check_failing{node=\"$1\",check=\"$2\"} 1"; }
passing() { ! curl -sf "http://127.0.0.1:$MPORT/metrics" | grep -q "sluice_health_check_failing{node=\"$1\""; }

test_expect_success CC 'a cluster whose nodes check 8 fake GPUs every second' '
	cc -shared -fPIC -o "$PWD/libfake-nvml.so" "$SRC/t/unit/fake_nvml.c" &&
	cluster_write_conf 2 "HealthCheckInterval=1" "MetricsType=metrics/openmetrics" "MetricsPort=$MPORT" &&
	printf "%s\n" "# GPUs as gres.conf says (8 h100)" "gpu max_temp=90" >"$CL/etc/health.conf" &&
	ctld_start &&
	for n in comp001 comp002; do
		: >"$CL/nvml-$n" &&
		SLUICE_NVML_LIB="$PWD/libfake-nvml.so" FAKE_NVML_COUNT=8 FAKE_NVML_SET_FILE="$CL/nvml-$n" \
			noded_start $n || return 1
	done &&
	wait_for 30 nodes_idle &&
	noded_said comp001 "health: 1 check(s) from $CL/etc/health.conf"
'

test_expect_success CC 'an uncorrectable ECC error on gpu3 drains the node, reason set by SlurmUser' '
	echo "3.dbe=2" >"$CL/nvml-comp001" &&
	wait_for 20 test_node_state comp001 drained &&
	test "$(reason comp001 | sed "s/ \[.*//")" = "health: gpu3 ECC uncorrectable=2" &&
	reason comp001 | grep -Eq "^health: gpu3 ECC uncorrectable=2 \[root@[0-9T:-]+\]$" &&
	sinfo -R -h -o "%n|%E" >r && grep -qx "comp001|health: gpu3 ECC uncorrectable=2" r &&
	test_node_state comp002 idle
'

test_expect_success CC,CURL 'sluice_health_check_failing names the node and the check' '
	curl -sf "http://127.0.0.1:$MPORT/metrics" >m &&
	grep -qx "sluice_health_check_failing{node=\"comp001\",check=\"gpu\"} 1" m &&
	! grep -q "sluice_health_check_failing{node=\"comp002\"" m
'

test_expect_success CC 'a second problem joins the reason; a job avoids the node' '
	printf "3.dbe=2\n5.temp=97\n" >"$CL/nvml-comp001" &&
	wait_for 20 sh -c "scontrol show node comp001 | grep -q \"Reason=health: gpu3 ECC uncorrectable=2; gpu5 temperature 97C > 90C \"" &&
	j=$(sbatch --parsable -N 2 -o /dev/null --wrap=true) &&
	wait_for 10 test_reason $j ReqNodeNotAvail &&   # Slurm 22.05: only a drained node could complete it
	scancel $j
'

test_expect_success CC 'the repair (errors cleared) resumes the node and clears the reason' '
	: >"$CL/nvml-comp001" &&
	wait_for 20 test_node_state comp001 idle &&
	test -z "$(reason comp001)" &&
	cat "$CL"/log/ctld.* | grep -q "node comp001: health checks pass again: resumed" &&
	curl -sf "http://127.0.0.1:$MPORT/metrics" >m &&
	! grep -q "sluice_health_check_failing{node=\"comp001\"" m
'

test_expect_success CC,CURL 'an admin drain stays while checks fail and after they pass again' '
	scontrol update nodename=comp002 state=drain reason="hands off" &&
	echo "0.dbe=1" >"$CL/nvml-comp002" &&
	wait_for 20 failing comp002 gpu &&
	test "$(reason comp002 | sed "s/ \[.*//")" = "hands off" &&
	: >"$CL/nvml-comp002" &&
	wait_for 20 passing comp002 &&
	test_node_state comp002 drained &&
	test "$(reason comp002 | sed "s/ \[.*//")" = "hands off"
'

test_expect_success CC,CURL 'an admin drain set over a health drain stays after checks pass' '
	scontrol update nodename=comp002 state=resume &&
	echo "1.nvl_down=2" >"$CL/nvml-comp001" &&
	wait_for 20 test_node_state comp001 drained &&
	reason comp001 | grep -q "^health: gpu1 NVLink down=2 " &&
	scontrol update nodename=comp001 state=drain reason="admin takes over" &&
	: >"$CL/nvml-comp001" &&
	wait_for 20 passing comp001 &&
	test_node_state comp001 drained &&
	test "$(reason comp001 | sed "s/ \[.*//")" = "admin takes over"
'

test_expect_success CC 'a health drain survives a controller restart and is still lifted by a pass' '
	scontrol update nodename=comp001 state=resume &&
	echo "2.dbe=4" >"$CL/nvml-comp002" &&
	wait_for 20 test_node_state comp002 drained &&
	ctld_kill9 && ctld_start &&
	wait_for 30 sh -c "scontrol show node comp002 | grep -q \"Reason=health: gpu2 ECC uncorrectable=4\"" &&
	: >"$CL/nvml-comp002" &&
	wait_for 30 test_node_state comp002 idle
'

test_done
