# lib.sh: sharness helpers for the integration tests: the cluster helpers
# of t/cluster.sh, cleanup at exit, and prerequisites.
. "$SHARNESS_TEST_DIRECTORY/../cluster.sh"

trap 'cluster_stop; die' EXIT

# The test users alice and bob exist (created by .ci/run) and we are root.
if [ "$(id -u)" = 0 ] && id alice >/dev/null 2>&1 && id bob >/dev/null 2>&1; then
	test_set_prereq USERS
fi
