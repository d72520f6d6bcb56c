#!/bin/bash
test_description='sluice preflight: stage 1 asks the node daemons for a health
check round now and reports each node against it; the tools of stages 2 and 3
that are not installed are SKIPPED (never passed), an installed one (a stand-in
nvbandwidth here) runs through srun and its figure is reported; --json gives
the same facts; --resume returns the nodes that passed to service'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SRC=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
command -v cc >/dev/null && test_set_prereq CC
command -v python3 >/dev/null && test_set_prereq PY
! command -v dcgmi >/dev/null && ! command -v all_reduce_perf >/dev/null && ! command -v ibstat >/dev/null &&
	test_set_prereq NOTOOLS
trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

# row NODE TEST: the table's row for a node's test (columns squeezed)
row() { awk -v n="$1" -v t="$2" '$1 == n && index($0, " " t " ") { $1 = $1; print; exit }' out; }

test_expect_success CC 'two nodes; comp002 registers with an ECC error and is drained' '
	cc -shared -fPIC -o "$PWD/libfake-nvml.so" "$SRC/t/unit/fake_nvml.c" &&
	cluster_write_conf 2 &&
	printf "gpu\n" >"$CL/etc/health.conf" &&
	ctld_start &&
	: >"$CL/nvml-comp001" && echo "4.dbe=3" >"$CL/nvml-comp002" &&
	for n in comp001 comp002; do
		SLUICE_NVML_LIB="$PWD/libfake-nvml.so" FAKE_NVML_COUNT=8 FAKE_NVML_SET_FILE="$CL/nvml-$n" \
			noded_start $n || return 1
	done &&
	wait_for 30 test_node_state comp002 drained &&
	wait_for 30 test_node_state comp001 idle
'

test_expect_success CC,NOTOOLS 'preflight: stage 1 fails comp002 with the evidence; missing tools are SKIPPED' '
	test_must_fail sluice preflight comp[001-002] >out 2>progress &&
	grep -q "^preflight: stage 1/3: node health checks on 2 node(s)$" progress &&
	grep -q "^preflight: stage 3/3: all-reduce across the nodes$" progress &&
	test "$(row comp001 "node checks")" = "comp001 1 node checks PASS 1 check(s) pass all pass" &&
	test "$(row comp002 "node checks")" = "comp002 1 node checks FAIL 1 of 1 failing all pass gpu: gpu4 ECC uncorrectable=3" &&
	test "$(row comp001 "auth key")" = "comp001 1 auth key PASS same controller'"'"'s" &&
	test "$(row comp001 "dcgmi diag -r 3")" = "comp001 2 dcgmi diag -r 3 SKIPPED - - dcgmi not installed" &&
	test "$(row comp001 "ibstat")" = "comp001 2 ibstat SKIPPED - - ibstat not installed" &&
	test "$(row comp001 "all_reduce_perf")" = "comp001 3 all_reduce_perf SKIPPED - - all_reduce_perf (nccl-tests) not installed" &&
	grep -Eq "^comp001 +PASS$" out && grep -Eq "^comp002 +FAIL$" out &&
	test_node_state comp002 drained
'

test_expect_success CC,PY 'an installed tool runs through srun on the nodes that can take a job' '
	mkdir -p tools &&
	printf "#!/bin/sh\necho \"SUM device_local_copy 1234.5\"\n" >tools/nvbandwidth && chmod +x tools/nvbandwidth &&
	PATH="$PWD/tools:$PATH" sluice preflight --stages 2 --json comp[001-002] >out.json 2>progress ;
	python3 - out.json <<-PYEOF
	import json, sys
	d = {n["node"]: n for n in json.load(open(sys.argv[1]))["nodes"]}
	t1 = {t["test"]: t for t in d["comp001"]["tests"]}
	t2 = {t["test"]: t for t in d["comp002"]["tests"]}
	assert t1["nvbandwidth"]["result"] == "PASS", t1["nvbandwidth"]
	assert t1["nvbandwidth"]["measured"] == "1234.5 GB/s", t1["nvbandwidth"]
	assert t2["nvbandwidth"]["result"] == "SKIPPED", t2["nvbandwidth"]
	assert "drained" in t2["nvbandwidth"]["detail"], t2["nvbandwidth"]
	assert d["comp001"]["result"] == "PASS" and d["comp002"]["result"] == "untested", d
	PYEOF
'

test_expect_success CC 'after the repair, the round preflight asks for lifts the health drain' '
	: >"$CL/nvml-comp002" &&
	sluice preflight --stages 1 comp002 >out 2>progress &&
	test "$(row comp002 "node checks")" = "comp002 1 node checks PASS 1 check(s) pass all pass" &&
	wait_for 10 test_node_state comp002 idle &&
	! grep -q resumed progress
'

test_expect_success CC '--resume returns an admin-drained node that passes to service' '
	scontrol update nodename=comp002 state=drain reason="new DIMMs, verify" &&
	sluice preflight --stages 1 --resume comp002 >out 2>progress &&
	grep -q "^preflight: comp002 resumed$" progress &&
	test_node_state comp002 idle
'

test_expect_success CC '--resume leaves a node that fails drained' '
	scontrol update nodename=comp001 state=drain reason="suspect" &&
	echo "0.temp=99" >"$CL/nvml-comp001" &&
	test_must_fail sluice preflight --stages 1 --resume comp001 >out 2>progress &&
	! grep -q resumed progress &&
	test "$(row comp001 "node checks")" = "comp001 1 node checks FAIL 1 of 1 failing all pass gpu: gpu0 temperature 99C > 90C" &&
	test_node_state comp001 drained &&
	scontrol show node comp001 | grep -q "Reason=suspect " &&
	: >"$CL/nvml-comp001"
'

test_expect_success 'bad arguments are refused with a clear error' '
	test_must_fail sluice preflight 2>err && grep -q "a node list is required" err &&
	test_must_fail sluice preflight --stages 4 comp001 2>err && grep -q "stage numbers 1-3" err &&
	test_must_fail sluice preflight nosuch 2>err && grep -q "unknown node .nosuch." err
'

test_done
