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
