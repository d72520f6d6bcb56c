/*
 * pmi2: the PMI-1/PMI-2 server of a step supervisor. See pmi2.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "pmi2.h"
#include "pmi2_wire.h"
#include "strbuf.h"
#include "xalloc.h"

#define KVS_BUCKETS 1024u
/* replies a task has not read: past this its commands are not read
 * either, so a task that only writes cannot grow us */
#define PMI_OUT_MAX (1u << 20)

typedef struct kv {
	struct kv *next;
	char *key, *val;
} kv_t;

typedef struct client {
	int fd, child_fd;          /* ours, the task's (until forked) */
	uint32_t rank;
	int v2;                    /* past a PMI-2 init: frames */
	int in_fence;
	char *wait_attr;           /* info-getnodeattr wait=TRUE, not put yet */
	strbuf_t in, out;
	size_t outoff;
} client_t;

struct pmi_srv {
	pmi_step_t st;
	char jobid[32];
	char *mapping;
	client_t *c;
	kv_t *kvs[KVS_BUCKETS];    /* what fences brought */
	kv_t *attrs;               /* node attributes */
	strbuf_t puts;             /* this node's since the last fence */
	size_t kvs_bytes;
	int fencing;               /* sent, waiting for srun's answer */
	int aborted, abort_told, abort_code;
	uint32_t abort_rank;
	char *abort_msg;
};

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % KVS_BUCKETS;
}

static kv_t **kv_find(kv_t **head, const char *key)
{
	for (; *head; head = &(*head)->next)
		if (!strcmp((*head)->key, key))
			return head;
	return head;
}

static void kv_set(kv_t **head, const char *key, const char *val)
{
	kv_t **p = kv_find(head, key);
	if (*p) {
		free((*p)->val);
		(*p)->val = xstrdup(val);
		return;
	}
	kv_t *e = xcalloc(1, sizeof(*e));
	e->key = xstrdup(key);
	e->val = xstrdup(val);
	*p = e;
}

static void kv_free(kv_t *e)
{
	while (e) {
		kv_t *n = e->next;
		free(e->key);
		free(e->val);
		free(e);
		e = n;
	}
}

pmi_srv_t *pmi_srv_new(const pmi_step_t *st)
{
	uint32_t *counts = xcalloc(st->nnodes ? st->nnodes : 1, sizeof(*counts));
	if (!st->nnodes || !st->tasks_per_node ||
	    pmi_counts_parse(st->tasks_per_node, counts, st->nnodes) < 0) {
		error("step %u.%u: PMI: no task layout to serve (\"%s\")", st->job_id, st->step_id,
		      st->tasks_per_node ? st->tasks_per_node : "");
		free(counts);
		return NULL;
	}
	pmi_srv_t *s = xcalloc(1, sizeof(*s));
	s->st = *st;
	s->st.tasks_per_node = NULL;
	snprintf(s->jobid, sizeof(s->jobid), "%u.%u", st->job_id, st->step_id);
	s->mapping = pmi_process_mapping(counts, st->nnodes);
	free(counts);
	s->c = xcalloc(st->ntasks ? st->ntasks : 1, sizeof(*s->c));
	for (uint32_t i = 0; i < st->ntasks; i++) {
		s->c[i].fd = s->c[i].child_fd = -1;
		s->c[i].rank = st->first_task + i;
		strbuf_init(&s->c[i].in);
		strbuf_init(&s->c[i].out);
	}
	strbuf_init(&s->puts);
	return s;
}

static void client_close(client_t *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->child_fd >= 0)
		close(c->child_fd);
	c->fd = c->child_fd = -1;
	c->in_fence = 0;
	strbuf_release(&c->in);
	strbuf_release(&c->out);
	c->outoff = 0;
	free(c->wait_attr);
	c->wait_attr = NULL;
}

void pmi_srv_free(pmi_srv_t *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->st.ntasks; i++)
		client_close(&s->c[i]);
	free(s->c);
	for (unsigned b = 0; b < KVS_BUCKETS; b++)
		kv_free(s->kvs[b]);
	kv_free(s->attrs);
	strbuf_release(&s->puts);
	free(s->mapping);
	free(s->abort_msg);
	free(s);
}

int pmi_srv_task_fd(pmi_srv_t *s, uint32_t local)
{
	if (local >= s->st.ntasks)
		return -1;
	client_t *c = &s->c[local];
	if (c->child_fd >= 0)
		return c->child_fd;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		error("step %s: PMI: socketpair: %m", s->jobid);
		return -1;
	}
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	c->fd = sv[0];
	c->child_fd = sv[1];
	return sv[1];
}

void pmi_srv_forked(pmi_srv_t *s, uint32_t local)
{
	if (local < s->st.ntasks && s->c[local].child_fd >= 0) {
		close(s->c[local].child_fd);
		s->c[local].child_fd = -1;
	}
}

const char *pmi_srv_jobid(const pmi_srv_t *s)
{
	return s->jobid;
}

size_t pmi_srv_pollfds(const pmi_srv_t *s, struct pollfd *pf)
{
	size_t n = 0;
	for (uint32_t i = 0; i < s->st.ntasks; i++) {
		const client_t *c = &s->c[i];
		if (c->fd < 0)
			continue;
		size_t unread = c->out.len - c->outoff;
		pf[n++] = (struct pollfd){ c->fd, (short)((unread < PMI_OUT_MAX ? POLLIN : 0) |
				(unread ? POLLOUT : 0)), 0 };
	}
	return n;
}

int pmi_srv_owns(const pmi_srv_t *s, int fd)
{
	for (uint32_t i = 0; i < s->st.ntasks; i++)
		if (s->c[i].fd == fd && fd >= 0)
			return 1;
	return 0;
}

/* Write what the task has not taken yet; the rest waits for POLLOUT. */
static void client_flush(client_t *c)
{
	while (c->fd >= 0 && c->outoff < c->out.len) {
		ssize_t w = send(c->fd, c->out.buf + c->outoff, c->out.len - c->outoff,
				 MSG_NOSIGNAL);
		if (w > 0) {
			c->outoff += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return;
		} else {
			client_close(c);
			return;
		}
	}
	if (c->fd >= 0) {
		strbuf_reset(&c->out);
		c->outoff = 0;
	}
}

/* A PMI-2 reply of pairs (key, value, ..., NULL). */
static void reply2(client_t *c, const char *cmd, ...)
{
	va_list ap;
	size_t start = pmi_v2_begin(&c->out);
	pmi_v2_add(&c->out, "cmd", cmd);
	va_start(ap, cmd);
	const char *k;
	while ((k = va_arg(ap, const char *))) {
		const char *v = va_arg(ap, const char *);
		pmi_v2_add(&c->out, k, v);
	}
	va_end(ap);
	pmi_v2_end(&c->out, start);
}

static const char *kvs_get(const pmi_srv_t *s, const char *key)
{
	kv_t *const *p = kv_find((kv_t **)&s->kvs[hash(key)], key);
	return *p ? (*p)->val : NULL;
}

static const char *job_attr(const pmi_srv_t *s, const char *key, char *num, size_t nl)
{
	if (!strcmp(key, "PMI_process_mapping"))
		return s->mapping;
	if (!strcmp(key, "universeSize")) {
		snprintf(num, nl, "%u", s->st.total_tasks);
		return num;
	}
	return NULL;
}

static void fence_answer(client_t *c)
{
	c->in_fence = 0;
	if (c->v2)
		reply2(c, "kvs-fence-response", "rc", "0", (char *)NULL);
	else
		strbuf_addstr(&c->out, "cmd=barrier_out rc=0\n");
}

static void kvs_merge(void *arg, const char *key, const char *val)
{
	pmi_srv_t *s = arg;
	kv_set(&s->kvs[hash(key)], key, val);
}

void pmi_srv_fence_done(pmi_srv_t *s, const void *data, size_t len)
{
	if (!s->fencing) {
		error("step %s: PMI: fence data from srun with no fence in progress", s->jobid);
		return;
	}
	s->fencing = 0;
	if (pmi_kvs_unpack(data, len, kvs_merge, s) < 0)
		error("step %s: PMI: malformed fence data from srun", s->jobid);
	for (uint32_t i = 0; i < s->st.ntasks; i++) {
		client_t *c = &s->c[i];
		if (c->fd >= 0 && c->in_fence) {
			fence_answer(c);
			client_flush(c);
		}
	}
}

/* Every task still connected is in the fence: this node's puts go out
 * (one node: they are the whole). */
static void fence_check(pmi_srv_t *s)
{
	if (s->fencing)
		return;
	uint32_t in = 0;
	for (uint32_t i = 0; i < s->st.ntasks; i++) {
		if (s->c[i].fd < 0)
			continue;
		if (!s->c[i].in_fence)
			return;
		in++;
	}
	if (!in)
		return;
	s->fencing = 1;
	strbuf_t puts = s->puts;
	strbuf_init(&s->puts);
	if (s->st.nnodes == 1) {
		pmi_srv_fence_done(s, puts.buf, puts.len);
	} else if (s->st.send(s->st.arg, puts.buf, puts.len) < 0) {
		error("step %s: PMI: cannot send this node's fence data to srun", s->jobid);
	}
	strbuf_release(&puts);
}

static int kvs_put(pmi_srv_t *s, const char *key, const char *val)
{
	size_t add = strlen(key) + strlen(val) + 8;
	if (s->kvs_bytes + add > PMI_KVS_MAX)
		return -1;
	s->kvs_bytes += add;
	pmi_kvs_pack(&s->puts, key, val);
	return 0;
}

static void attr_put(pmi_srv_t *s, const char *key, const char *val)
{
	kv_set(&s->attrs, key, val);
	for (uint32_t i = 0; i < s->st.ntasks; i++) {
		client_t *c = &s->c[i];
		if (c->fd >= 0 && c->wait_attr && !strcmp(c->wait_attr, key)) {
			reply2(c, "info-getnodeattr-response", "rc", "0", "found", "TRUE",
			       "value", val, (char *)NULL);
			free(c->wait_attr);
			c->wait_attr = NULL;
			client_flush(c);
		}
	}
}

static void take_abort(pmi_srv_t *s, client_t *c, int code, const char *msg)
{
	if (s->aborted)
		return;
	s->aborted = 1;
	s->abort_rank = c->rank;
	s->abort_code = code;
	s->abort_msg = xstrdup(msg ? msg : "");
}

/* PMI-1 (and the opening init of PMI-2). */
static void serve_v1(pmi_srv_t *s, client_t *c, const pmi_cmd_t *m)
{
	const char *cmd = pmi_cmd_name(m);
	strbuf_t *o = &c->out;
	char num[16];
	if (!strcmp(cmd, "init")) {
		const char *v = pmi_cmd_get(m, "pmi_version");
		if (v && atoi(v) == 2) {
			strbuf_addstr(o, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
			c->v2 = 1;
		} else {
			strbuf_addstr(o, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
		}
	} else if (!strcmp(cmd, "get_maxes")) {
		/* MPICH's line is 1024 bytes: "put kvsname= key= value=" fits */
		strbuf_addstr(o, "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=512\n");
	} else if (!strcmp(cmd, "get_universe_size")) {
		strbuf_addf(o, "cmd=universe_size rc=0 size=%u\n", s->st.total_tasks);
	} else if (!strcmp(cmd, "get_appnum")) {
		strbuf_addstr(o, "cmd=appnum rc=0 appnum=0\n");
	} else if (!strcmp(cmd, "get_my_kvsname")) {
		strbuf_addf(o, "cmd=my_kvsname rc=0 kvsname=%s\n", s->jobid);
	} else if (!strcmp(cmd, "put")) {
		const char *k = pmi_cmd_get(m, "key"), *v = pmi_cmd_get(m, "value");
		if (!k || !v)
			strbuf_addstr(o, "cmd=put_result rc=-1 msg=key_or_value_missing\n");
		else if (kvs_put(s, k, v) < 0)
			strbuf_addstr(o, "cmd=put_result rc=-1 msg=kvs_full\n");
		else
			strbuf_addstr(o, "cmd=put_result rc=0\n");
	} else if (!strcmp(cmd, "get")) {
		const char *k = pmi_cmd_get(m, "key"), *v = NULL;
		if (k && !(v = job_attr(s, k, num, sizeof(num))))
			v = kvs_get(s, k);
		if (v)
			strbuf_addf(o, "cmd=get_result rc=0 value=%s\n", v);
		else
			strbuf_addstr(o, "cmd=get_result rc=-1 msg=key_not_found\n");
	} else if (!strcmp(cmd, "barrier_in")) {
		c->in_fence = 1;
	} else if (!strcmp(cmd, "finalize")) {
		strbuf_addstr(o, "cmd=finalize_ack rc=0\n");
	} else if (!strcmp(cmd, "abort")) {
		const char *e = pmi_cmd_get(m, "exitcode");
		take_abort(s, c, e ? atoi(e) : 1, NULL);
	} else if (!strcmp(cmd, "spawn")) {
		strbuf_addstr(o, "cmd=spawn_result rc=-1 errmsg=spawn_not_supported\n");
	} else if (!strcmp(cmd, "publish_name")) {
		strbuf_addstr(o, "cmd=publish_result rc=-1 msg=not_supported\n");
	} else if (!strcmp(cmd, "unpublish_name")) {
		strbuf_addstr(o, "cmd=unpublish_result rc=-1 msg=not_supported\n");
	} else if (!strcmp(cmd, "lookup_name")) {
		strbuf_addstr(o, "cmd=lookup_result rc=-1 msg=not_supported\n");
	} else {
		strbuf_addstr(o, "cmd=error rc=-1 msg=unknown_command\n");
	}
}

static void serve_v2(pmi_srv_t *s, client_t *c, const pmi_cmd_t *m)
{
	const char *cmd = pmi_cmd_name(m);
	char num[16], rank[16], size[16];
	if (!strcmp(cmd, "fullinit")) {
		snprintf(rank, sizeof(rank), "%u", c->rank);
		snprintf(size, sizeof(size), "%u", s->st.total_tasks);
		reply2(c, "fullinit-response", "rc", "0", "pmi-version", "2", "pmi-subversion", "0",
		       "rank", rank, "size", size, "appnum", "0", "debugged", "FALSE",
		       "pmiverbose", "FALSE", (char *)NULL);
	} else if (!strcmp(cmd, "job-getid")) {
		reply2(c, "job-getid-response", "rc", "0", "jobid", s->jobid, (char *)NULL);
	} else if (!strcmp(cmd, "info-getjobattr")) {
		const char *k = pmi_cmd_get(m, "key");
		const char *v = k ? job_attr(s, k, num, sizeof(num)) : NULL;
		if (v)
			reply2(c, "info-getjobattr-response", "rc", "0", "found", "TRUE", "value", v,
			       (char *)NULL);
		else
			reply2(c, "info-getjobattr-response", "rc", "0", "found", "FALSE", (char *)NULL);
	} else if (!strcmp(cmd, "kvs-put")) {
		const char *k = pmi_cmd_get(m, "key"), *v = pmi_cmd_get(m, "value");
		if (!k || !v)
			reply2(c, "kvs-put-response", "rc", "-1", "errmsg", "key or value missing",
			       (char *)NULL);
		else if (kvs_put(s, k, v) < 0)
			reply2(c, "kvs-put-response", "rc", "-1", "errmsg", "the step's KVS is full",
			       (char *)NULL);
		else
			reply2(c, "kvs-put-response", "rc", "0", (char *)NULL);
	} else if (!strcmp(cmd, "kvs-fence")) {
		c->in_fence = 1;
	} else if (!strcmp(cmd, "kvs-get")) {
		const char *k = pmi_cmd_get(m, "key");
		const char *v = k ? kvs_get(s, k) : NULL;
		if (v)
			reply2(c, "kvs-get-response", "rc", "0", "found", "TRUE", "value", v,
			       (char *)NULL);
		else
			reply2(c, "kvs-get-response", "rc", "0", "found", "FALSE", (char *)NULL);
	} else if (!strcmp(cmd, "info-putnodeattr")) {
		const char *k = pmi_cmd_get(m, "key"), *v = pmi_cmd_get(m, "value");
		if (k && v) {
			reply2(c, "info-putnodeattr-response", "rc", "0", (char *)NULL);
			attr_put(s, k, v);
		} else {
			reply2(c, "info-putnodeattr-response", "rc", "-1", "errmsg",
			       "key or value missing", (char *)NULL);
		}
	} else if (!strcmp(cmd, "info-getnodeattr")) {
		const char *k = pmi_cmd_get(m, "key"), *w = pmi_cmd_get(m, "wait");
		kv_t **p = k ? kv_find(&s->attrs, k) : NULL;
		if (p && *p) {
			reply2(c, "info-getnodeattr-response", "rc", "0", "found", "TRUE",
			       "value", (*p)->val, (char *)NULL);
		} else if (k && w && !strcmp(w, "TRUE")) {
			free(c->wait_attr);
			c->wait_attr = xstrdup(k);     /* answered by its put */
		} else {
			reply2(c, "info-getnodeattr-response", "rc", "0", "found", "FALSE",
			       (char *)NULL);
		}
	} else if (!strcmp(cmd, "finalize")) {
		reply2(c, "finalize-response", "rc", "0", (char *)NULL);
	} else if (!strcmp(cmd, "abort")) {
		take_abort(s, c, 1, pmi_cmd_get(m, "msg"));
	} else if (!strcmp(cmd, "spawn")) {
		reply2(c, "spawn-response", "rc", "-1", "errmsg",
		       "spawn is not supported by this process manager", (char *)NULL);
	} else {
		char resp[64];
		snprintf(resp, sizeof(resp), "%.40s-response", *cmd ? cmd : "error");
		reply2(c, resp, "rc", "-1", "errmsg", "unsupported command", (char *)NULL);
	}
}

void pmi_srv_io(pmi_srv_t *s, int fd, short revents)
{
	client_t *c = NULL;
	for (uint32_t i = 0; i < s->st.ntasks && !c; i++)
		if (s->c[i].fd == fd)
			c = &s->c[i];
	if (!c)
		return;
	if (revents & POLLOUT)
		client_flush(c);
	if (c->fd < 0 || !(revents & (POLLIN | POLLHUP | POLLERR)) ||
	    c->out.len - c->outoff >= PMI_OUT_MAX)
		goto out;
	char buf[8192];
	ssize_t got = recv(c->fd, buf, sizeof(buf), 0);
	if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		goto out;
	if (got <= 0) {
		client_close(c);      /* the task is gone or closed PMI */
		goto out;
	}
	strbuf_add(&c->in, buf, (size_t)got);
	size_t off = 0;
	while (c->fd >= 0 && off < c->in.len) {
		pmi_cmd_t m;
		ssize_t took = pmi_wire_take(c->in.buf + off, c->in.len - off, c->v2, &m);
		if (took == 0)
			break;
		if (took < 0) {
			error("step %s: PMI: rank %u sent what is no PMI command: closing its PMI",
			      s->jobid, c->rank);
			client_close(c);
			break;
		}
		off += (size_t)took;
		if (c->v2)
			serve_v2(s, c, &m);
		else
			serve_v1(s, c, &m);
		pmi_cmd_free(&m);
	}
	if (c->fd >= 0) {
		memmove(c->in.buf, c->in.buf + off, c->in.len - off);
		strbuf_setlen(&c->in, c->in.len - off);
		client_flush(c);
	}
out:
	fence_check(s);
}

int pmi_srv_abort_taken(pmi_srv_t *s, uint32_t *rank, int *code, const char **msg)
{
	if (!s->aborted || s->abort_told)
		return 0;
	s->abort_told = 1;
	*rank = s->abort_rank;
	*code = s->abort_code;
	*msg = s->abort_msg;
	return 1;
}
