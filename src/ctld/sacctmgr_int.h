/*
 * sacctmgr_int.h: the server side of sacctmgr (ACCT_OP_MGR), shared by
 * sacctmgr_rpc.c (parsing, add, modify, delete, load) and sacctmgr_show.c
 * (show/list, dump).
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
} mgr_req_t;

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
