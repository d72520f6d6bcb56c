# lib.sh: sharness helpers for the integration tests: the cluster helpers
# of t/cluster.sh, cleanup at exit, and prerequisites.
. "$SHARNESS_TEST_DIRECTORY/../cluster.sh"

# A daemon's sanitizer/valgrind report fails the script even when every
# test passed; otherwise the script's own exit status is kept.
trap 'sluice_rc=$?; cluster_stop || { sluice_rc=1; echo "FATAL: the cluster daemons left sanitizer or valgrind reports (above)" >&2; }; (exit $sluice_rc); die' EXIT

# The test users alice and bob exist (created by .ci/run) and we are root.
if [ "$(id -u)" = 0 ] && id alice >/dev/null 2>&1 && id bob >/dev/null 2>&1; then
	test_set_prereq USERS
fi

# replay_is_refused: record a signed sbatch through a proxy (t/replay.py),
# send the same bytes to the controller again, and check that no second job
# appears and the controller logged the replay. Needs prereq PYTHON.
command -v python3 >/dev/null && test_set_prereq PYTHON
replay_is_refused() {
	local id before
	cp "$SHARNESS_TEST_DIRECTORY/../replay.py" "$SHARNESS_TRASH_DIRECTORY/replay.py" &&
	cd "$SHARNESS_TRASH_DIRECTORY" &&
	{ timeout 30 python3 replay.py record "$CTLD_PORT" frames >proxy.port & } &&
	wait_for 10 test -s proxy.port &&
	id=$(SLUICE_CTLD_ADDR=127.0.0.1:$(cat proxy.port) sbatch --parsable -H --wrap=true) &&
	wait_for 10 test -s frames &&
	before=$(squeue -h | wc -l) &&
	timeout 20 python3 replay.py send "$CTLD_PORT" frames &&
	test "$(squeue -h | wc -l)" = "$before" &&
	wait_for 5 sh -c "cat \"$CL\"/log/ctld.* | grep -q \"authentication failed: Replayed credential\"" &&
	scancel "$id"
}

# replay_after_restart_is_refused: the same, but the controller is killed
# and restarted between the capture and the replay (its replay cache is in
# memory: credentials issued before its start must be refused).
replay_after_restart_is_refused() {
	local id before
	cp "$SHARNESS_TEST_DIRECTORY/../replay.py" "$SHARNESS_TRASH_DIRECTORY/replay.py" &&
	cd "$SHARNESS_TRASH_DIRECTORY" &&
	rm -f proxy.port frames2 &&
	{ timeout 30 python3 replay.py record "$CTLD_PORT" frames2 >proxy.port & } &&
	wait_for 10 test -s proxy.port &&
	id=$(SLUICE_CTLD_ADDR=127.0.0.1:$(cat proxy.port) sbatch --parsable -H --wrap=true) &&
	wait_for 10 test -s frames2 &&
	ctld_kill9 && ctld_start &&
	before=$(squeue -h | wc -l) &&
	fails=$(cat "$CL"/log/ctld.* | grep -c "authentication failed") &&
	timeout 20 python3 replay.py send "$CTLD_PORT" frames2 &&
	test "$(squeue -h | wc -l)" = "$before" &&
	wait_for 5 sh -c "test \$(cat \"$CL\"/log/ctld.* | grep -c \"authentication failed\") -gt $fails" &&
	scancel "$id"
}

# cloexec_all PID: every descriptor of PID above stderr is close-on-exec
# (but valgrind's own log, under SLUICE_VALGRIND).
cloexec_all() {
	local f n fl bad=0
	for f in /proc/$1/fdinfo/*; do
		n=${f##*/}
		[ "$n" -gt 2 ] || continue
		case $(readlink /proc/$1/fd/$n) in "$CL"/log/vg-*) continue ;; esac
		fl=$(sed -n "s/^flags:[[:space:]]*//p" "$f")
		[ $(( 0$fl & 02000000 )) != 0 ] ||
			{ echo "fd $n ($(readlink /proc/$1/fd/$n)) is not close-on-exec"; bad=1; }
	done
	return $bad
}
