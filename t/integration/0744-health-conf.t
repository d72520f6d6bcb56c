#!/bin/bash
test_description='sluice check-config validates health.conf beside slurm.conf:
every bad line as FILE:LINE: message, exit 1; a good one is summarized'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

test_expect_success 'a good health.conf is summarized' '
	cluster_write_conf 2 &&
	printf "%s\n" "# checks" "gpu max_temp=85" "ib rate=400" "fs path=/tmp min_free=1G" "gate checks=gpu" \
		>"$CL/etc/health.conf" &&
	sluice check-config "$CL/etc" >out 2>err &&
	test_must_be_empty err &&
	grep -qx "$CL/etc/health.conf: 3 checks, gating each job: OK" out
'

test_expect_success 'without health.conf nothing is said of it' '
	rm "$CL/etc/health.conf" &&
	sluice check-config "$CL/etc" >out 2>err &&
	test_must_be_empty err &&
	! grep -q health.conf out
'

test_expect_success 'every bad line is reported as FILE:LINE, exit 1' '
	printf "%s\n" "gpu max_temp=hot" "" "nic speed=100" "fs min_free=1G" >"$CL/etc/health.conf" &&
	test_must_fail sluice check-config "$CL/etc" >out 2>err &&
	cat >expect <<-EOF &&
	$CL/etc/health.conf:1: max_temp '"'"'hot'"'"': a number, or off
	$CL/etc/health.conf:3: unknown check '"'"'nic'"'"' (gpu, ib, fs, memory, clock, procs, authkey, nccl or gate)
	$CL/etc/health.conf:4: check '"'"'fs'"'"' needs path=
	EOF
	test_cmp expect err
'

test_done
