#!/bin/bash
test_description='gres.conf AutoDetect=nvml: the node daemon reports the GPUs
NVML finds (a fake libnvidia-ml built here), so a node with fewer than
configured is drained; without the library it logs one clear error and
registers with the configured GRES'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SRC=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)

test_expect_success 'fake NVML library builds' '
	cc -shared -fPIC -o "$PWD/libfake-nvml.so" "$SRC/t/unit/fake_nvml.c"
'

test_expect_success 'AutoDetect=nvml with 2 GPUs found, 8 configured: drained' '
	GRES_CONF="AutoDetect=nvml
NodeName=comp001 Name=gpu Type=h100 Count=8" cluster_write_conf 1 &&
	ctld_start &&
	SLUICE_NVML_LIB="$PWD/libfake-nvml.so" noded_start comp001 &&
	wait_for 15 sh -c "scontrol show node comp001 | grep -q \"Reason=gres/gpu count reported lower than configured (2 < 8) \[\"" &&
	scontrol show node comp001 | grep -q "State=IDLE+DRAIN" &&
	! grep -q "AutoDetect=nvml: cannot load" "$CL/log/noded-comp001.stderr" &&
	noded_kill comp001
'

test_expect_success 'missing NVML library: one clear error, configured GRES' '
	scontrol update nodename=comp001 state=resume &&
	SLUICE_NVML_LIB=/nonexistent/libnvidia-ml.so.1 noded_start comp001 &&
	wait_for 15 test_node_state comp001 idle &&
	grep "gres.conf AutoDetect=nvml: cannot load /nonexistent/libnvidia-ml.so.1 (" "$CL/log/noded-comp001.stderr" >err &&
	test "$(wc -l <err)" -eq 1 &&
	grep -q "install the NVIDIA driver.s NVML library or set AutoDetect=off" err &&
	scontrol show node comp001 | grep -q "Gres=gpu:h100:8"
'

test_done
