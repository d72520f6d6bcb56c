#!/bin/bash
test_description='auth key consistency: each node daemon reports the SHA-256 of
its key file; a node whose key differs from the controller'"'"'s is drained
with a reason saying so (and the controller logs it), an unreadable key is
shown but is no mismatch, `sluice check-keys` prints the table, and the
node resumes once its key matches again'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

reason() { scontrol show node "$1" | sed -n 's/^ *Reason=//p'; }
# The munge.key the checks compare (AuthType=auth/slurm signs with
# slurm.key; a node with another slurm.key could not talk at all).
keyconf() { printf "authkey path=%s\n" "$2" >"$1"; }

test_expect_success 'three nodes: the same key, another key, no key' '
	cluster_write_conf 3 "HealthCheckInterval=1" &&
	head -c 1024 /dev/urandom >"$CL/etc/munge.key" && chmod 600 "$CL/etc/munge.key" &&
	head -c 1024 /dev/urandom >"$CL/etc/other.key" && chmod 600 "$CL/etc/other.key" &&
	keyconf "$CL/etc/health.conf" "$CL/etc/munge.key" &&
	keyconf "$CL/etc/health-2.conf" "$CL/etc/other.key" &&
	keyconf "$CL/etc/health-3.conf" "$CL/etc/missing.key" &&
	ctld_start &&
	noded_start comp001 &&
	SLUICE_HEALTH_CONF="$CL/etc/health-2.conf" noded_start comp002 &&
	SLUICE_HEALTH_CONF="$CL/etc/health-3.conf" noded_start comp003 &&
	wait_for 30 sh -c "[ \$(sinfo -h -N -p defq -o \"%N %t\" | grep -c -E \"idle|drain\") -eq 3 ]"
'

test_expect_success 'the node with another key is drained, saying so; the controller logs it' '
	wait_for 20 test_node_state comp002 drained &&
	d2=$(sha256sum <"$CL/etc/other.key" | cut -c1-8) &&
	d1=$(sha256sum <"$CL/etc/munge.key" | cut -c1-8) &&
	reason comp002 | grep -Eq "^health: auth key differs from the controller.s \(sha256 $d2, controller $d1\) \[root@" &&
	cat "$CL"/log/ctld.* | grep -q "node comp002: auth key differs from the controller.s (sha256 $d2, ours $d1)" &&
	test_node_state comp001 idle &&
	test_node_state comp003 idle
'

test_expect_success 'sluice check-keys prints the table and fails on a mismatch' '
	test_must_fail sluice check-keys >out 2>err &&
	test_must_be_empty err &&
	d1=$(sha256sum <"$CL/etc/munge.key" | cut -c1-16) &&
	d2=$(sha256sum <"$CL/etc/other.key" | cut -c1-16) &&
	cat >expect <<-EOF &&
	NODE                 DIGEST           MATCH
	comp001              $d1 yes
	comp002              $d2 NO
	comp003              unreadable       unreadable
	EOF
	test_cmp expect out &&
	sluice check-keys comp001,comp003 >out2 &&
	test $(wc -l <out2) = 3 &&
	test_must_fail sluice check-keys nosuch 2>err &&
	grep -q "no node of .nosuch. is configured" err
'

test_expect_success 'the same key again resumes the node' '
	cp "$CL/etc/munge.key" "$CL/etc/other.key" &&
	wait_for 20 test_node_state comp002 idle &&
	test -z "$(reason comp002)" &&
	sluice check-keys comp002 >out &&
	grep -q "^comp002 .* yes$" out
'

test_done
