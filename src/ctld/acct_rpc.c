/*
 * acct_rpc.c: MSG_ACCT_REQ, the one request of sacct, sacctmgr, sreport
 * and sshare, dispatched by operation.
 *
 * An operation is either a loop operation (it reads or changes the
 * in-memory model: sacctmgr, sshare; a change is committed with the turn
 * like any other) or a store read (sacct, sreport: SQL over records that
 * may be millions). Store reads run on a reader thread with its own
 * read-only connection to the state DB (WAL: readers never block the
 * writer), so a heavy query never lengthens a loop turn.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ctld.h"
#include "errors.h"
#include "log.h"
#include "xalloc.h"

static const struct acct_op_def {
	uint32_t op;
	acct_loop_f loop;         /* one of the two */
	acct_read_f read;
	/* optional, used instead of loop: the answer encoded (kept answers) */
	void (*frame)(struct ctld *cd, const msg_acct_req_t *req, uint32_t uid, strbuf_t *frame);
} ops[] = {
	{ ACCT_OP_NONE, NULL, NULL, NULL },
	{ ACCT_OP_SACCT, NULL, acct_sacct_read, NULL },
	{ ACCT_OP_MGR, acct_mgr_op, NULL, NULL },
	{ ACCT_OP_SSHARE, acct_sshare, NULL, acct_sshare_frame },
	{ ACCT_OP_SREPORT, NULL, acct_sreport, NULL },
	{ ACCT_OP_WHY, why_op, NULL, NULL },
};

const char *acct_arg(const msg_acct_req_t *req, const char *key)
{
	size_t kl = strlen(key);
	for (uint32_t i = 0; i < req->args.n; i++) {
		const char *a = req->args.v[i];
		if (a && !strncmp(a, key, kl) && a[kl] == '=')
			return a + kl + 1;
	}
	return NULL;
}

void acct_reply_col(msg_acct_reply_t *r, const char *name)
{
	strv_push(&r->cols, name);
}

void acct_reply_cell(msg_acct_reply_t *r, const char *value)
{
	strv_push(&r->cells, value ? value : "");
}

int acct_fmt_f6(char *buf, double v)
{
	/* v * 1e6 rounded to the nearest integer n, checked exactly: fma
	 * rounds v * 1e6 - (n -/+ 0.5) once, so its sign is the exact one;
	 * a tie, a negative value (-0.0 too) or one too large for an exact
	 * n goes to printf. */
	if (!(v >= 0 && v < 1e9) || signbit(v))
		return snprintf(buf, ACCT_F6_LEN, "%f", v);
	double n = nearbyint(v * 1e6);
	double lo = fma(v, 1e6, -(n - 0.5)), hi = fma(v, 1e6, -(n + 0.5));
	if (!(lo > 0 && hi < 0))
		return snprintf(buf, ACCT_F6_LEN, "%f", v);
	uint64_t u = (uint64_t)n, ip = u / 1000000, fp = u % 1000000;
	char tmp[24];
	int k = 0;
	do
		tmp[k++] = (char)('0' + ip % 10);
	while ((ip /= 10));
	int len = 0;
	while (k)
		buf[len++] = tmp[--k];
	buf[len++] = '.';
	for (int d = 5; d >= 0; d--, fp /= 10)
		buf[len + d] = (char)('0' + fp % 10);
	len += 6;
	buf[len] = 0;
	return len;
}

void acct_reply_cell_f6(msg_acct_reply_t *r, double v)
{
	char buf[ACCT_F6_LEN];
	acct_fmt_f6(buf, v);
	strv_push(&r->cells, buf);
}

void acct_reply_cellf(msg_acct_reply_t *r, const char *fmt, ...)
{
	/* a report's numbers: formatted once, on the stack (one reply may
	 * hold tens of thousands of cells) */
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(buf)) {
		strv_push(&r->cells, buf);
		return;
	}
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	strv_push(&r->cells, s);
	free(s);
}

static void reply_free(msg_acct_reply_t *r)
{
	proto_free(MSG_ACCT_REPLY, r);
}

void acct_reply_frame(strbuf_t *frame, msg_acct_reply_t *r)
{
	size_t at = frame->len;
	char *err = NULL;
	if (!net_frame_encode(frame, MSG_ACCT_REPLY, r, &err))
		return;
	/* Too big for one frame: say so instead. */
	msg_acct_reply_t e = { .rc = SLURM_ERROR };
	e.msg = xasprintf("the answer is too large (%s); narrow the query", err);
	free(err);
	err = NULL;
	strbuf_setlen(frame, at);
	if (net_frame_encode(frame, MSG_ACCT_REPLY, &e, &err))
		free(err);
	free(e.msg);
}

/* ---- the reader thread ----
 *
 * Store reads run on one worker thread with its own read-only connection
 * (WAL: it never blocks the loop's writes, and sees only committed
 * turns). The loop queues a job (the request taken over, a copy of the
 * context, the conn); the worker runs the read function, encodes the
 * reply frame and posts the job back through an eventfd that the loop
 * watches; the loop hands the frame to the conn (held until the turn's
 * commit, as every reply). A conn that closed meanwhile has its jobs'
 * conn cleared (acct_rpc_conn_closed) and their answers are dropped.
 * Jobs waiting for the worker are bounded (ACCT_READ_QUEUE_MAX). */

#define ACCT_READ_QUEUE_MAX 64

struct read_job {
	struct read_job *next;
	conn_t *c;                /* NULL once the conn closed (loop only) */
	acct_read_f fn;
	msg_acct_req_t req;       /* taken over from the conn layer */
	acct_read_ctx_t ctx;      /* ctx.cluster: own copy */
	strbuf_t frame;           /* the encoded reply (worker) */
};

struct acct_reader {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct read_job *todo, **todo_tail;   /* for the worker */
	size_t ntodo;
	struct read_job *busy;                /* the worker's current job */
	struct read_job *done, **done_tail;   /* back to the loop */
	int efd;
	int stop;
	char *db_path;
	sqlite3 *db;                          /* the worker's */
};

static void read_job_free(struct read_job *rj)
{
	proto_free(MSG_ACCT_REQ, &rj->req);
	free((char *)rj->ctx.cluster);
	strbuf_release(&rj->frame);
	free(rj);
}

/* The worker's connection (opened on first use, kept). */
static sqlite3 *reader_db(struct acct_reader *rd, char **err)
{
	if (rd->db)
		return rd->db;
	if (sqlite3_open_v2(rd->db_path, &rd->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL)
	    != SQLITE_OK) {
		*err = xasprintf("cannot open '%s' for reading: %s", rd->db_path,
				 rd->db ? sqlite3_errmsg(rd->db) : "out of memory");
		sqlite3_close(rd->db);
		rd->db = NULL;
		return NULL;
	}
	/* A checkpoint may hold the WAL index briefly. */
	sqlite3_busy_timeout(rd->db, 5000);
	return rd->db;
}

static void reader_run(struct acct_reader *rd, struct read_job *rj)
{
	msg_acct_reply_t r = { 0 };
	char *err = NULL;
	sqlite3 *db = reader_db(rd, &err);
	if (!db) {
		r.rc = SLURM_ERROR;
		r.msg = err;
	} else {
		rj->fn(db, &rj->ctx, &rj->req, &r);
	}
	acct_reply_frame(&rj->frame, &r);
	reply_free(&r);
}

static void *reader_main(void *arg)
{
	struct acct_reader *rd = arg;
	pthread_mutex_lock(&rd->mu);
	for (;;) {
		while (!rd->todo && !rd->stop)
			pthread_cond_wait(&rd->cv, &rd->mu);
		if (rd->stop)
			break;
		struct read_job *rj = rd->todo;
		rd->todo = rj->next;
		if (!rd->todo)
			rd->todo_tail = &rd->todo;
		rd->ntodo--;
		rj->next = NULL;
		rd->busy = rj;
		pthread_mutex_unlock(&rd->mu);
		reader_run(rd, rj);
		pthread_mutex_lock(&rd->mu);
		rd->busy = NULL;
		*rd->done_tail = rj;
		rd->done_tail = &rj->next;
		uint64_t one = 1;
		ssize_t n = write(rd->efd, &one, sizeof(one));
		(void)n;              /* a full counter still wakes the loop */
	}
	pthread_mutex_unlock(&rd->mu);
	sqlite3_close(rd->db);
	rd->db = NULL;
	return NULL;
}

/* The loop: answers are ready. */
static void reader_done_cb(loop_t *l, int fd, uint32_t events, void *arg)
{
	struct acct_reader *rd = arg;
	uint64_t v;
	ssize_t n = read(fd, &v, sizeof(v));
	(void)n;
	(void)l;
	(void)events;
	pthread_mutex_lock(&rd->mu);
	struct read_job *list = rd->done;
	rd->done = NULL;
	rd->done_tail = &rd->done;
	pthread_mutex_unlock(&rd->mu);
	while (list) {
		struct read_job *rj = list;
		list = rj->next;
		if (rj->c)
			conn_send_frame(rj->c, &rj->frame);
		read_job_free(rj);
	}
}

static struct acct_reader *reader_get(ctld_t *cd, char **err)
{
	if (cd->reader)
		return cd->reader;
	struct acct_reader *rd = xcalloc(1, sizeof(*rd));
	rd->todo_tail = &rd->todo;
	rd->done_tail = &rd->done;
	rd->db_path = xstrdup(cd->db_path);
	rd->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rd->efd < 0 || loop_add_fd(cd->loop, rd->efd, LOOP_READ, reader_done_cb, rd)) {
		*err = xasprintf("accounting reader: %s", strerror(errno));
		goto fail;
	}
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv, NULL);
	/* The worker takes no signals: the loop's signalfd must get them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&rd->th, NULL, reader_main, rd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		*err = xasprintf("accounting reader: cannot start a thread: %s", strerror(rc));
		loop_del_fd(cd->loop, rd->efd);
		pthread_mutex_destroy(&rd->mu);
		pthread_cond_destroy(&rd->cv);
		goto fail;
	}
	cd->reader = rd;
	return rd;
fail:
	if (rd->efd >= 0)
		close(rd->efd);
	free(rd->db_path);
	free(rd);
	return NULL;
}

void acct_rpc_shutdown(ctld_t *cd)
{
	acct_sshare_cache_free(cd);
	struct acct_reader *rd = cd->reader;
	if (!rd)
		return;
	pthread_mutex_lock(&rd->mu);
	rd->stop = 1;
	pthread_cond_signal(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	pthread_join(rd->th, NULL);
	for (struct read_job *l = rd->todo, *n; l; l = n) {
		n = l->next;
		read_job_free(l);
	}
	for (struct read_job *l = rd->done, *n; l; l = n) {
		n = l->next;
		read_job_free(l);
	}
	loop_del_fd(cd->loop, rd->efd);
	close(rd->efd);
	pthread_mutex_destroy(&rd->mu);
	pthread_cond_destroy(&rd->cv);
	free(rd->db_path);
	free(rd);
	cd->reader = NULL;
}

/* Queue a store read; 0, or -1 with r filled with the refusal. */
static int reader_queue(ctld_t *cd, conn_t *c, const struct acct_op_def *d,
			msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *r)
{
	char *err = NULL;
	struct acct_reader *rd = reader_get(cd, &err);
	if (!rd) {
		r->rc = SLURM_ERROR;
		r->msg = err;
		return -1;
	}
	pthread_mutex_lock(&rd->mu);
	size_t waiting = rd->ntodo;
	pthread_mutex_unlock(&rd->mu);
	if (waiting >= ACCT_READ_QUEUE_MAX) {
		r->rc = SLURM_ERROR;
		r->msg = xasprintf("too many accounting queries are waiting (%d); try again later",
				   ACCT_READ_QUEUE_MAX);
		return -1;
	}
	struct read_job *rj = xcalloc(1, sizeof(*rj));
	rj->c = c;
	rj->fn = d->read;
	rj->req = *req;                       /* taken over */
	memset(req, 0, sizeof(*req));
	rj->ctx.uid = uid;
	rj->ctx.admin_level = acct_admin_level(cd, uid);
	rj->ctx.cluster = xstrdup(cd->acct.cluster ? cd->acct.cluster : cd->conf->cluster_name);
	rj->ctx.now = ctld_now();
	rj->frame = (strbuf_t)STRBUF_INIT;
	pthread_mutex_lock(&rd->mu);
	*rd->todo_tail = rj;
	rd->todo_tail = &rj->next;
	rd->ntodo++;
	pthread_cond_signal(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	return 0;
}

void acct_rpc(ctld_t *cd, conn_t *c, msg_acct_req_t *req, uint32_t uid)
{
	const struct acct_op_def *d = NULL;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == req->op && (ops[i].loop || ops[i].read))
			d = &ops[i];
	msg_acct_reply_t r = { 0 };
	if (!d) {
		r.rc = SLUICE_E_PROTOCOL;
		r.msg = xasprintf("unknown accounting operation %u", req->op);
	} else if (d->frame) {
		strbuf_t f = STRBUF_INIT;
		d->frame(cd, req, uid, &f);
		conn_send_frame(c, &f);
		strbuf_release(&f);
		return;
	} else if (d->loop) {
		d->loop(cd, req, uid, &r);
	} else if (reader_queue(cd, c, d, req, uid, &r) == 0) {
		return;                   /* answered when the reader is done */
	}
	conn_send(c, MSG_ACCT_REPLY, &r);
	reply_free(&r);
}

void acct_rpc_conn_closed(ctld_t *cd, conn_t *c)
{
	struct acct_reader *rd = cd->reader;
	if (!rd)
		return;
	pthread_mutex_lock(&rd->mu);
	for (struct read_job *l = rd->todo; l; l = l->next)
		if (l->c == c)
			l->c = NULL;
	if (rd->busy && rd->busy->c == c)
		rd->busy->c = NULL;
	for (struct read_job *l = rd->done; l; l = l->next)
		if (l->c == c)
			l->c = NULL;
	pthread_mutex_unlock(&rd->mu);
}
