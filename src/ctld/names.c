/* names: cached uid/gid -> name lookups; see names.h. */
#include "names.h"

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xalloc.h"

#define NAMES_SLOTS 256   /* direct-mapped: ids of a cluster's active users */

struct name_slot {
	uint32_t id;
	time_t at;           /* 0 = empty */
	char *name;
};

static struct name_slot user_cache[NAMES_SLOTS], group_cache[NAMES_SLOTS];

static char *lookup(struct name_slot *cache, uint32_t id, int group)
{
	struct name_slot *s = &cache[id % NAMES_SLOTS];
	time_t now = time(NULL);
	if (s->at && s->id == id && now - s->at < NAMES_TTL)
		return xstrdup(s->name);
	char buf[8192];
	char *name = NULL;
	if (group) {
		struct group gr, *res = NULL;
		if (getgrgid_r(id, &gr, buf, sizeof(buf), &res) == 0 && res)
			name = xstrdup(gr.gr_name);
	} else {
		struct passwd pw, *res = NULL;
		if (getpwuid_r(id, &pw, buf, sizeof(buf), &res) == 0 && res)
			name = xstrdup(pw.pw_name);
	}
	if (!name)
		name = xasprintf("%u", id);
	free(s->name);
	s->id = id;
	s->at = now;
	s->name = xstrdup(name);
	return name;
}

char *names_user(uint32_t uid)
{
	return lookup(user_cache, uid, 0);
}

char *names_group(uint32_t gid)
{
	return lookup(group_cache, gid, 1);
}
