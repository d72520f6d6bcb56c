/* names: cached uid/gid -> name lookups, and the AllowGroups members
 * resolved by a worker thread; see names.h. */
#include "names.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
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

/* ---- AllowGroups: group names to gid and members, off the loop ---- */

struct grp_ent {
	char *name;
	int found;
	uint32_t gid;
	uint32_t *uids;          /* sorted */
	size_t nuids;
};

struct grp_table {
	struct grp_ent *e;
	size_t n;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake = PTHREAD_COND_INITIALIZER;   /* to the worker */
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;   /* from the worker */
static struct grp_table *g_table;          /* published; read under g_mu */
static char **g_want;                       /* group names to resolve */
static size_t g_nwant;
static uint64_t g_req, g_resolved;         /* generations asked / published */
static uint32_t g_update_s = 600;
static int g_force = 1;
static int g_started;
static names_group_resolve_f g_resolve;

static int nss_resolve(const char *name, uint32_t *gid, uint32_t **uids, size_t *nuids)
{
	size_t blen = 1 << 14;
	char *buf = xmalloc(blen);
	struct group gr, *res = NULL;
	int rc;
	while ((rc = getgrnam_r(name, &gr, buf, blen, &res)) == ERANGE && blen < (1u << 24)) {
		blen *= 2;
		buf = xrealloc(buf, blen);
	}
	if (rc || !res) {
		free(buf);
		return -1;
	}
	*gid = gr.gr_gid;
	size_t n = 0;
	while (gr.gr_mem && gr.gr_mem[n])
		n++;
	*uids = xcalloc(n ? n : 1, sizeof(uint32_t));
	*nuids = 0;
	char pbuf[4096];
	for (size_t i = 0; i < n; i++) {
		struct passwd pw, *pres = NULL;
		if (getpwnam_r(gr.gr_mem[i], &pw, pbuf, sizeof(pbuf), &pres) == 0 && pres)
			(*uids)[(*nuids)++] = pw.pw_uid;
	}
	free(buf);
	return 0;
}

void names_groups_set_resolver(names_group_resolve_f fn)
{
	pthread_mutex_lock(&g_mu);
	g_resolve = fn;
	pthread_mutex_unlock(&g_mu);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void table_free(struct grp_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].uids);
	}
	free(t->e);
	free(t);
}

static struct grp_table *table_build(char **names, size_t n, names_group_resolve_f fn)
{
	struct grp_table *t = xcalloc(1, sizeof(*t));
	t->e = xcalloc(n ? n : 1, sizeof(*t->e));
	for (size_t i = 0; i < n; i++) {
		struct grp_ent *e = &t->e[t->n++];
		e->name = xstrdup(names[i]);
		e->found = fn(names[i], &e->gid, &e->uids, &e->nuids) == 0;
		if (e->found && e->nuids)
			qsort(e->uids, e->nuids, sizeof(uint32_t), cmp_u32);
	}
	return t;
}

/* Has /etc/group changed since the last call (GroupUpdateForce=0)? */
static int etc_group_changed(void)
{
	static struct timespec last;
	struct stat st;
	if (stat("/etc/group", &st))
		return 1;
	int changed = st.st_mtim.tv_sec != last.tv_sec || st.st_mtim.tv_nsec != last.tv_nsec;
	last = st.st_mtim;
	return changed;
}

static void *groups_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g_mu);
	for (;;) {
		while (g_req == g_resolved) {
			if (!g_update_s) {
				pthread_cond_wait(&g_wake, &g_mu);
				continue;
			}
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += g_update_s;
			if (pthread_cond_timedwait(&g_wake, &g_mu, &ts) == ETIMEDOUT &&
			    g_req == g_resolved && (g_force || etc_group_changed()))
				g_req++;
		}
		uint64_t gen = g_req;
		size_t n = g_nwant;
		char **names = xcalloc(n ? n : 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			names[i] = xstrdup(g_want[i]);
		names_group_resolve_f fn = g_resolve ? g_resolve : nss_resolve;
		pthread_mutex_unlock(&g_mu);

		if (!g_force)
			etc_group_changed();   /* note the version resolved */
		struct grp_table *t = table_build(names, n, fn);
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);

		pthread_mutex_lock(&g_mu);
		struct grp_table *old = g_table;
		g_table = t;
		g_resolved = gen;
		pthread_cond_broadcast(&g_done);
		pthread_mutex_unlock(&g_mu);
		table_free(old);
		pthread_mutex_lock(&g_mu);
	}
	return NULL;
}

/* Start the worker (g_mu held). */
static void groups_start(void)
{
	if (g_started)
		return;
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* The loop's signals (SIGTERM, SIGHUP...) go to a signalfd: the
	 * worker must not take them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&th, &at, groups_worker, NULL) == 0)
		g_started = 1;
	else
		error("cannot start the AllowGroups worker: every AllowGroups partition refuses users");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
}

static int name_wanted(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

void names_groups_watch(const char *const *lists, size_t n, uint32_t update_s, int force)
{
	char **want = NULL;
	size_t nwant = 0, awant = 0;
	for (size_t i = 0; i < n; i++) {
		if (!lists[i] || !*lists[i] || !strcasecmp(lists[i], "ALL"))
			continue;
		char *l = xstrdup(lists[i]), *save = NULL;
		for (char *g = strtok_r(l, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
			if (!*g || name_wanted(want, nwant, g))
				continue;
			want = xgrow(want, sizeof(char *), nwant + 1, &awant);
			want[nwant++] = xstrdup(g);
		}
		free(l);
	}
	pthread_mutex_lock(&g_mu);
	for (size_t i = 0; i < g_nwant; i++)
		free(g_want[i]);
	free(g_want);
	g_want = want;
	g_nwant = nwant;
	g_update_s = update_s;
	g_force = force;
	g_req++;
	groups_start();
	pthread_cond_signal(&g_wake);
	pthread_mutex_unlock(&g_mu);
}

void names_groups_refresh(void)
{
	pthread_mutex_lock(&g_mu);
	g_req++;
	groups_start();
	pthread_cond_signal(&g_wake);
	pthread_mutex_unlock(&g_mu);
}

int names_groups_wait(int timeout_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	int rc = 0;
	pthread_mutex_lock(&g_mu);
	uint64_t want = g_req;
	while (g_started && g_resolved < want && rc == 0)
		rc = pthread_cond_timedwait(&g_done, &g_mu, &ts);
	int ok = g_resolved >= want;
	pthread_mutex_unlock(&g_mu);
	return ok ? 0 : -1;
}

int names_groups_allow(const char *list, uint32_t uid, uint32_t gid)
{
	if (!list)
		return 0;
	int ok = 0;
	char *l = xstrdup(list), *save = NULL;
	pthread_mutex_lock(&g_mu);
	for (char *g = strtok_r(l, ",", &save); g && !ok; g = strtok_r(NULL, ",", &save)) {
		for (size_t i = 0; g_table && i < g_table->n && !ok; i++) {
			const struct grp_ent *e = &g_table->e[i];
			if (!e->found || strcmp(e->name, g))
				continue;
			ok = e->gid == gid ||
			     (e->nuids && bsearch(&uid, e->uids, e->nuids, sizeof(uint32_t), cmp_u32));
		}
	}
	pthread_mutex_unlock(&g_mu);
	free(l);
	return ok;
}
