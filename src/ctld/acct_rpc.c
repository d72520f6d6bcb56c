/*
 * acct_rpc.c: MSG_ACCT_REQ, the one request of sacct, sacctmgr, sreport
 * and sshare, dispatched by operation.
 *
 * An operation is either a loop operation (it reads or changes the
 * in-memory model: sacctmgr, sshare; a change is committed with the turn
 * like any other) or a store read (sacct, sreport: SQL over records that
 * may be millions). Store reads run with their own read-only connection
 * to the state DB (WAL: readers never block the writer), so that they
 * never run inside the loop's transaction.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "errors.h"
#include "log.h"
#include "xalloc.h"

static const struct acct_op_def {
	uint32_t op;
	acct_loop_f loop;         /* one of the two */
	acct_read_f read;
} ops[] = {
	{ ACCT_OP_NONE, NULL, NULL },
	{ ACCT_OP_SSHARE, acct_sshare, NULL },
	{ ACCT_OP_SREPORT, NULL, acct_sreport },
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

void acct_reply_cellf(msg_acct_reply_t *r, const char *fmt, ...)
{
	va_list ap;
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

/* The read-only connection of store reads (opened on first use). */
static sqlite3 *reader_db(ctld_t *cd, char **err)
{
	static sqlite3 *ro;
	if (ro)
		return ro;
	if (sqlite3_open_v2(cd->db_path, &ro, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		*err = xasprintf("cannot open '%s' for reading: %s", cd->db_path,
				 ro ? sqlite3_errmsg(ro) : "out of memory");
		sqlite3_close(ro);
		ro = NULL;
		return NULL;
	}
	sqlite3_busy_timeout(ro, 5000);
	return ro;
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
	} else if (d->loop) {
		d->loop(cd, req, uid, &r);
	} else {
		char *err = NULL;
		sqlite3 *db = reader_db(cd, &err);
		if (!db) {
			r.rc = SLURM_ERROR;
			r.msg = err;
		} else {
			acct_read_ctx_t ctx = {
				.uid = uid, .admin_level = acct_admin_level(cd, uid),
				.cluster = cd->acct.cluster, .now = ctld_now(),
			};
			d->read(db, &ctx, req, &r);
		}
	}
	conn_send(c, MSG_ACCT_REPLY, &r);
	reply_free(&r);
}

void acct_rpc_conn_closed(ctld_t *cd, conn_t *c)
{
	(void)cd;
	(void)c;
}
