#!/bin/bash
test_description='the health gate (health.conf `gate`): the node daemon runs the
gated checks before each job starts; a job lands on a node whose GPU has an
uncorrectable ECC error: it never runs, the node is drained with the evidence,
and the launch is reported as a failed Prolog is (rc ESLURMD_PROLOG_FAILED)'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SRC=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
command -v cc >/dev/null && test_set_prereq CC
trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

reason() { scontrol show node "$1" | sed -n 's/^ *Reason=//p'; }

test_expect_success CC 'a node that checks its GPUs at registration and before each job only' '
	cc -shared -fPIC -o "$PWD/libfake-nvml.so" "$SRC/t/unit/fake_nvml.c" &&
	cluster_write_conf 1 &&
	printf "gpu\ngate checks=gpu\n" >"$CL/etc/health.conf" &&
	ctld_start &&
	: >"$CL/nvml" &&
	SLUICE_NVML_LIB="$PWD/libfake-nvml.so" FAKE_NVML_COUNT=8 FAKE_NVML_SET_FILE="$CL/nvml" \
		noded_start comp001 &&
	wait_for 30 nodes_idle
'

test_expect_success CC 'a job passes the gate of a healthy node and runs' '
	j=$(sbatch --parsable -o /dev/null --wrap="touch $CL/work/ran1") &&
	wait_job_state $j COMPLETED 20 &&
	test -f "$CL/work/ran1"
'

test_expect_success CC 'the gate refuses the next job on a GPU with an ECC error; the node drains' '
	echo "6.dbe=1" >"$CL/nvml" &&
	j=$(sbatch --parsable -o /dev/null --wrap="touch $CL/work/ran2") &&
	wait_for 20 test_node_state comp001 drained &&
	test "$(reason comp001 | sed "s/ \[.*//")" = "health: gpu6 ECC uncorrectable=1" &&
	cat "$CL"/log/noded-comp001.* | grep -q "job $j: refused by the health gate: gpu: gpu6 ECC uncorrectable=1" &&
	wait_for 20 sh -c "scontrol show job $j | grep -q \"JobState=PENDING Reason=launch_failed_requeued_held\"" &&
	test ! -e "$CL/work/ran2"
'

test_done
