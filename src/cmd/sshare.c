/*
 * sshare: the fair-share tree (associations, shares, decayed usage and
 * fair-share factors) as Slurm 22.05's sshare prints it
 * (../shared/compat/slurm-22.05/sshare_-a.txt).
 *
 * One MSG_ACCT_REQ (ACCT_OP_SSHARE) returns the rows the caller may see,
 * in tree order, every column formatted; this side picks the columns
 * (default, -l, -m, -o), indents the Account column by depth (relative to
 * the shallowest row shown; none with -U, which shows user rows only) and
 * prints them as Slurm's print_fields does: each column padded to its
 * width (negative: left-justified), a value too long cut with '+', one
 * space after each; -p/-P '|'-separated, untruncated.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "strbuf.h"
#include "xalloc.h"

/* The columns sshare knows: name, default width (negative: left
 * justified), the reply column holding it. */
static const struct ss_field {
	const char *name;
	int width;
	const char *col;
} fields[] = {
	{ "Account", -20, "account" },
	{ "Cluster", 10, "cluster" },
	{ "EffectvUsage", 13, "eff_usage" },
	{ "FairShare", 10, "fairshare" },
	{ "GrpTRESMins", 30, "grp_tres_mins" },
	{ "GrpTRESRaw", 30, "grp_tres_raw" },
	{ "ID", 6, "id" },
	{ "LevelFS", 10, "level_fs" },
	{ "NormShares", 11, "norm_shares" },
	{ "NormUsage", 11, "norm_usage" },
	{ "Partition", 12, "partition" },
	{ "RawShares", 10, "raw_shares" },
	{ "RawUsage", 11, "raw_usage" },
	{ "TRESRunMins", 30, "tres_run_mins" },
	{ "User", 10, "user" },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
static const struct ss_field *const account_field = &fields[0];

typedef struct col {
	const struct ss_field *f;
	int width;
	int reply_col;       /* index into the reply's columns, -1: none */
} col_t;

static const struct ss_field *field_named(const char *name, size_t len)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strlen(fields[i].name) == len && !strncasecmp(fields[i].name, name, len))
			return &fields[i];
	return NULL;
}

/* "Account,User%20,RawShares%-5" into cols; -1 with the error printed. */
static int parse_format(const char *spec, col_t **cols, size_t *n)
{
	char *dup = xstrdup(spec), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *pct = strchr(t, '%');
		size_t len = pct ? (size_t)(pct - t) : strlen(t);
		const struct ss_field *f = field_named(t, len);
		if (!f) {
			if (pct)
				*pct = 0;
			fprintf(stderr, "sshare: error: Invalid field requested: \"%s\"\n", t);
			rc = -1;
			break;
		}
		*cols = xrealloc(*cols, (*n + 1) * sizeof(col_t));
		(*cols)[*n] = (col_t){ f, f->width, -1 };
		if (pct && pct[1])
			(*cols)[*n].width = atoi(pct + 1);
		(*n)++;
	}
	free(dup);
	return rc;
}

/* One value as print_fields prints it (see the file comment), after
 * indent spaces (the Account column's depth). Thousands of cells: raw
 * writes into room made once per cell, no printf. */
static void put(strbuf_t *sb, const char *v, long indent, int width, int parsable, int last)
{
	size_t ind = indent > 0 ? (size_t)indent : 0, vl = strlen(v), len = ind + vl;
	size_t w = (size_t)(width < 0 ? -width : width);
	strbuf_grow(sb, len + w + 2);
	char *o = sb->buf + sb->len;
	if (parsable) {
		memset(o, ' ', ind);
		memcpy(o + ind, v, vl);
		o += len;
		if (parsable == 1 || !last)
			*o++ = '|';
	} else if (w && len > w) {
		/* cut to w - 1 bytes and a '+', never inside a character
		 * (cmd_cut_len; what that leaves is padded as the column is) */
		size_t sp = ind < w - 1 ? ind : w - 1;
		size_t n = cmd_cut_len(v, vl, w - 1 - sp), pad = w - 1 - sp - n;
		if (width >= 0) {
			memset(o, ' ', pad);
			o += pad;
		}
		memset(o, ' ', sp);
		memcpy(o + sp, v, n);
		o += sp + n;
		*o++ = '+';
		if (width < 0) {
			memset(o, ' ', pad);
			o += pad;
		}
		*o++ = ' ';
	} else {
		size_t pad = w > len ? w - len : 0;
		if (width >= 0) {
			memset(o, ' ', pad + ind);
			o += pad + ind;
		} else {
			memset(o, ' ', ind);
			o += ind;
		}
		memcpy(o, v, vl);
		o += vl;
		if (width < 0) {
			memset(o, ' ', pad);
			o += pad;
		}
		*o++ = ' ';
	}
	sb->len = (size_t)(o - sb->buf);
	*o = 0;
}

static void header(strbuf_t *sb, const col_t *cols, size_t n, int parsable)
{
	for (size_t i = 0; i < n; i++) {
		if (parsable) {
			put(sb, cols[i].f->name, 0, 0, parsable, i + 1 == n);
			continue;
		}
		int w = cols[i].width < 0 ? -cols[i].width : cols[i].width;
		strbuf_addf(sb, cols[i].width < 0 ? "%-*.*s " : "%*.*s ", w, w, cols[i].f->name);
	}
	strbuf_addch(sb, '\n');
	if (parsable)
		return;
	for (size_t i = 0; i < n; i++) {
		int w = cols[i].width < 0 ? -cols[i].width : cols[i].width;
		for (int k = 0; k < w; k++)
			strbuf_addch(sb, '-');
		strbuf_addch(sb, ' ');
	}
	strbuf_addch(sb, '\n');
}

static void usage(FILE *fp)
{
	fprintf(fp,
"Usage: sshare [OPTIONS]\n"
"  -a, --all              every user's associations, not only yours\n"
"  -A, --accounts=LIST    only these accounts (comma separated)\n"
"  -e, --helpformat       list the fields --format takes\n"
"  -l, --long             add NormUsage, LevelFS, GrpTRESMins and TRESRunMins\n"
"  -m, --partition        add the association's partition\n"
"  -M, --clusters=NAMES   accepted; this cluster only\n"
"  -n, --noheader         no header lines\n"
"  -o, --format=FIELDS    the columns to print (Name[%%width], comma separated)\n"
"  -p, --parsable         '|' after every field\n"
"  -P, --parsable2        '|' between fields\n"
"  -u, --users=LIST       these users' associations (comma separated)\n"
"  -U, --Users            user associations only\n"
"  -v, --verbose          more messages\n"
"  -V, --version          print the version and exit\n"
"      --help, --usage    this text\n");
}

static void helpformat(void)
{
	for (size_t i = 0; i < NFIELDS; i++)
		printf("%-18s%s", fields[i].name, (i + 1) % 4 == 0 || i + 1 == NFIELDS ? "\n" : "");
}

enum { OPT_USAGE = 0x100, OPT_HELP };

int cmd_sshare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "accounts", required_argument, NULL, 'A' },
		{ "all", no_argument, NULL, 'a' },
		{ "helpformat", no_argument, NULL, 'e' },
		{ "long", no_argument, NULL, 'l' },
		{ "partition", no_argument, NULL, 'm' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'o' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "users", required_argument, NULL, 'u' },
		{ "Users", no_argument, NULL, 'U' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	int c, all = 0, lng = 0, part = 0, noheader = 0, parsable = 0, users_only = 0, rc = 0;
	const char *format = NULL;
	char *accounts = NULL, *users = NULL;
	log_init("sshare", 0, LOG_LVL_INFO, NULL);
	argv[0] = (char *)"sshare";
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "A:aelmM:no:pPu:UvV", opts, NULL)) != -1) {
		switch (c) {
		case 'A': free(accounts); accounts = xstrdup(optarg); break;
		case 'a': all = 1; break;
		case 'e': helpformat(); goto out;
		case 'l': lng = 1; break;
		case 'm': part = 1; break;
		case 'M': break;
		case 'n': noheader = 1; break;
		case 'o': format = optarg; break;
		case 'p': parsable = 1; break;
		case 'P': parsable = 2; break;
		case 'u':
			free(users);
			users = xstrdup(optarg);
			if (!strcmp(users, "-1")) {   /* Slurm: -u -1 is every user */
				all = 1;
				xfree(users);
			}
			break;
		case 'U': users_only = 1; break;
		case 'v': break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); goto out;
		case OPT_USAGE: case OPT_HELP: usage(stdout); goto out;
		default:
			fprintf(stderr, "Try \"sshare --help\" for more information\n");
			rc = 1;
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sshare: error: Unrecognized option: %s\n", argv[optind]);
		rc = 1;
		goto out;
	}

	col_t *cols = NULL;
	size_t ncols = 0;
	char *deflt = NULL;
	if (!format) {
		strbuf_t sb = STRBUF_INIT;
		strbuf_addstr(&sb, "Account,User,");
		if (part)
			strbuf_addstr(&sb, "Partition,");
		strbuf_addstr(&sb, lng ? "RawShares,NormShares,RawUsage,NormUsage,EffectvUsage,"
					 "FairShare,LevelFS,GrpTRESMins,TRESRunMins"
				       : "RawShares,NormShares,RawUsage,EffectvUsage,FairShare");
		format = deflt = strbuf_detach(&sb);
	}
	if (parse_format(format, &cols, &ncols)) {
		rc = 1;
		goto done;
	}

	msg_acct_req_t req = { .op = ACCT_OP_SSHARE };
	/* only the columns printed (and the two that shape the rows) */
	strbuf_t want = STRBUF_INIT;
	/* a user association is one with a user name */
	strbuf_addstr(&want, "cols=depth,user");
	for (size_t i = 0; i < ncols; i++) {
		strbuf_addch(&want, ',');
		strbuf_addstr(&want, cols[i].f->col);
	}
	strv_push(&req.args, want.buf);
	strbuf_release(&want);
	if (all)
		strv_push(&req.args, "all=1");
	if (users) {
		char *a = xasprintf("users=%s", users);
		strv_push(&req.args, a);
		free(a);
	}
	if (accounts) {
		char *a = xasprintf("accounts=%s", accounts);
		strv_push(&req.args, a);
		free(a);
	}
	void *reply = NULL;
	int err = cmd_call(MSG_ACCT_REQ, &req, MSG_ACCT_REPLY, &reply, NULL);
	strv_free(&req.args);
	if (err) {
		fprintf(stderr, "sshare: error: Problem with query: %s\n", slurm_strerror(err));
		rc = 1;
		goto done;
	}
	msg_acct_reply_t *r = reply;
	if (r->rc) {
		fprintf(stderr, "sshare: error: %s\n", r->msg ? r->msg : slurm_strerror(r->rc));
		rc = 1;
		proto_msg_destroy(MSG_ACCT_REPLY, reply);
		goto done;
	}
	int depth_col = -1, user_col = -1;
	for (uint32_t k = 0; k < r->cols.n; k++) {
		if (!strcmp(r->cols.v[k], "depth"))
			depth_col = (int)k;
		if (!strcmp(r->cols.v[k], "user"))
			user_col = (int)k;
		for (size_t i = 0; i < ncols; i++)
			if (!strcmp(r->cols.v[k], cols[i].f->col))
				cols[i].reply_col = (int)k;
	}
	uint32_t ncells;
	const char **cells = acct_reply_cells(r, &ncells);
	uint32_t nc = r->cols.n, nrows = nc ? ncells / nc : 0;
	/* indentation is relative to the shallowest row shown */
	long min_depth = -1, *depth = xcalloc(nrows + 1, sizeof(long));
	for (uint32_t row = 0; row < nrows && depth_col >= 0; row++) {
		long d = depth[row] = atol(cells[row * nc + (uint32_t)depth_col]);
		if (min_depth < 0 || d < min_depth)
			min_depth = d;
	}
	/* written out in pieces: a buffer that stays in a few pages */
	strbuf_t sb = STRBUF_INIT;
	strbuf_grow(&sb, 40000);
	if (!noheader)
		header(&sb, cols, ncols, parsable);
	for (uint32_t row = 0; row < nrows; row++) {
		const char **cell = &cells[row * nc];
		int is_user = user_col >= 0 && *cell[user_col];
		if (users_only && !is_user)
			continue;
		long indent = users_only || depth_col < 0 ? 0 : depth[row] - min_depth;
		for (size_t i = 0; i < ncols; i++) {
			const char *v = cols[i].reply_col >= 0 ? cell[cols[i].reply_col] : "";
			long ind = cols[i].f == account_field ? indent : 0;
			put(&sb, v, ind > 0 ? ind : 0, cols[i].width, parsable, i + 1 == ncols);
		}
		strbuf_addch(&sb, '\n');
		if (sb.len > 32768) {
			fwrite(sb.buf, 1, sb.len, stdout);
			strbuf_reset(&sb);
		}
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	free(depth);
	free(cells);
	proto_msg_destroy(MSG_ACCT_REPLY, reply);
done:
	free(cols);
	free(deflt);
out:
	free(accounts);
	free(users);
	return rc;
}
