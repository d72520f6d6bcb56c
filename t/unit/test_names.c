/*
 * test_names: the AllowGroups cache of the controller (src/ctld/names.c):
 * groups are resolved by the worker thread, with a fake resolver here, and
 * the loop's check reads only the published table: it never resolves
 * itself, a change is seen after a refresh (reconfigure) or a periodic
 * update, a primary gid admits, and an unknown or unwatched group admits
 * no one.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctld/names.h"
#include "tap.h"
#include "xalloc.h"

static atomic_int calls;         /* resolver calls */
static atomic_int gpu_has_1002;  /* membership the "NSS" reports */

static int fake_resolve(const char *name, uint32_t *gid, uint32_t **uids, size_t *n)
{
	atomic_fetch_add(&calls, 1);
	*n = 0;
	if (!strcmp(name, "gpu")) {
		*gid = 500;
		*uids = xcalloc(3, sizeof(uint32_t));
		(*uids)[(*n)++] = 1003;
		(*uids)[(*n)++] = 1001;
		if (atomic_load(&gpu_has_1002))
			(*uids)[(*n)++] = 1002;
		return 0;
	}
	if (!strcmp(name, "cpu")) {
		*gid = 600;
		*uids = xcalloc(1, sizeof(uint32_t));
		return 0;
	}
	return -1;
}

/* Poll until the resolver was called more than `than` times (bounded). */
static int calls_above(int than, int ms)
{
	for (int t = 0; t < ms / 10; t++) {
		if (atomic_load(&calls) > than)
			return 1;
		usleep(10000);
	}
	return atomic_load(&calls) > than;
}

int main(void)
{
	names_groups_set_resolver(fake_resolve);
	ok(!names_groups_allow("gpu", 1001, 100), "nothing resolved yet: no one admitted");

	const char *lists[] = { "gpu", "ALL", "cpu,missing", NULL, "" };
	names_groups_watch(lists, 5, 0, 1);
	is_int(names_groups_wait(5000), 0, "first resolution published");
	int n = atomic_load(&calls);
	is_int(n, 3, "each watched group resolved once (gpu, cpu, missing; not ALL)");

	ok(names_groups_allow("gpu", 1001, 100), "listed member admitted");
	ok(names_groups_allow("gpu", 1003, 100), "another listed member admitted");
	ok(!names_groups_allow("gpu", 1002, 100), "non-member refused");
	ok(names_groups_allow("gpu", 1002, 500), "the group as primary gid admits");
	ok(!names_groups_allow("cpu,missing", 1001, 100), "empty group and unknown group admit no one");
	ok(names_groups_allow("missing,gpu", 1003, 1), "any group of the list admits");
	ok(!names_groups_allow("other", 1001, 500), "a group not watched admits no one");
	ok(!names_groups_allow(NULL, 1001, 500), "no list: no one");
	is_int(atomic_load(&calls), n, "checks never call the resolver");

	atomic_store(&gpu_has_1002, 1);
	ok(!names_groups_allow("gpu", 1002, 100), "a new membership is not seen before a refresh");
	names_groups_refresh();
	is_int(names_groups_wait(5000), 0, "refresh published");
	ok(names_groups_allow("gpu", 1002, 100), "the new membership is seen after the refresh");

	/* A reconfigure with other groups: the old ones are forgotten. */
	const char *lists2[] = { "cpu" };
	names_groups_watch(lists2, 1, 0, 1);
	is_int(names_groups_wait(5000), 0, "new watch published");
	ok(!names_groups_allow("gpu", 1001, 100), "a group no partition names any more admits no one");
	ok(names_groups_allow("cpu", 7, 600), "the newly watched group admits its gid");

	/* GroupUpdateTime=1 with GroupUpdateForce: periodic updates. */
	n = atomic_load(&calls);
	names_groups_watch(lists, 5, 1, 1);
	names_groups_wait(5000);
	n = atomic_load(&calls);
	ok(calls_above(n, 5000), "GroupUpdateTime=1, forced: resolved again by itself");

	/* Without force, only when /etc/group changed (it does not here). */
	names_groups_watch(lists, 5, 1, 0);
	names_groups_wait(5000);
	usleep(100000);
	n = atomic_load(&calls);
	ok(!calls_above(n, 2500), "GroupUpdateForce=0 and /etc/group unchanged: not resolved again");
	return done_testing();
}
