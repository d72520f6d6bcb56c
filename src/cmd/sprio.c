/*
 * sprio: the factors that make up pending jobs' priorities, as Slurm
 * 22.05's sprio prints them (t/compat/sprio.txt).
 *
 * One MSG_PRIO_INFO_REQ (job ids, user ids and partitions filter on the
 * controller's side); the reply carries the configured weights and, per
 * pending job, the weighted factors as doubles. Printing follows Slurm: a
 * weighted factor is printed "%.0f", a normalized one (weighted / weight)
 * "%.7f", PRIORITY is the sum of the weighted factors plus site minus nice
 * truncated to an integer, and the default format has a column only for
 * the factors that have a weight.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/sprio.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "xalloc.h"

static int prio_letter_ok(int c)
{
	return c && strchr("aAbBcfFijJNpPqQrStTuYy", c) != NULL;
}

char *sprio_default_format(const msg_prio_info_t *m, int normalized, int long_list, int users)
{
	if (long_list)
		return xstrdup(normalized
			? "%.15i %9r %.8u %10y %10a %10b %10f %10j %10p %10q %20t"
			: "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T");
	strbuf_t sb = STRBUF_INIT;
	strbuf_addf(&sb, "%%.15i %%9r");
	if (users)
		strbuf_addf(&sb, " %%.8u");
	if (normalized) {
		strbuf_addf(&sb, " %%10y");
		if (m->w_age) strbuf_addf(&sb, " %%10a");
		if (m->w_assoc) strbuf_addf(&sb, " %%10b");
		if (m->w_fairshare) strbuf_addf(&sb, " %%10f");
		if (m->w_jobsize) strbuf_addf(&sb, " %%10j");
		if (m->w_part) strbuf_addf(&sb, " %%10p");
		if (m->w_qos) strbuf_addf(&sb, " %%10q");
		if (m->w_tres && *m->w_tres) strbuf_addf(&sb, " %%20t");
	} else {
		strbuf_addf(&sb, " %%.10Y %%.10S");
		if (m->w_age) strbuf_addf(&sb, " %%.10A");
		if (m->w_assoc) strbuf_addf(&sb, " %%.10B");
		if (m->w_fairshare) strbuf_addf(&sb, " %%.10F");
		if (m->w_jobsize) strbuf_addf(&sb, " %%.10J");
		if (m->w_part) strbuf_addf(&sb, " %%.10P");
		if (m->w_qos) strbuf_addf(&sb, " %%.10Q");
		if (m->w_tres && *m->w_tres) strbuf_addf(&sb, " %%.20T");
	}
	return strbuf_detach(&sb);
}

static double job_priority(const prio_job_t *j)
{
	if (j->direct)
		return j->priority;
	double p = proto_dbl(j->age) + proto_dbl(j->assoc) + proto_dbl(j->fairshare) +
		   proto_dbl(j->jobsize) + proto_dbl(j->part) + proto_dbl(j->qos) +
		   (double)j->site - (double)j->nice;
	for (uint32_t i = 0; i < j->ntres; i++)
		p += proto_dbl(j->tres[i].weighted);
	return p < 1 ? 1 : p;   /* 0 is for held jobs */
}

static void add_num(strbuf_t *sb, double v, const fmt_field_t *f)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.0f", v);
	fmt_add(sb, buf, f->width, f->right);
}

static void add_norm(strbuf_t *sb, double weighted, uint32_t weight, const fmt_field_t *f)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.7f", weight ? weighted / weight : 0.0);
	fmt_add(sb, buf, f->width, f->right);
}

static void add_tres(strbuf_t *sb, const prio_job_t *j, int normalized, const fmt_field_t *f)
{
	strbuf_t v = STRBUF_INIT;
	for (uint32_t i = 0; i < j->ntres; i++) {
		double w = proto_dbl(j->tres[i].weighted), wt = proto_dbl(j->tres[i].weight);
		if (w == 0)
			continue;
		if (normalized)
			strbuf_addf(&v, "%s%s=%.2f", v.len ? "," : "", j->tres[i].name, wt ? w / wt : 0.0);
		else
			strbuf_addf(&v, "%s%s=%.0f", v.len ? "," : "", j->tres[i].name, w);
	}
	fmt_add(sb, v.buf, f->width, f->right);
	strbuf_release(&v);
}

static const char *header(int c)
{
	switch (c) {
	case 'a': case 'A': return "AGE";
	case 'b': case 'B': return "ASSOC";
	case 'c': return "CLUSTER";
	case 'f': case 'F': return "FAIRSHARE";
	case 'i': return "JOBID";
	case 'j': case 'J': return "JOBSIZE";
	case 'N': return "NICE";
	case 'p': case 'P': case 'r': return "PARTITION";
	case 'q': case 'Q': return "QOS";
	case 'S': return "SITE";
	case 't': case 'T': return "TRES";
	case 'u': return "USER";
	case 'y': case 'Y': return "PRIORITY";
	default: return "";
	}
}

/* The -w row: each factor's weight. */
static void weight_field(strbuf_t *sb, const msg_prio_info_t *m, const fmt_field_t *f)
{
	uint32_t w;
	switch (f->code) {
	case 'i': fmt_add(sb, "Weights", f->width, f->right); return;
	case 'a': case 'A': w = m->w_age; break;
	case 'b': case 'B': w = m->w_assoc; break;
	case 'f': case 'F': w = m->w_fairshare; break;
	case 'j': case 'J': w = m->w_jobsize; break;
	case 'p': case 'P': w = m->w_part; break;
	case 'q': case 'Q': w = m->w_qos; break;
	case 'S': w = 1; break;
	case 'T': fmt_add(sb, m->w_tres ? m->w_tres : "", f->width, f->right); return;
	default: fmt_add(sb, "", f->width, f->right); return;
	}
	add_num(sb, w, f);
}

static void job_field(strbuf_t *sb, const msg_prio_info_t *m, const prio_job_t *j,
		      const fmt_field_t *f, const char *cluster)
{
	char buf[64];
	/* An admin-set priority: the factors do not apply (Slurm prints 0). */
	if (j->direct && strchr("aAbBfFjJNpPqQS", f->code)) {
		add_num(sb, 0, f);
		return;
	}
	switch (f->code) {
	case 'a': add_norm(sb, proto_dbl(j->age), m->w_age, f); break;
	case 'A': add_num(sb, proto_dbl(j->age), f); break;
	case 'b': add_norm(sb, proto_dbl(j->assoc), m->w_assoc, f); break;
	case 'B': add_num(sb, proto_dbl(j->assoc), f); break;
	case 'c': fmt_add(sb, cluster ? cluster : "", f->width, f->right); break;
	case 'f': add_norm(sb, proto_dbl(j->fairshare), m->w_fairshare, f); break;
	case 'F': add_num(sb, proto_dbl(j->fairshare), f); break;
	case 'i':
		snprintf(buf, sizeof(buf), "%u", j->job_id);
		fmt_add(sb, buf, f->width, f->right);
		break;
	case 'j': add_norm(sb, proto_dbl(j->jobsize), m->w_jobsize, f); break;
	case 'J': add_num(sb, proto_dbl(j->jobsize), f); break;
	case 'N': add_num(sb, j->nice, f); break;
	case 'p': add_norm(sb, proto_dbl(j->part), m->w_part, f); break;
	case 'P': add_num(sb, proto_dbl(j->part), f); break;
	case 'q': add_norm(sb, proto_dbl(j->qos), m->w_qos, f); break;
	case 'Q': add_num(sb, proto_dbl(j->qos), f); break;
	case 'r': fmt_add(sb, j->partition ? j->partition : "", f->width, f->right); break;
	case 'S': add_num(sb, (double)j->site, f); break;
	case 't': add_tres(sb, j, 1, f); break;
	case 'T': add_tres(sb, j, 0, f); break;
	case 'u': fmt_add(sb, cmd_user_name(j->user_id), f->width, f->right); break;
	case 'y':
		snprintf(buf, sizeof(buf), "%16.14f", job_priority(j) / (double)0xffffffffu);
		fmt_add(sb, buf, f->width, f->right);
		break;
	case 'Y':
		snprintf(buf, sizeof(buf), "%lld", (long long)job_priority(j));
		fmt_add(sb, buf, f->width, f->right);
		break;
	default:
		break;
	}
}

void sprio_format(strbuf_t *out, const msg_prio_info_t *m, const char *spec, int flags,
		  const char *cluster, void (*bad)(int c, void *arg))
{
	fmt_t fmt;
	fmt_parse(&fmt, spec, 1, prio_letter_ok, bad, NULL);
	/* rows: -1 the header, then the jobs (or the one weights row) */
	long first = (flags & SPRIO_F_NOHEADER) ? 0 : -1;
	long last = (flags & SPRIO_F_WEIGHTS) ? 1 : (long)m->njobs;
	for (long r = first; r < last; r++) {
		if (fmt.prefix)
			strbuf_addf(out, "%s", fmt.prefix);
		for (size_t i = 0; i < fmt.n; i++) {
			const fmt_field_t *f = &fmt.f[i];
			if (f->code >= 0) {
				if (r < 0)
					fmt_add(out, header(f->code), f->width, f->right);
				else if (flags & SPRIO_F_WEIGHTS)
					weight_field(out, m, f);
				else
					job_field(out, m, &m->jobs[r], f, cluster);
			}
			if (f->suffix)
				strbuf_addf(out, "%s", f->suffix);
		}
		strbuf_addf(out, "\n");
	}
	fmt_release(&fmt);
}

/* ---- sorting (-S) ---- */

static const char *sort_keys;

static int cmp_key(const prio_job_t *a, const prio_job_t *b, int c)
{
	double x = 0, y = 0;
	switch (c) {
	case 'i': x = a->job_id; y = b->job_id; break;
	case 'y': case 'Y': x = job_priority(a); y = job_priority(b); break;
	case 'a': case 'A': x = proto_dbl(a->age); y = proto_dbl(b->age); break;
	case 'b': case 'B': x = proto_dbl(a->assoc); y = proto_dbl(b->assoc); break;
	case 'f': case 'F': x = proto_dbl(a->fairshare); y = proto_dbl(b->fairshare); break;
	case 'j': case 'J': x = proto_dbl(a->jobsize); y = proto_dbl(b->jobsize); break;
	case 'p': case 'P': x = proto_dbl(a->part); y = proto_dbl(b->part); break;
	case 'q': case 'Q': x = proto_dbl(a->qos); y = proto_dbl(b->qos); break;
	case 'N': x = a->nice; y = b->nice; break;
	case 'S': x = (double)a->site; y = (double)b->site; break;
	case 'r': return strcmp(a->partition ? a->partition : "", b->partition ? b->partition : "");
	case 'u': return strcmp(cmd_user_name(a->user_id), cmd_user_name(b->user_id));
	default: return 0;
	}
	return x < y ? -1 : x > y;
}

static int cmp_jobs(const void *pa, const void *pb)
{
	const prio_job_t *a = pa, *b = pb;
	for (const char *s = sort_keys; *s;) {
		int desc = 0;
		while (*s == ',')
			s++;
		if (*s == '-' || *s == '+')
			desc = *s++ == '-';
		if (!*s)
			break;
		int r = cmp_key(a, b, *s++);
		while (*s && *s != ',')
			s++;
		if (r)
			return desc ? -r : r;
	}
	return a->job_id < b->job_id ? -1 : a->job_id > b->job_id;
}

void sprio_sort(msg_prio_info_t *m, const char *sort)
{
	sort_keys = sort && *sort ? sort : "i";
	qsort(m->jobs, m->njobs, sizeof(prio_job_t), cmp_jobs);
}

/* ---- the command ---- */

static void sprio_usage(FILE *fp)
{
	fprintf(fp, "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
		"     [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n");
}

static void sprio_help(void)
{
	printf(
"Usage: sprio [OPTIONS]\n"
"      --federation                display jobs in federation if a member of one\n"
"  -h, --noheader                  no headers on output\n"
"  -j, --jobs                      comma separated list of jobs\n"
"                                  to view, default is all\n"
"      --local                     display jobs on local cluster only\n"
"  -l, --long                      long report\n"
"  -M, --cluster=cluster_name      cluster to issue commands to. Default is\n"
"                                  current cluster.  cluster with no name will\n"
"                                  reset to default.\n"
"  -n, --norm                      display normalized values\n"
"  -o, --format=format             format specification\n"
"  -p, --partition=partition_name  comma separated list of partitions\n"
"      --sibling                   display job records separately for each\n"
"                                  federation cluster\n"
"  -S, --sort=sort_list            comma-separated list of fields to sort on\n"
"  -u, --user=user_name            comma separated list of users to view\n"
"  -v, --verbose                   verbosity level\n"
"  -V, --version                   output version information and exit\n"
"  -w, --weights                   show the weights for each priority factor\n"
"\nHelp options:\n"
"  --help                          show this help message\n"
"  --usage                         display a brief summary of sprio options\n");
}

static void bad_letter(int c, void *arg)
{
	(void)arg;
	fprintf(stderr, "sprio: error: Invalid job format specification: %c\n", c ? c : ' ');
}

enum { OPT_USAGE = 0x100, OPT_HELP, OPT_LOCAL, OPT_FED, OPT_SIBLING };

int cmd_sprio(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "noheader", no_argument, NULL, 'h' },
		{ "jobs", optional_argument, NULL, 'j' },
		{ "long", no_argument, NULL, 'l' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "clusters", required_argument, NULL, 'M' },
		{ "norm", no_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'o' },
		{ "partition", required_argument, NULL, 'p' },
		{ "sort", required_argument, NULL, 'S' },
		{ "user", required_argument, NULL, 'u' },
		{ "users", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "weights", no_argument, NULL, 'w' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "local", no_argument, NULL, OPT_LOCAL },
		{ "federation", no_argument, NULL, OPT_FED },
		{ "sibling", no_argument, NULL, OPT_SIBLING },
		{ NULL, 0, NULL, 0 }
	};
	int c, flags = 0, normalized = 0, long_list = 0, jobs_opt = 0;
	const char *format = getenv("SPRIO_FORMAT"), *sort = NULL;
	char *users = NULL;
	msg_prio_req_t req = { 0 };
	log_init("sprio", 0, LOG_LVL_INFO, NULL);
	argv[0] = (char *)"sprio";
	optind = 0;
	opterr = 1;
	int rc = 0;
	while ((c = getopt_long(argc, argv, "hj::lM:no:p:S:u:vVw", opts, NULL)) != -1) {
		switch (c) {
		case 'h': flags |= SPRIO_F_NOHEADER; break;
		case 'j':
			jobs_opt = 1;
			if (optarg) {
				strv_t ids = { 0 };
				cmd_split(&ids, optarg);
				for (uint32_t i = 0; i < ids.n; i++) {
					char *end = NULL;
					unsigned long v = strtoul(ids.v[i], &end, 10);
					if (end == ids.v[i] || *end || !v || v > UINT32_MAX) {
						fprintf(stderr, "sprio: error: Invalid job id: %s\n", ids.v[i]);
						strv_free(&ids);
						rc = 1;
						goto out;
					}
					req.job_ids = xrealloc(req.job_ids, (req.njob_ids + 1) * sizeof(uint32_t));
					req.job_ids[req.njob_ids++] = (uint32_t)v;
				}
				strv_free(&ids);
			}
			break;
		case 'l': long_list = 1; break;
		case 'M': break;
		case 'n': normalized = 1; break;
		case 'o': format = optarg; break;
		case 'p':
			free(req.partitions);
			req.partitions = xstrdup(optarg);
			break;
		case 'S': sort = optarg; break;
		case 'u': {
			free(users);
			users = xstrdup(optarg);
			strv_t names = { 0 };
			cmd_split(&names, optarg);
			for (uint32_t i = 0; i < names.n; i++) {
				uint32_t uid;
				if (cmd_user_id(names.v[i], &uid)) {
					fprintf(stderr, "sprio: error: Invalid user: %s\n", names.v[i]);
					strv_free(&names);
					rc = 1;
					goto out;
				}
				req.user_ids = xrealloc(req.user_ids, (req.nuser_ids + 1) * sizeof(uint32_t));
				req.user_ids[req.nuser_ids++] = uid;
			}
			strv_free(&names);
			break;
		}
		case 'v': break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); goto out;
		case 'w': flags |= SPRIO_F_WEIGHTS; break;
		case OPT_USAGE: sprio_usage(stdout); goto out;
		case OPT_HELP: sprio_help(); goto out;
		case OPT_LOCAL: case OPT_FED: case OPT_SIBLING: break;
		default:
			cmd_bad_option("sprio");
			rc = 1;
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sprio: error: Unrecognized option: %s\n", argv[optind]);
		sprio_usage(stderr);
		rc = 1;
		goto out;
	}
	void *reply = NULL;
	int err = cmd_call(MSG_PRIO_INFO_REQ, &req, MSG_PRIO_INFO, &reply, NULL);
	if (err) {
		fprintf(stderr, "Couldn't get priority factors from controller: %s\n", slurm_strerror(err));
		rc = err & 0xff ? err & 0xff : 1;
		goto out;
	}
	msg_prio_info_t *m = reply;
	if (!m->multifactor) {
		fprintf(stderr, "You are not running a supported priority plugin\n(%s).\n"
			"Only 'priority/multifactor' is supported.\n",
			m->priority_type ? m->priority_type : "priority/basic");
		proto_msg_destroy(MSG_PRIO_INFO, reply);
		rc = 1;
		goto out;
	}
	char *deflt = NULL;
	if (!format)
		format = deflt = sprio_default_format(m, normalized, long_list, users != NULL);
	strbuf_t sb = STRBUF_INIT;
	if (jobs_opt && !m->njobs && !(flags & SPRIO_F_WEIGHTS)) {
		printf("Unable to find jobs matching user/id(s) specified\n");
	} else {
		sprio_sort(m, sort);
		sprio_format(&sb, m, format, flags, cmd_conf()->cluster_name, bad_letter);
		fwrite(sb.buf, 1, sb.len, stdout);
	}
	strbuf_release(&sb);
	free(deflt);
	proto_msg_destroy(MSG_PRIO_INFO, reply);
out:
	free(users);
	free(req.job_ids);
	free(req.user_ids);
	free(req.partitions);
	return rc;
}
