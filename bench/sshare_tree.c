/*
 * sshare_tree: times what the controller does for `sshare -a` on a tree of
 * 1,000 users (50 accounts of 20 users under root, random usage): the
 * Fair Tree pass over the whole tree (sched_fairshare) and the whole
 * ACCT_OP_SSHARE answer (the tree copied from the model, the factors, the
 * rows formatted), each after a change of the tree so that nothing is
 * cached; and the answer `sshare -a` gets as the command asks for it (only
 * the columns it prints, packed): made once, then kept while nothing
 * changed (acct_sshare_frame). The command's own cost (process start, one request, printing) is
 * measured end to end by bench/acct_reports.sh.
 *
 * Usage: sshare_tree [users]    (default 1000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "sched/sched_fairshare.h"
#include "xalloc.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint32_t users = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000, per = 20;
	uint32_t accts = (users + per - 1) / per, n = 1 + accts + users;
	char dir[] = "/tmp/sshare_tree.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char *cpath = xasprintf("%s/slurm.conf", dir), *db = xasprintf("%s/state.db", dir);
	FILE *f = fopen(cpath, "w");
	fprintf(f, "ClusterName=bench\nSlurmctldHost=localhost\nNodeName=n1 CPUs=8\n"
		   "PartitionName=p Nodes=n1 Default=YES\n");
	fclose(f);
	ctld_t cd;
	memset(&cd, 0, sizeof(cd));
	cd.conf = conf_load(cpath, CONF_CLIENT);
	char *err = NULL;
	if (!cd.conf || db_open(&cd, db, &err)) {
		fprintf(stderr, "sshare_tree: %s\n", err ? err : "config");
		return 1;
	}
	cd.acct.cluster = (char *)"bench";
	cd.acct.nassocs = n;
	cd.acct.assocs = xcalloc(n, sizeof(acct_assoc_t));
	srand(1);
	for (uint32_t i = 0; i < n; i++) {
		acct_assoc_t *a = &cd.acct.assocs[i];
		a->id = i + 1;
		a->shares_raw = 1 + (uint32_t)(rand() % 4);
		a->uid = UINT32_MAX;
		if (i == 0) {
			a->account = xstrdup("root");
		} else if (i <= accts) {
			a->parent_id = 1;
			a->account = xasprintf("acct%03u", i);
		} else {
			uint32_t k = 1 + (i - accts - 1) / per;
			a->parent_id = k + 1;
			a->account = xasprintf("acct%03u", k);
			a->user = xasprintf("user%04u", i - accts);
			a->uid = 10000 + i;
			a->usage_raw = (double)(rand() % 1000000);
		}
		lim_set_clear(&a->lim);
	}
	/* subtree usage */
	for (uint32_t i = n; i-- > 1;)
		cd.acct.assocs[cd.acct.assocs[i].parent_id - 1].usage_raw += cd.acct.assocs[i].usage_raw;

	sched_assoc_t *s = xcalloc(n, sizeof(*s));
	double t_fs[21], t_ss[21], t_sl[21];
	size_t rows = 0;
	for (int r = 0; r < 21; r++) {
		for (uint32_t i = 0; i < n; i++) {
			const acct_assoc_t *a = &cd.acct.assocs[i];
			s[i] = (sched_assoc_t){ .id = a->id, .parent = i ? (int32_t)a->parent_id - 1 : -1,
				.is_user = a->user != NULL, .shares_raw = a->shares_raw,
				.usage_raw = a->usage_raw };
		}
		double a = now_ms();
		sched_fairshare(s, n, SCHED_FS_FAIR_TREE, 1);
		t_fs[r] = now_ms() - a;

		cd.acct.gen++;    /* the tree changed: nothing cached */
		msg_acct_req_t req = { .op = ACCT_OP_SSHARE };
		strv_push(&req.args, "all=1");
		msg_acct_reply_t out = { 0 };
		a = now_ms();
		acct_sshare(&cd, &req, 0, &out);
		t_ss[r] = now_ms() - a;
		rows = out.cols.n ? out.cells.n / out.cols.n : 0;
		strv_free(&req.args);
		proto_free(MSG_ACCT_REPLY, &out);

		/* plain `sshare -a` asks for no TRES columns */
		cd.acct.gen++;
		memset(&req, 0, sizeof(req));
		req.op = ACCT_OP_SSHARE;
		strv_push(&req.args, "all=1");
		strv_push(&req.args, "tres=0");
		memset(&out, 0, sizeof(out));
		a = now_ms();
		acct_sshare(&cd, &req, 0, &out);
		t_sl[r] = now_ms() - a;
		strv_free(&req.args);
		proto_free(MSG_ACCT_REPLY, &out);
	}
	/* the kept answer (acct_sshare_frame), as the command asks for it:
	 * made once, then served while nothing changed */
	double t_kept[21];
	for (int r = 0; r < 21; r++) {
		msg_acct_req_t req = { .op = ACCT_OP_SSHARE };
		strv_push(&req.args, "cols=depth,user,account,raw_shares,norm_shares,raw_usage,"
				     "eff_usage,fairshare");
		strv_push(&req.args, "all=1");
		strbuf_t f = STRBUF_INIT;
		double a = now_ms();
		acct_sshare_frame(&cd, &req, 0, &f);
		t_kept[r] = now_ms() - a;
		strbuf_release(&f);
		strv_free(&req.args);
	}
	acct_sshare_cache_free(&cd);
	qsort(t_kept + 1, 20, sizeof(double), dcmp);
	qsort(t_sl, 21, sizeof(double), dcmp);
	qsort(t_fs, 21, sizeof(double), dcmp);
	qsort(t_ss, 21, sizeof(double), dcmp);
	printf("sshare_tree users=%u assocs=%u rows=%zu fair_tree_ms=%.3f sshare_a_answer_ms=%.3f"
	       " sshare_al_answer_ms=%.3f sshare_a_made_ms=%.3f sshare_a_kept_ms=%.3f\n", users, n,
	       rows, t_fs[10], t_sl[10], t_ss[10], t_kept[0], t_kept[11]);
	db_close(&cd);
	for (uint32_t i = 0; i < n; i++) {
		free(cd.acct.assocs[i].account);
		free(cd.acct.assocs[i].user);
	}
	free(cd.acct.assocs);
	free(s);
	conf_destroy(cd.conf);
	char *rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm)) {
	}
	free(rm);
	free(cpath);
	free(db);
	return 0;
}
