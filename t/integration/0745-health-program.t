#!/bin/bash
test_description='HealthCheckProgram runs as Slurm runs it: as root, with a
plain environment, at start and every HealthCheckInterval; one that hangs is
killed after its timeout without blocking the node daemon; SIGHUP re-reads
health.conf, and one with errors changes nothing'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

trap 'sluice_rc=$?; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

noded_log() { cat "$CL"/log/noded-comp001.* 2>/dev/null; }
said() { noded_log | grep -q "$1"; }
count() { noded_log | grep -c "$1"; }

test_expect_success 'a node whose HealthCheckProgram records how it runs' '
	cluster_write_conf 1 "HealthCheckInterval=1" &&
	echo "HealthCheckProgram=$CL/etc/hc.sh" >>"$CL/etc/slurm.conf" &&
	cat >"$CL/etc/hc.sh" <<-EOF &&
	#!/bin/sh
	echo "uid=\$(id -u) env=\$(env | grep -v -e ^PWD= -e ^SHLVL= -e ^_= | sort | tr "\\n" " ")" >>"$CL/hc.out"
	[ -e "$CL/hang" ] && exec sleep 287.345
	exit 3
	EOF
	chmod 755 "$CL/etc/hc.sh" &&
	ctld_start &&
	SLUICE_HEALTH_PROGRAM_TIMEOUT=2 noded_start comp001 &&
	wait_for 30 nodes_idle &&
	wait_for 10 test -s "$CL/hc.out" &&
	head -1 "$CL/hc.out" | grep -qx "uid=0 env=PATH=/usr/sbin:/usr/bin:/sbin:/bin " &&
	wait_for 10 said "HealthCheckProgram $CL/etc/hc.sh failed: exit status 3"
'

test_expect_success 'it runs again every HealthCheckInterval' '
	n=$(wc -l <"$CL/hc.out") &&
	wait_for 10 sh -c "[ \$(wc -l <$CL/hc.out) -gt $n ]"
'

test_expect_success 'a program that hangs is killed after the timeout; the daemon answers meanwhile' '
	touch "$CL/hang" &&
	wait_for 10 sh -c "pgrep -f \"^sleep 287.345\$\" >/dev/null" &&
	sinfo -h -n comp001 -o %t | grep -q idle &&
	wait_for 15 said "HealthCheckProgram still running after 2s: killed" &&
	rm "$CL/hang" &&
	wait_for 10 sh -c "! pgrep -f \"^sleep 287.345\$\" >/dev/null"
'

test_expect_success 'SIGHUP re-reads health.conf; a bad one changes nothing' '
	printf "memory min_free=1M\n" >"$CL/etc/health.conf" &&
	kill -HUP $(cat "$CL/noded-comp001.pid") &&
	wait_for 10 said "reconfigure: $CL/etc/health.conf re-read: 1 check(s)" &&
	printf "memory min_free=lots\n" >"$CL/etc/health.conf" &&
	kill -HUP $(cat "$CL/noded-comp001.pid") &&
	wait_for 10 said "reconfigure: $CL/etc/health.conf not applied: the 1 check(s) read before stay" &&
	said "reconfigure: $CL/etc/health.conf:1: min_free .lots.: a size"
'

test_done
