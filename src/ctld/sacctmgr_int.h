/*
 * sacctmgr_int.h: the server side of sacctmgr (ACCT_OP_MGR), shared by
 * sacctmgr_rpc.c (parsing, add, modify), sacctmgr_del.c (delete, load) and
 * sacctmgr_show.c (show/list, dump).
 *
 * The request's args: "verb=add|modify|delete|show|dump|load",
 * "entity=account|user|qos|association|cluster|coordinator",
 * "commit=0|1" (0: report what would change, change nothing; the client
 * asks "Would you like to commit changes?" and sends it again with 1),
 * "n=NAME" (a bare word: names), "w=Key=Value" (a condition),
 * "s=Key=Value" (a setting; Key may end in + or -: QOS+=x), "o=withassoc",
 * "o=withcoord", "o=tree". The reply of a change: cols "out","err" and one
 * row (sacctmgr's stdout and stderr texts), rc 0, ACCT_MGR_NOTHING (exit
 * 1, text on stdout) or an errors.h number. Of a show: one column per
 * field (the names of sacctmgr_show.c), the client formats them.
 */
#ifndef SLUICE_CTLD_SACCTMGR_INT_H
#define SLUICE_CTLD_SACCTMGR_INT_H

#include "ctld.h"
#include "strbuf.h"

typedef struct mgr_req {
	const char *verb, *entity;
	int commit;
	strv_t names;
	strv_t wk, wv;            /* where: keys (as typed), values */
	strv_t sk, sv;            /* set */
	int withassoc, withcoord, tree;
	uint32_t uid;
	uint32_t level;           /* the caller's AdminLevel */
	int load;                 /* a line of sacctmgr load (mgr_load) */
} mgr_req_t;

/* The answer of a change: stdout and stderr texts, and the rc. */
typedef struct mgr_out {
	strbuf_t out, err;
	int rc;
} mgr_out_t;

/* Association settings of a request, parsed (sacctmgr_rpc.c). */
#define NLIM (sizeof(lim_set_t) / sizeof(uint64_t))
typedef struct assoc_set {
	lim_set_t lim;            /* given values (LIM_UNSET: cleared) */
	uint8_t given[NLIM];
	int shares_given, prio_given, defqos_given;
	uint32_t shares, prio, defqos;
	int qos_op;               /* 0, '=', '+', '-' */
	uint32_t *qos;
	uint32_t nqos;
	strbuf_t report;          /* "  MaxJobs       = 5\n" lines */
	int any;
} assoc_set_t;

/* sacctmgr_rpc.c: shared by the verbs */
int mgr_fail(mgr_out_t *o, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* sacctmgr's listing of what a change is about: " TITLE\n" and each name
 * on its own line ("  name"). */
void mgr_list(mgr_out_t *o, const char *title, const strv_t *names);
/* Nothing to add: " Nothing new added." and its exit status. */
void mgr_nothing_new(mgr_out_t *o);
void mgr_denied_change(mgr_out_t *o);
void mgr_req_free(mgr_req_t *m);
void mgr_split_into(strv_t *out, const char *v);
/* One association option (Key[+-]=value) into s: 1 if it is one, 0 if not
 * an association option, -1 on a bad value (o has the error). */
int mgr_assoc_opt(ctld_t *cd, assoc_set_t *s, const char *key, const char *v, mgr_out_t *o);
/* sacctmgr_assoc_set.c: apply s to a (whose inherited QOS list += and -=
 * start from). */
void mgr_assoc_apply(ctld_t *cd, acct_assoc_t *a, const assoc_set_t *s);
/* Is id one of v[0..n). */
int mgr_has_id(const uint32_t *v, uint32_t n, uint32_t id);
/* The QOS list association a may use once s is applied (a NULL: a new
 * association under parent), inheritance included: malloc'd, *n long. */
uint32_t *mgr_qos_after(ctld_t *cd, const acct_assoc_t *a, const acct_assoc_t *parent,
			const assoc_set_t *s, uint32_t *n);
void mgr_assoc_set_free(assoc_set_t *s);
/* The verbs (m->commit 0: report only) */
void mgr_add_account(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_add_user(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_add_coord(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_modify_account(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_modify_user(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
/* sacctmgr_coord.c: may a coordinator (a caller below Operator let in
 * by coordinating the account) set s on association a (NULL: one she
 * adds under parent)? NULL if so, else why not (malloc'd text for her
 * stderr, after the refusal the verb prints): a QOS named or newly
 * usable that the account she coordinates cannot use, a limit above what
 * binds the parent, a Priority above the parent's. */
char *mgr_coord_refusal(ctld_t *cd, const mgr_req_t *m, const acct_assoc_t *a,
			const acct_assoc_t *parent, const assoc_set_t *s);
/* sacctmgr's DefaultQOS rule: the DefaultQOS s gives a (or a's own one,
 * when s changes its QOS) must be a QOS a may use after s. 1 if so, else
 * 0 with sacctmgr's line for a added to bad (a NULL: the association of
 * user (NULL: the account acct) to be added under parent). */
int mgr_defqos_ok(ctld_t *cd, const acct_assoc_t *a, const acct_assoc_t *parent, const char *acct,
		  const char *user, const assoc_set_t *s, strbuf_t *bad);
/* The refusal of those lines, as sacctmgr words it (rc SLURM_ERROR). */
void mgr_defqos_refuse(mgr_out_t *o, const strbuf_t *bad);
/* sacctmgr_del.c */
void mgr_delete_user(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_delete_account(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_delete_qos(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_delete_coord(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o);
void mgr_load(ctld_t *cd, const msg_acct_req_t *req, mgr_req_t *m, mgr_out_t *o);

/* The values of where-key k (any of its names, comma lists split) into
 * out; 1 if the key was given. Names: '|' separated alternatives. */
int mgr_where(const mgr_req_t *m, const char *names, strv_t *out);
int mgr_key_is(const char *k, const char *names);
int mgr_strv_has_ci(const strv_t *sv, const char *s);

/* Show and dump (sacctmgr_show.c). */
void mgr_show(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *out);
void mgr_dump(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *out);
/* The association tree in order (account, its users, its sub-accounts,
 * names sorted): indexes into cd->acct.assocs, and each one's depth. */
uint32_t *mgr_tree_order(ctld_t *cd, uint32_t **depth);
/* A QOS list as names ("a3qos,normal": sorted by name). */
void mgr_qos_names(ctld_t *cd, strbuf_t *sb, const uint32_t *ids, uint32_t n);

#endif
