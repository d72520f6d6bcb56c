#!/bin/bash
test_description='the controller state: private files, one controller per state directory, start-up errors reach the shell'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# The controller runs as a real daemon here (no -D): its start-up errors
# must come back through the daemon pipe, its pid from SlurmctldPidFile.
export CTLD_DAEMON=1

test_expect_success 'cluster starts with a daemonized controller' '
	cluster_write_conf 1 &&
	chmod 755 "$CL/state" &&
	ctld_start &&
	noded_start comp001 &&
	wait_for 30 nodes_idle
'

test_expect_success 'the pid file holds the daemon pid and no temporary is left' '
	pid=$(cat "$CL/run/ctld.pid") &&
	# (under valgrind the daemon process is valgrind running sluice)
	{ test -n "${SLUICE_VALGRIND:-}" ||
	  test "$(readlink /proc/$pid/exe)" = "$(readlink -f "$SLUICE_BUILD/sluice")"; } &&
	grep -q "^SlurmctldPidFile=$CL/run/ctld.pid$" "$SLURM_CONF" &&
	test -z "$(ls "$CL/run" | grep -v -e "^ctld.pid$" -e "^sluice-ctld.sock$")"
'

test_expect_success 'the daemonized controller keeps no descriptor of its starter; its own are close-on-exec' '
	kill $CTLD_PID && wait_gone $CTLD_PID &&
	exec 9>"$CL/starter-fd" &&
	ctld_start &&
	exec 9>&- &&
	pid=$(cat "$CL/run/ctld.pid") &&
	test "$pid" = "$CTLD_PID" &&
	! ls -l /proc/$pid/fd | grep -q starter-fd &&
	cloexec_all $pid &&
	wait_for 30 nodes_idle
'

test_expect_success 'a state directory readable by others was made private, with a warning' '
	test "$(stat -c %a "$CL/state")" = 700 &&
	grep -q "StateSaveLocation .* was mode 0755" "$CL/log/ctld.log"
'

test_expect_success 'job scripts and environments: no state file is readable by group or others' '
	id=$(SECRET_TOKEN=hunter2-$$ sbatch --parsable -H -o /dev/null --wrap="echo secret") &&
	scontrol update jobid=$id comment=x &&
	echo $id >secret.id &&
	ls -la "$CL/state" >state.ls &&
	test -s "$CL/state/sluice.db" && test -e "$CL/state/sluice.db-wal" &&
	grep -q "hunter2-$$" "$CL/state/sluice.db" "$CL/state/sluice.db-wal" &&
	find "$CL/state" -mindepth 1 -perm /077 >open &&
	test_must_be_empty open
'

test_expect_success USERS 'another user can read none of the state' '
	for f in "$CL/state" "$CL/state/sluice.db" "$CL/state/sluice.db-wal" "$CL/state/sluice.db-shm"; do
		test_must_fail runuser -u alice -- cat "$f" >/dev/null 2>&1 || return 1
	done &&
	test_must_fail runuser -u alice -- ls "$CL/state" >/dev/null 2>&1 &&
	test_must_fail runuser -u alice -- grep -rq "hunter2-$$" "$CL" 2>/dev/null
'

test_expect_success USERS 'another user submits and queries through the socket in the run directory' '
	test -S "$CL/run/sluice-ctld.sock" &&
	! test -e "$CL/state/sluice-ctld.sock" &&
	aid=$(runuser -u alice -- sbatch --parsable -H -D /tmp -o /dev/null --wrap=true) &&
	runuser -u alice -- squeue -h -j $aid -o "%i %u" >q &&
	echo "$aid alice" >expect &&
	test_cmp expect q &&
	runuser -u alice -- sinfo -h -o %D >/dev/null &&
	scancel $aid
'

test_expect_success 'a second controller on the same state: refused, says who holds it, exit 1' '
	pid=$(cat "$CL/run/ctld.pid") &&
	cp "$CL/run/ctld.pid" pid.before &&
	sock_ino=$(stat -c %i "$CL/run/sluice-ctld.sock") &&
	test_expect_code 1 sluice ctld >out 2>err &&
	test_must_be_empty out &&
	grep "in use by another controller (pid $pid" err &&
	test_expect_code 1 sluice ctld -D >out 2>err &&
	grep "in use by another controller (pid $pid" err &&
	test_cmp pid.before "$CL/run/ctld.pid" &&
	test "$(stat -c %i "$CL/run/sluice-ctld.sock")" = "$sock_ino"
'

test_expect_success 'the first controller keeps serving, its jobs intact and ids not reused' '
	scontrol ping &&
	id=$(cat secret.id) &&
	test "$(job_state $id)" = PENDING &&
	id2=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	test "$id2" -gt "$id"
'

test_expect_success 'the lock file names the holder' '
	test "$(cat "$CL/state/sluice-ctld.lock")" = "$(cat "$CL/run/ctld.pid")"
'

# The lock is on the state directory; sluice-ctld.lock only names the
# holder. An admin who deletes it as stale must not let a second
# controller share the state (both handed out the same job id).
test_expect_success 'the lock file deleted: a second controller is still refused, naming the holder' '
	pid=$(cat "$CL/run/ctld.pid") &&
	sock_ino=$(stat -c %i "$CL/run/sluice-ctld.sock") &&
	rm "$CL/state/sluice-ctld.lock" &&
	test_expect_code 1 sluice ctld >out 2>err &&
	grep "in use by another controller (pid $pid)" err &&
	test_expect_code 1 sluice ctld -D >out 2>err &&
	grep "in use by another controller (pid $pid)" err &&
	test "$(cat "$CL/run/ctld.pid")" = "$pid" &&
	test "$(stat -c %i "$CL/run/sluice-ctld.sock")" = "$sock_ino" &&
	! test -e "$CL/state/sluice-ctld.lock"
'

test_expect_success 'the lock file recreated by someone else: still refused; the first serves on, ids not reused' '
	pid=$(cat "$CL/run/ctld.pid") &&
	echo 1 >"$CL/state/sluice-ctld.lock" &&
	test_expect_code 1 sluice ctld -D >out 2>err &&
	grep "in use by another controller (pid $pid)" err &&
	test "$(cat "$CL/state/sluice-ctld.lock")" = 1 &&
	scontrol ping &&
	test "$(job_state $(cat secret.id))" = PENDING &&
	test "$(job_state $id2)" = PENDING &&
	id3=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	test "$id3" -gt "$id2" &&
	test "$(job_state $id3)" = PENDING
'

test_expect_success 'restart as a daemon: the pid file follows the new daemon; jobs survive' '
	old=$CTLD_PID &&
	kill $old && wait_gone $old &&
	! test -e "$CL/run/ctld.pid" &&
	ctld_start &&
	test "$CTLD_PID" != "$old" &&
	kill -0 "$CTLD_PID" &&
	test "$(job_state $id2)" = PENDING
'

test_expect_success 'a start-up error reaches the shell: exit 1 and the reason' '
	kill $CTLD_PID && wait_gone $CTLD_PID &&
	sed "s|^StateSaveLocation=.*|StateSaveLocation=/proc/nonexistent/state|" "$SLURM_CONF" >"$CL/etc/bad.conf" &&
	test_expect_code 1 sluice ctld -f "$CL/etc/bad.conf" >out 2>err &&
	grep "cannot create StateSaveLocation ./proc/nonexistent/state." err &&
	test_must_be_empty out &&
	! scontrol ping >/dev/null 2>&1
'

test_expect_success 'an error after detaching (the run directory) also reaches the shell' '
	sed "s|^SlurmctldPidFile=.*|SlurmctldPidFile=/proc/nonexistent/run/ctld.pid|" "$SLURM_CONF" >"$CL/etc/bad.conf" &&
	test_expect_code 1 sluice ctld -f "$CL/etc/bad.conf" >out 2>err &&
	grep "cannot create the run directory ./proc/nonexistent/run." err &&
	! scontrol ping >/dev/null 2>&1
'

test_expect_success 'in the foreground (-D) the pid file is written too' '
	CTLD_DAEMON= ctld_start &&
	test "$(cat "$CL/run/ctld.pid")" = "$CTLD_PID"
'

test_expect_success USERS 'started as root with a SlurmUser: the state belongs to it' '
	kill $CTLD_PID && wait_gone $CTLD_PID &&
	echo "SlurmUser=bob" >>"$SLURM_CONF" &&
	ctld_start &&
	test "$(stat -c "%U %a" "$CL/state")" = "bob 700" &&
	find "$CL/state" -mindepth 1 ! -user bob >notbob &&
	test_must_be_empty notbob &&
	test -z "$(runuser -u bob -- find "$CL/state" -mindepth 1 ! -readable)"
'

test_done
