/*
 * sacctmgr: view and change accounts, users, associations, QOS and
 * coordinators, as Slurm's sacctmgr (man sacctmgr).
 *
 *   sacctmgr [-inpPsQ] add|modify|delete|show|dump|load ENTITY [names]
 *            [where COND...] [set KEY=VALUE...] [format=F%W,...]
 *
 * The controller does the work (ACCT_OP_MGR, ctld/sacctmgr_int.h): for a
 * change it answers what would change; without -i this asks "Would you
 * like to commit changes?" and sends it again to commit. show gets every
 * column by name and is formatted here: format= with widths, -n, -p, -P,
 * tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "net.h"
#include "proto.h"
#include "strbuf.h"
#include "xalloc.h"

/* A column sacctmgr can show: the names format= takes (the first is
 * matched by prefix too), its header and default width, the server's
 * column. */
typedef struct mfield {
	const char *names;        /* "MaxTRESPerUser|MaxTRESPU" */
	const char *header;
	int width;
	const char *col;
} mfield_t;

static const mfield_t assoc_fields[] = {
	{ "Cluster", "Cluster", 10, "Cluster" },
	{ "Account|Acct", "Account", 10, "Account" },
	{ "User", "User", 10, "User" },
	{ "Partition", "Partition", 10, "Partition" },
	{ "Fairshare|Share|Shares", "Share", 9, "Share" },
	{ "Priority", "Priority", 10, "Priority" },
	{ "GrpJobs", "GrpJobs", 7, "GrpJobs" },
	{ "GrpTRES", "GrpTRES", 13, "GrpTRES" },
	{ "GrpSubmitJobs|GrpSubmit", "GrpSubmit", 9, "GrpSubmit" },
	{ "GrpWall", "GrpWall", 11, "GrpWall" },
	{ "GrpTRESMins", "GrpTRESMins", 13, "GrpTRESMins" },
	{ "MaxJobs", "MaxJobs", 7, "MaxJobs" },
	{ "MaxTRES|MaxTRESPerJob", "MaxTRES", 13, "MaxTRES" },
	{ "MaxTRESPerNode", "MaxTRESPerNode", 14, "MaxTRESPerNode" },
	{ "MaxSubmitJobs|MaxSubmit", "MaxSubmit", 9, "MaxSubmit" },
	{ "MaxWall|MaxWallDurationPerJob", "MaxWall", 11, "MaxWall" },
	{ "MaxTRESMins|MaxTRESMinsPerJob", "MaxTRESMins", 13, "MaxTRESMins" },
	{ "QOS", "QOS", 20, "QOS" },
	{ "DefaultQOS|DefQOS", "Def QOS", 9, "DefQOS" },
	{ "GrpTRESRunMins|GrpTRESRunMin", "GrpTRESRunMin", 13, "GrpTRESRunMins" },
	{ "ParentName", "ParentName", 10, "ParentName" },
	{ "ParentID", "Par ID", 6, "ParentID" },
	{ "ID|AssocID", "ID", 6, "ID" },
	{ "GrpCPUs", "GrpCPUs", 8, "GrpCPUs" },
	{ "GrpNodes", "GrpNodes", 8, "GrpNodes" },
	{ "GrpMem", "GrpMem", 7, "GrpMem" },
	{ "GrpCPUMins", "GrpCPUMins", 11, "GrpCPUMins" },
	{ "MaxCPUs", "MaxCPUs", 8, "MaxCPUs" },
	{ "MaxNodes", "MaxNodes", 8, "MaxNodes" },
	{ "MaxCPUMins", "MaxCPUMins", 11, "MaxCPUMins" },
};

static const mfield_t user_fields[] = {
	{ "User|Name", "User", 10, "User" },
	{ "DefaultAccount|DefAcct", "Def Acct", 10, "DefAcct" },
	{ "AdminLevel|Admin", "Admin", 9, "Admin" },
	{ "Coordinators|CoordAccounts|Coord", "Coord Accounts", 20, "CoordAccounts" },
};

static const mfield_t account_fields[] = {
	{ "Account|Name", "Account", 10, "Account" },
	{ "Description|Descr", "Descr", 20, "Descr" },
	{ "Organization|Org", "Org", 20, "Org" },
	{ "Coordinators|Coord", "Coord Users", 20, "Coordinators" },
};

static const mfield_t qos_fields[] = {
	{ "Name", "Name", 10, "Name" },
	{ "Priority", "Priority", 10, "Priority" },
	{ "GraceTime", "GraceTime", 10, "GraceTime" },
	{ "Preempt", "Preempt", 10, "Preempt" },
	{ "PreemptExemptTime", "PreemptExemptTime", 19, "PreemptExemptTime" },
	{ "PreemptMode", "PreemptMode", 11, "PreemptMode" },
	{ "Flags", "Flags", 40, "Flags" },
	{ "UsageThreshold|UsageThres", "UsageThres", 10, "UsageThres" },
	{ "UsageFactor", "UsageFactor", 11, "UsageFactor" },
	{ "GrpTRES", "GrpTRES", 13, "GrpTRES" },
	{ "GrpTRESMins", "GrpTRESMins", 13, "GrpTRESMins" },
	{ "GrpTRESRunMins|GrpTRESRunMin", "GrpTRESRunMin", 13, "GrpTRESRunMins" },
	{ "GrpJobs", "GrpJobs", 7, "GrpJobs" },
	{ "GrpSubmitJobs|GrpSubmit", "GrpSubmit", 9, "GrpSubmit" },
	{ "GrpWall", "GrpWall", 11, "GrpWall" },
	{ "MaxTRES|MaxTRESPerJob", "MaxTRES", 13, "MaxTRES" },
	{ "MaxTRESPerNode", "MaxTRESPerNode", 14, "MaxTRESPerNode" },
	{ "MaxTRESMins|MaxTRESMinsPerJob", "MaxTRESMins", 13, "MaxTRESMins" },
	{ "MaxWall|MaxWallDurationPerJob", "MaxWall", 11, "MaxWall" },
	{ "MaxTRESPerUser|MaxTRESPU", "MaxTRESPU", 13, "MaxTRESPU" },
	{ "MaxJobsPerUser|MaxJobsPU", "MaxJobsPU", 9, "MaxJobsPU" },
	{ "MaxSubmitJobsPerUser|MaxSubmitPU", "MaxSubmitPU", 11, "MaxSubmitPU" },
	{ "MaxTRESPerAccount|MaxTRESPA", "MaxTRESPA", 13, "MaxTRESPA" },
	{ "MaxJobsPerAccount|MaxJobsPA", "MaxJobsPA", 9, "MaxJobsPA" },
	{ "MaxSubmitJobsPerAccount|MaxSubmitPA", "MaxSubmitPA", 11, "MaxSubmitPA" },
	{ "MinTRES|MinTRESPerJob", "MinTRES", 13, "MinTRES" },
	{ "ID", "ID", 6, "ID" },
	{ "Description|Descr", "Descr", 20, "Description" },
};

static const mfield_t cluster_fields[] = {
	{ "Cluster|Name", "Cluster", 10, "Cluster" },
	{ "ControlHost", "ControlHost", 15, "ControlHost" },
	{ "ControlPort", "ControlPort", 12, "ControlPort" },
	{ "RPC", "RPC", 5, "RPC" },
};

/* The default columns of each listing (by the first of their names). */
static const char *const def_assoc[] = {
	"Cluster", "Account", "User", "Partition", "Fairshare", "Priority", "GrpJobs", "GrpTRES",
	"GrpSubmitJobs", "GrpWall", "GrpTRESMins", "MaxJobs", "MaxTRES", "MaxTRESPerNode",
	"MaxSubmitJobs", "MaxWall", "MaxTRESMins", "QOS", "DefaultQOS", "GrpTRESRunMins", NULL,
};
static const char *const def_user[] = { "User", "DefaultAccount", "AdminLevel", NULL };
static const char *const def_user_assoc[] = {
	"User", "DefaultAccount", "AdminLevel", "Cluster", "Account", "Partition", "Fairshare",
	"Priority", "MaxJobs", "MaxNodes", "MaxCPUs", "MaxSubmitJobs", "MaxWall", "MaxCPUMins",
	"QOS", "DefaultQOS", NULL,
};
static const char *const def_account[] = { "Account", "Description", "Organization", NULL };
static const char *const def_account_assoc[] = {
	"Account", "Description", "Organization", "Cluster", "ParentName", "User", "Fairshare",
	"Priority", "GrpJobs", "GrpNodes", "GrpCPUs", "GrpMem", "GrpSubmitJobs", "GrpWall",
	"GrpCPUMins", "MaxJobs", "MaxNodes", "MaxCPUs", "MaxSubmitJobs", "MaxWall", "MaxCPUMins",
	"QOS", "DefaultQOS", NULL,
};
static const char *const def_qos[] = {
	"Name", "Priority", "GraceTime", "Preempt", "PreemptExemptTime", "PreemptMode", "Flags",
	"UsageThreshold", "UsageFactor", "GrpTRES", "GrpTRESMins", "GrpTRESRunMins", "GrpJobs",
	"GrpSubmitJobs", "GrpWall", "MaxTRES", "MaxTRESPerNode", "MaxTRESMins", "MaxWall",
	"MaxTRESPerUser", "MaxJobsPerUser", "MaxSubmitJobsPerUser", "MaxTRESPerAccount",
	"MaxJobsPerAccount", "MaxSubmitJobsPerAccount", "MinTRES", NULL,
};
static const char *const def_cluster[] = {
	"Cluster", "ControlHost", "ControlPort", "RPC", "Fairshare", "GrpJobs", "GrpTRES",
	"GrpSubmitJobs", "MaxJobs", "MaxTRES", "MaxSubmitJobs", "MaxWall", "QOS", "DefaultQOS", NULL,
};

typedef struct opts {
	int immediate, noheader, parsable, parsable2, quiet, withassoc, withcoord, tree, clean;
	const char *verb, *entity;
	strv_t args;              /* to the controller */
	strv_t format;            /* format= items */
	char *file;
} opts_t;

static void usage(FILE *fp)
{
	fputs("sacctmgr [<OPTION>] [<COMMAND>]\n"
	      "    Valid <OPTION> values are:\n"
	      "     -h or --help: equivalent to \"help\" command\n"
	      "     -i or --immediate: commit changes immediately without asking\n"
	      "     -n or --noheader: no header will be added to the beginning of output\n"
	      "     -p or --parsable: output will be '|' delimited with a '|' at the end\n"
	      "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
	      "     -Q or --quiet: equivalent to \"quiet\" command\n"
	      "     -s or --associations: with show user/account: show the associations\n"
	      "     -V or --version: equivalent to \"version\" command\n\n"
	      "  <COMMAND> may be: add (create), modify (update), delete (remove), list (show),\n"
	      "  dump, load; on entities account, association, cluster, coordinator, qos, user.\n"
	      "  sacctmgr add account NAME [Parent=P] [Description=D] [Organization=O] [limits]\n"
	      "  sacctmgr add user NAME Account=A [DefaultAccount=A] [AdminLevel=L] [Partition=P]\n"
	      "  sacctmgr modify user|account|qos [where COND...] set KEY=VALUE...\n"
	      "  sacctmgr show assoc [tree] [format=F%W,...] [where COND...]\n"
	      "  sacctmgr dump CLUSTER file=FILE; sacctmgr load file=FILE [clean]\n", fp);
}

static int word_is(const char *w, const char *full, size_t minlen)
{
	size_t n = strlen(w);
	return n >= minlen && n <= strlen(full) && !strncasecmp(w, full, n);
}

static const char *verb_of(const char *w)
{
	if (word_is(w, "add", 3) || word_is(w, "create", 3))
		return "add";
	if (word_is(w, "modify", 3) || word_is(w, "update", 3))
		return "modify";
	if (word_is(w, "delete", 3) || word_is(w, "remove", 3))
		return "delete";
	if (word_is(w, "show", 3) || word_is(w, "list", 3))
		return "show";
	if (word_is(w, "dump", 3))
		return "dump";
	if (word_is(w, "load", 3))
		return "load";
	return NULL;
}

static const char *entity_of(const char *w)
{
	if (word_is(w, "accounts", 3))
		return "account";
	if (word_is(w, "associations", 3))
		return "association";
	if (word_is(w, "users", 1))
		return "user";
	if (word_is(w, "qos", 1) || !strcasecmp(w, "qoss"))
		return "qos";
	if (word_is(w, "clusters", 2))
		return "cluster";
	if (word_is(w, "coordinators", 2))
		return "coordinator";
	return NULL;
}

/* ---- show ---- */

static int name_match(const char *names, const char *w, int prefix)
{
	size_t wl = strlen(w);
	int first = 1;
	for (const char *p = names; *p; first = 0) {
		const char *e = strchr(p, '|');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == wl && !strncasecmp(p, w, n))
			return 1;
		if (prefix && first && wl >= 3 && wl < n && !strncasecmp(p, w, wl))
			return 1;
		p += n + (e ? 1 : 0);
	}
	return 0;
}

typedef struct shown {
	const mfield_t *f;
	int width;                /* < 0: left-justified */
	int col;                  /* index in the reply */
} shown_t;

static const mfield_t *find_field(const mfield_t *const *tabs, const size_t *ns, size_t ntabs,
				  const char *w)
{
	for (int prefix = 0; prefix < 2; prefix++)
		for (size_t t = 0; t < ntabs; t++)
			for (size_t i = 0; i < ns[t]; i++)
				if (name_match(tabs[t][i].names, w, prefix))
					return &tabs[t][i];
	return NULL;
}

/* Print a cell as sacctmgr does: right-justified in width, cut to
 * width-1 characters and a '+' when longer. */
static void put_cell(strbuf_t *sb, const char *v, int width, const opts_t *o, int last)
{
	if (o->parsable || o->parsable2) {
		strbuf_addstr(sb, v);
		if (!last || o->parsable)
			strbuf_addch(sb, '|');
		return;
	}
	int w = width < 0 ? -width : width;
	if (!w && *v)
		strbuf_addch(sb, '+');  /* nothing fits: the mark alone */
	else
		cmd_add_cut_plus(sb, v, strlen(v), (size_t)w, width < 0);
	strbuf_addch(sb, ' ');
}

static int do_show(opts_t *o, msg_acct_reply_t *r)
{
	const mfield_t *tabs[2];
	size_t ns[2], ntabs = 1;
	const char *const *defs;
	const char *e = o->entity;
	if (!strcmp(e, "association")) {
		tabs[0] = assoc_fields; ns[0] = ARRAY_SIZE(assoc_fields);
		defs = def_assoc;
	} else if (!strcmp(e, "user")) {
		tabs[0] = user_fields; ns[0] = ARRAY_SIZE(user_fields);
		tabs[1] = assoc_fields; ns[1] = ARRAY_SIZE(assoc_fields);
		ntabs = 2;
		defs = o->withassoc ? def_user_assoc : def_user;
	} else if (!strcmp(e, "account")) {
		tabs[0] = account_fields; ns[0] = ARRAY_SIZE(account_fields);
		tabs[1] = assoc_fields; ns[1] = ARRAY_SIZE(assoc_fields);
		ntabs = 2;
		defs = o->withassoc ? def_account_assoc : def_account;
	} else if (!strcmp(e, "qos")) {
		tabs[0] = qos_fields; ns[0] = ARRAY_SIZE(qos_fields);
		defs = def_qos;
	} else {
		tabs[0] = cluster_fields; ns[0] = ARRAY_SIZE(cluster_fields);
		tabs[1] = assoc_fields; ns[1] = ARRAY_SIZE(assoc_fields);
		ntabs = 2;
		defs = def_cluster;
	}
	strv_t fmt = { 0 };
	if (o->format.n) {
		for (uint32_t i = 0; i < o->format.n; i++)
			strv_push(&fmt, o->format.v[i]);
	} else {
		for (size_t i = 0; defs[i]; i++) {
			strv_push(&fmt, defs[i]);
			if (o->withcoord && !strcmp(defs[i], "AdminLevel"))
				strv_push(&fmt, "Coordinators");
			if (o->withcoord && !strcmp(defs[i], "Organization"))
				strv_push(&fmt, "Coordinators");
		}
	}
	shown_t *sh = xcalloc(fmt.n + 1, sizeof(*sh));
	size_t nsh = 0;
	int rc = 0;
	for (uint32_t i = 0; i < fmt.n; i++) {
		char *w = xstrdup(fmt.v[i]);
		int width = 0, has_width = 0;
		char *pct = strchr(w, '%');
		if (pct) {
			*pct = 0;
			char *end;
			long x = strtol(pct + 1, &end, 10);
			if (end == pct + 1 || *end) {
				fprintf(stderr, " Bad width in format '%s'\n", fmt.v[i]);
				free(w);
				rc = 1;
				goto out;
			}
			width = (int)x;
			has_width = 1;
		}
		const mfield_t *f = find_field(tabs, ns, ntabs, w);
		if (!f) {
			fprintf(stderr, " Unknown field '%s'\n", w);
			free(w);
			rc = 1;
			goto out;
		}
		free(w);
		int col = -1;
		for (uint32_t c = 0; c < r->cols.n; c++)
			if (!strcmp(r->cols.v[c], f->col))
				col = (int)c;
		if (col < 0) {
			/* an association column of a user/account listing
			 * without withassoc: empty */
			col = -1;
		}
		sh[nsh].f = f;
		sh[nsh].width = has_width ? width : f->width;
		sh[nsh].col = col;
		/* tree: the account column left-justified, indented */
		if (o->tree && !strcmp(f->col, "Account") && !has_width)
			sh[nsh].width = -20;
		nsh++;
	}
	size_t ncols = r->cols.n ? r->cols.n : 1;
	size_t nrows = r->cells.n / ncols;
	int depth_col = -1;
	for (uint32_t c = 0; c < r->cols.n; c++)
		if (!strcmp(r->cols.v[c], "Depth"))
			depth_col = (int)c;
	unsigned min_depth = ~0u;
	if (o->tree && depth_col >= 0)
		for (size_t row = 0; row < nrows; row++) {
			unsigned d = (unsigned)atoi(r->cells.v[row * ncols + (size_t)depth_col]);
			if (d < min_depth)
				min_depth = d;
		}
	strbuf_t sb;
	strbuf_init(&sb);
	if (!o->noheader) {
		for (size_t i = 0; i < nsh; i++)
			put_cell(&sb, sh[i].f->header, sh[i].width, o, i + 1 == nsh);
		strbuf_addch(&sb, '\n');
		if (!o->parsable && !o->parsable2) {
			for (size_t i = 0; i < nsh; i++) {
				int w = sh[i].width < 0 ? -sh[i].width : sh[i].width;
				for (int k = 0; k < w; k++)
					strbuf_addch(&sb, '-');
				strbuf_addch(&sb, ' ');
			}
			strbuf_addch(&sb, '\n');
		}
	}
	for (size_t row = 0; row < nrows; row++) {
		for (size_t i = 0; i < nsh; i++) {
			const char *v = sh[i].col >= 0 ? r->cells.v[row * ncols + (size_t)sh[i].col] : "";
			char *tmp = NULL;
			if (o->tree && depth_col >= 0 && !strcmp(sh[i].f->col, "Account")) {
				unsigned d = (unsigned)atoi(r->cells.v[row * ncols + (size_t)depth_col]) - min_depth;
				tmp = xasprintf("%*s%s", (int)d, "", v);
				v = tmp;
			}
			put_cell(&sb, v, sh[i].width, o, i + 1 == nsh);
			free(tmp);
		}
		strbuf_addch(&sb, '\n');
	}
	fwrite(sb.buf ? sb.buf : "", 1, sb.len, stdout);
	strbuf_release(&sb);
out:
	free(sh);
	strv_free(&fmt);
	return rc;
}

/* ---- talking to the controller ---- */

static int call(opts_t *o, int commit, const char *body, msg_acct_reply_t **out)
{
	msg_acct_req_t req = { .op = ACCT_OP_MGR };
	char *v = xasprintf("verb=%s", o->verb), *e = xasprintf("entity=%s", o->entity ? o->entity : "");
	strv_push(&req.args, v);
	strv_push(&req.args, e);
	strv_push(&req.args, commit ? "commit=1" : "commit=0");
	free(v);
	free(e);
	for (uint32_t i = 0; i < o->args.n; i++)
		strv_push(&req.args, o->args.v[i]);
	req.body = (char *)body;
	void *reply = NULL;
	enum msg_type rtype = MSG_NONE;
	int rc = rpc_call_ctld(cmd_conf(), MSG_ACCT_REQ, &req, &rtype, &reply);
	req.body = NULL;
	strv_free(&req.args);
	char *detail = NULL;
	if (!rc && rtype == MSG_RC) {
		/* a refusal (the state store failing: its directory and
		 * reason, as every other command prints them) */
		msg_rc_t *m = reply;
		rc = m->rc ? m->rc : SLUICE_E_PROTOCOL;
		detail = m->msg && *m->msg ? xstrdup(m->msg) : NULL;
		proto_msg_destroy(rtype, reply);
	} else if (!rc && rtype != MSG_ACCT_REPLY) {
		proto_msg_destroy(rtype, reply);
		rc = SLUICE_E_PROTOCOL;
	}
	if (rc) {
		fprintf(stderr, "sacctmgr: error: Problem talking to the database: %s\n",
			detail ? detail : slurm_strerror(rc));
		free(detail);
		return rc;
	}
	*out = reply;
	return 0;
}

static const char *cell(const msg_acct_reply_t *r, const char *col)
{
	for (uint32_t c = 0; c < r->cols.n && c < r->cells.n; c++)
		if (!strcmp(r->cols.v[c], col))
			return r->cells.v[c];
	return "";
}

/* "Would you like to commit changes?": 1 for yes. End of input or no
 * answer in 30 s: no. */
static int ask_commit(void)
{
	fputs("Would you like to commit changes? (You have 30 seconds to decide)\n", stdout);
	for (;;) {
		fputs("(N/y): ", stdout);
		fflush(stdout);
		struct pollfd p = { .fd = 0, .events = POLLIN };
		if (poll(&p, 1, 30000) <= 0)
			return 0;
		char line[64];
		if (!fgets(line, sizeof(line), stdin)) {
			fputc('\n', stdout);
			return 0;
		}
		fputc('\n', stdout);
		if (line[0] == 'y' || line[0] == 'Y')
			return 1;
		if (line[0] == 'n' || line[0] == 'N' || line[0] == '\n')
			return 0;
		fputs("Y or N please\n", stdout);
	}
}

static int do_change(opts_t *o, const char *body)
{
	msg_acct_reply_t *r = NULL;
	int rc = call(o, o->immediate, body, &r);
	if (rc)
		return 1;
	const char *out = cell(r, "out"), *err = cell(r, "err");
	if (r->msg && *r->msg && !*err)
		err = r->msg;
	if (!o->quiet || r->rc)
		fputs(out, stdout);
	fflush(stdout);
	fputs(err, stderr);
	int status = r->rc ? 1 : 0;
	int ask = !r->rc && !o->immediate;
	proto_msg_destroy(MSG_ACCT_REPLY, r);
	if (!ask)
		return status;
	if (!ask_commit()) {
		fputs(" Changes Discarded\n", stdout);
		return 0;
	}
	r = NULL;
	if (call(o, 1, body, &r))
		return 1;
	status = 0;
	if (r->rc) {
		/* changed meanwhile: say what the commit found */
		fputs(cell(r, "out"), stdout);
		fflush(stdout);
		fputs(cell(r, "err"), stderr);
		status = 1;
	}
	proto_msg_destroy(MSG_ACCT_REPLY, r);
	return status;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	strbuf_t sb;
	strbuf_init(&sb);
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb);
}

/* ---- argument words ---- */

/* Sort the words after the entity into the request: where/set mode,
 * bare names, and the client's own (format=, file=, withassoc, ...). */
static int parse_words(opts_t *o, int argc, char **argv, int i)
{
	int mode = strcmp(o->verb, "add") ? 'w' : 's';
	for (; i < argc; i++) {
		const char *w = argv[i];
		if (!strcasecmp(w, "where")) {
			mode = 'w';
			continue;
		}
		if (!strcasecmp(w, "set")) {
			mode = 's';
			continue;
		}
		if (!strcasecmp(w, "withassoc") || !strcasecmp(w, "withassocs")) {
			o->withassoc = 1;
			continue;
		}
		if (!strcasecmp(w, "withcoord") || !strcasecmp(w, "withcoords")) {
			o->withcoord = 1;
			continue;
		}
		if (!strcasecmp(w, "tree")) {
			o->tree = 1;
			continue;
		}
		if (!strcasecmp(w, "withdeleted") || !strcasecmp(w, "withsubaccounts") ||
		    !strcasecmp(w, "WOPInfo") || !strcasecmp(w, "WOPLimits") || !strcasecmp(w, "WOLimits"))
			continue;
		if (!strcasecmp(w, "clean")) {
			o->clean = 1;
			strv_push(&o->args, "n=clean");
			continue;
		}
		const char *eq = strchr(w, '=');
		if (eq && eq > w) {
			size_t kl = (size_t)(eq - w);
			if (!strncasecmp(w, "format", kl) && kl >= 3) {
				cmd_split(&o->format, eq + 1);
				continue;
			}
			if (!strncasecmp(w, "file", kl) && kl == 4) {
				free(o->file);
				o->file = xstrdup(eq + 1);
				continue;
			}
			if (!eq[1] && strcmp(o->verb, "show")) {
				fprintf(stderr, " Bad value for %.*s: nothing given (use -1 to clear a limit)\n",
					(int)kl, w);
				return -1;
			}
			char *a = xasprintf("%c=%s", mode, w);
			strv_push(&o->args, a);
			free(a);
			continue;
		}
		char *a = xasprintf("n=%s", w);
		strv_push(&o->args, a);
		free(a);
	}
	if (o->withassoc)
		strv_push(&o->args, "o=withassoc");
	if (o->withcoord)
		strv_push(&o->args, "o=withcoord");
	if (o->tree)
		strv_push(&o->args, "o=tree");
	return 0;
}

static void no_entity(const char *verb)
{
	fprintf(stderr, "No valid entity in %s command\n"
		"Input line must include \"Account\", \"Association\", \"Cluster\", \"Coordinator\",\n"
		"\"QOS\" or \"User\"\n", verb);
}

int cmd_sacctmgr(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "immediate", no_argument, NULL, 'i' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "readonly", no_argument, NULL, 'r' },
		{ "associations", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "usage", no_argument, NULL, 'u' + 256 },
		{ NULL, 0, NULL, 0 },
	};
	opts_t o = { 0 };
	int readonly = 0, c;
	opterr = 1;
	/* Permuting, as Slurm's sacctmgr: options may follow the command
	 * words (sacctmgr list user -nP); "--" ends them. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "hinpPQrsvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return 0;
		case 'u' + 256: usage(stdout); return 0;
		case 'i': o.immediate = 1; break;
		case 'n': o.noheader = 1; break;
		case 'p': o.parsable = 1; break;
		case 'P': o.parsable2 = 1; break;
		case 'Q': o.quiet = 1; break;
		case 'r': readonly = 1; break;
		case 's': o.withassoc = 1; break;
		case 'v': break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		default: usage(stderr); return 1;
		}
	}
	int i = optind;
	if (i >= argc) {
		usage(stderr);
		return 1;
	}
	o.verb = verb_of(argv[i]);
	if (!o.verb) {
		fprintf(stderr, "invalid keyword: %s\n", argv[i]);
		return 1;
	}
	i++;
	int rc = 1;
	if (!strcmp(o.verb, "dump")) {
		o.entity = "cluster";
	} else if (!strcmp(o.verb, "load")) {
		o.entity = "cluster";
	} else {
		o.entity = i < argc ? entity_of(argv[i]) : NULL;
		if (!o.entity) {
			no_entity(!strcmp(o.verb, "show") ? "list" : o.verb);
			return 1;
		}
		i++;
	}
	if (parse_words(&o, argc, argv, i))
		goto out;
	if (readonly && strcmp(o.verb, "show") && strcmp(o.verb, "dump")) {
		fprintf(stderr, "sacctmgr: error: Can't run this command in readonly mode.\n");
		goto out;
	}
	if (!strcmp(o.verb, "show")) {
		msg_acct_reply_t *r = NULL;
		if (call(&o, 0, NULL, &r))
			goto out;
		if (r->rc) {
			fprintf(stderr, "sacctmgr: error: %s\n", r->msg ? r->msg : slurm_strerror(r->rc));
		} else {
			rc = do_show(&o, r);
		}
		proto_msg_destroy(MSG_ACCT_REPLY, r);
	} else if (!strcmp(o.verb, "dump")) {
		if (!o.file) {
			fprintf(stderr, " No filename given, specify one with file=''\n");
			goto out;
		}
		msg_acct_reply_t *r = NULL;
		if (call(&o, 0, NULL, &r))
			goto out;
		if (r->rc) {
			fprintf(stderr, "%s\n", r->msg ? r->msg : slurm_strerror(r->rc));
		} else {
			int fd = open(o.file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			size_t len = r->msg ? strlen(r->msg) : 0;
			if (fd < 0 || write(fd, r->msg, len) != (ssize_t)len) {
				fprintf(stderr, "sacctmgr: error: Can't write '%s': %s\n", o.file, strerror(errno));
			} else {
				rc = 0;
			}
			if (fd >= 0 && close(fd) && !rc) {
				fprintf(stderr, "sacctmgr: error: Can't write '%s': %s\n", o.file, strerror(errno));
				rc = 1;
			}
		}
		proto_msg_destroy(MSG_ACCT_REPLY, r);
	} else if (!strcmp(o.verb, "load")) {
		/* "load FILE" or "load file=FILE" */
		if (!o.file) {
			for (uint32_t k = 0; k < o.args.n; k++)
				if (!strncmp(o.args.v[k], "n=", 2) && strcmp(o.args.v[k], "n=clean")) {
					o.file = xstrdup(o.args.v[k] + 2);
					break;
				}
		}
		if (!o.file) {
			fprintf(stderr, " No filename given, specify one with file=''\n");
			goto out;
		}
		char *body = read_file(o.file);
		if (!body) {
			fprintf(stderr, " Unable to read \"%s\": %s\n", o.file, strerror(errno));
			goto out;
		}
		rc = do_change(&o, body);
		free(body);
	} else {
		rc = do_change(&o, NULL);
	}
out:
	strv_free(&o.args);
	strv_free(&o.format);
	free(o.file);
	return rc;
}
