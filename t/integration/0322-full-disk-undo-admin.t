#!/bin/bash
test_description='a full state filesystem: an admin change (sacctmgr, scontrol update node, reservations) reported as failed has not happened'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

[ "$(id -u)" = 0 ] && test_set_prereq ROOT

# fill: no space left on the state filesystem. The store notices at the
# next commit, so the request that follows is the first one whose commit
# fails: it is answered with the error and must be undone (not only
# refused up front, as every later one is).
fill() { dd if=/dev/zero of="$CL/state/fill" bs=4k 2>/dev/null; return 0; }
recovered() { test "$(grep -c 'can be written again' "$CL/log/ctld.stderr")" -gt "$1"; }
# space: the space returns; wait until the controller wrote again.
space() {
	local n=$(grep -c 'can be written again' "$CL/log/ctld.stderr")
	rm -f "$CL/state/fill" &&
	wait_for 20 recovered $n
}
full_error() { grep -q "No space left on device" "$1"; }
# as other state changes print the refusal: the directory and the reason
store_error() { grep -q "state save location .$CL/state.: No space left on device" "$1"; }

test_expect_success ROOT 'cluster starts with StateSaveLocation on a 1 MB tmpfs' '
	cluster_write_conf 1 &&
	mount -t tmpfs -o size=1m,mode=0700 tmpfs "$CL/state" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle
'
# (cluster_stop unmounts it)

# until_fails CMD...: run CMD with 1, 2, ... appended until it fails (a
# small change may still fit in the WAL's slack after the fill); prints
# the number that failed.
until_fails() {
	for i in $(seq 1 60); do
		"$@" $i >/dev/null 2>"err.$i" || { echo $i; return 0; }
	done
	return 1
}
add_acct() { sacctmgr -i add account "acct$1"; }
drain() { scontrol update nodename=comp001 state=drain reason="disk-test-$1"; }
resv() {
	scontrol create reservation ReservationName="fullresv$1" StartTime="now+${1}days" \
		Duration=60 Nodes=comp001 Users=root
}

test_expect_success ROOT 'sacctmgr add account while full: failed, and refused while failing' '
	fill &&
	n=$(until_fails add_acct) && echo $n >acct.failed &&
	store_error err.$n &&
	test_must_fail sacctmgr -i add account chemistry >out2 2>err2 &&
	store_error err2 &&
	sacctmgr -n -P show account format=Account >/dev/null
'

test_expect_success ROOT 'space returns: the failed accounts do not exist, the acknowledged ones do' '
	n=$(cat acct.failed) &&
	space &&
	sacctmgr -n -P show account format=Account >accts &&
	grep -qx root accts &&
	! grep -qx acct$n accts &&
	! grep -q chemistry accts &&
	for i in $(seq 1 $((n - 1))); do grep -qx acct$i accts || return 1; done
'

test_expect_success ROOT 'scontrol update node drain while full: failed; the node does not have it after space returns' '
	fill &&
	n=$(until_fails drain) &&
	full_error err.$n &&
	space &&
	scontrol show node comp001 >node &&
	! grep -q "disk-test-$n\b" node &&
	if test $n = 1; then
		! grep -q DRAIN node
	else
		grep -q "disk-test-$((n - 1))" node
	fi &&
	{ test $n = 1 || scontrol update nodename=comp001 state=resume; } &&
	wait_for 10 nodes_idle
'

test_expect_success ROOT 'scontrol create reservation while full: failed; no such reservation after space returns' '
	fill &&
	n=$(until_fails resv) && echo $n >resv.failed &&
	full_error err.$n &&
	space &&
	scontrol show reservation >resv 2>&1;
	! grep -q "fullresv$n " resv &&
	for i in $(seq 1 $((n - 1))); do grep -q "fullresv$i " resv || return 1; done
'

test_expect_success ROOT 'each failed change was put back (not only refused)' '
	grep -q "accounting: a change was not committed" "$CL/log/ctld.stderr" &&
	grep -q "node comp001: a change to it was not committed" "$CL/log/ctld.stderr" &&
	grep -q "reservation [0-9]*: a change to it was not committed" "$CL/log/ctld.stderr"
'

test_expect_success ROOT 'the same changes work now, and nothing of the failed ones after a restart' '
	sacctmgr -i add account biology >/dev/null &&
	ctld_kill9 &&
	ctld_start &&
	wait_for 30 nodes_idle &&
	sacctmgr -n -P show account format=Account >accts2 &&
	grep -qx biology accts2 &&
	! grep -qx acct$(cat acct.failed) accts2 &&
	! grep -q chemistry accts2 &&
	scontrol show reservation >resv2 2>&1;
	! grep -q "fullresv$(cat resv.failed) " resv2 &&
	! scontrol show node comp001 | grep -q disk-test
'

test_done
