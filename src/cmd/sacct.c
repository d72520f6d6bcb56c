/*
 * sacct: job and step records as Slurm 22.05's sacct prints them
 * (t/compat and ../shared/compat/slurm-22.05/sacct_*).
 *
 * Options are parsed here and the selection (jobs, users, window, states,
 * filters) goes to the controller as one MSG_ACCT_REQ of ACCT_OP_SACCT
 * naming the raw columns the chosen fields need; the controller runs the
 * query off its loop (ctld/acct_sacct.c) and answers rows of cells, which
 * sacct_fmt.c formats. The time window's defaults are resolved here, as
 * Slurm's sacct does: since midnight; with -j since ever; with -s now,
 * and -E defaults to -S with -s (jobs in a state at that moment).
 */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/sacct.h"
#include "errors.h"
#include "hostlist.h"
#include "jobid.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define SACCT_TIMEOUT_MS (900 * 1000)
#define SACCT_DEFAULT_FORMAT "jobid,jobname,partition,account,alloccpus,state,exitcode"
#define SACCT_BRIEF_FORMAT "jobid,state,exitcode"
#define SACCT_LONG_FORMAT "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode," \
	"maxvmsizetask,avevmsize,maxrss,maxrssnode,maxrsstask,averss,maxpages,maxpagesnode," \
	"maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,ntasks,alloccpus,elapsed," \
	"state,exitcode,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,reqmem," \
	"consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite," \
	"maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres,tresusageinave," \
	"tresusageinmax,tresusageinmaxnode,tresusageinmaxtask,tresusageinmin," \
	"tresusageinminnode,tresusageinmintask,tresusageintot,tresusageoutmax," \
	"tresusageoutmaxnode,tresusageoutmaxtask,tresusageoutave,tresusageouttot"

static void sacct_usage(FILE *f)
{
	fprintf(f, "Usage: sacct [options]\n\tUse --help for help\n");
}

static void sacct_help(void)
{
	printf(
"Usage: sacct [OPTIONS]\n"
"Show the accounting records of jobs and their steps.\n\n"
"Selection:\n"
"  -a, --allusers            every user's jobs (root sees every user's by default)\n"
"  -A, --accounts=LIST       jobs of these accounts\n"
"  -E, --endtime=TIME        jobs eligible before TIME (default: now)\n"
"  -g, --gid, --group=LIST   jobs of these groups (names or ids)\n"
"  -j, --jobs=LIST           these jobs or steps: N, N.batch, N.extern, N.S, N_T\n"
"  -L, --allclusters         jobs of every cluster (there is one)\n"
"  -N, --nodelist=HOSTLIST   jobs that ran on any of these nodes\n"
"      --name=LIST           jobs with these names\n"
"  -q, --qos=LIST            jobs of these QOS\n"
"  -r, --partition=LIST      jobs of these partitions\n"
"  -s, --state=LIST          jobs in these states during the window (PD,R,CD,CA,F,TO,...)\n"
"  -S, --starttime=TIME      jobs in any state after TIME (default: midnight;\n"
"                            with -j: ever; with -s: now)\n"
"  -u, --uid, --user=LIST    jobs of these users (names or ids)\n"
"  -X, --allocations         the jobs only, not their steps\n\n"
"Output:\n"
"  -b, --brief               JobID, State and ExitCode\n"
"      --delimiter=TEXT      the separator of -p/-P (default '|')\n"
"  -e, --helpformat          list the fields of --format\n"
"      --json                the records as JSON (Slurm 22.05's structure)\n"
"  -l, --long                the long list of fields\n"
"  -n, --noheader            no header lines\n"
"      --noconvert           memory as stored, not in larger units\n"
"  -o, --format=LIST         these fields; Field%%N sets a width, %%-N left-justifies\n"
"  -p, --parsable            fields separated by '|', one at the end too\n"
"  -P, --parsable2           fields separated by '|'\n"
"      --units=[KMGTP]       memory in this unit\n\n"
"  -h, --help                this help\n"
"      --usage               a short usage line\n"
"  -V, --version             the Slurm version spoken\n"
"SACCT_FORMAT sets the default format.\n");
}

static void print_helpformat(void)
{
	/* four to a line, each in 19 columns and a space or the newline */
	for (size_t i = 0; i < sacct_nfields; i++)
		printf("%-19s%c", sacct_fields[i].name,
		       i % 4 == 3 || i + 1 == sacct_nfields ? '\n' : ' ');
}

/* sacct's time forms: those of --begin (timefmt.h) plus MMDD[YY] and
 * MM/DD[/YY] and MM.DD[.YY], each optionally followed by -HH:MM[:SS]. */
static int parse_time(const char *s, time_t now, time_t *t)
{
	int mon = 0, day = 0, year = -1, n = 0, hh = 0, mm = 0, ss = 0;
	struct tm tm;
	/* a time of day, midnight, noon: today's, even when past (sacct
	 * looks back; --begin's forms look forward) */
	if ((sscanf(s, "%d:%d%n", &hh, &mm, &n) == 2 && (!s[n] || (s[n] == ':' &&
	     sscanf(s + n + 1, "%d%n", &ss, &day) == 1 && !s[n + 1 + day]))) ||
	    !strcasecmp(s, "midnight") || !strcasecmp(s, "noon") || !strcasecmp(s, "today")) {
		if (!strcasecmp(s, "noon"))
			hh = 12, mm = ss = 0;
		else if (isalpha((unsigned char)*s))
			hh = mm = ss = 0;
		if (hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 59)
			return -1;
		localtime_r(&now, &tm);
		tm.tm_hour = hh;
		tm.tm_min = mm;
		tm.tm_sec = ss;
		tm.tm_isdst = -1;
		*t = mktime(&tm);
		return 0;
	}
	hh = mm = ss = day = n = 0;
	if (!time_abs_parse(s, now, t))
		return 0;
	const char *rest = NULL;
	if (sscanf(s, "%2d%2d%n", &mon, &day, &n) == 2 && n == 4 &&
	    (s[4] == '\0' || s[4] == '-' || (s[4] >= '0' && s[4] <= '9'))) {
		rest = s + 4;
		if (rest[0] >= '0' && rest[0] <= '9' && rest[1] >= '0' && rest[1] <= '9') {
			year = (rest[0] - '0') * 10 + rest[1] - '0';
			rest += 2;
		}
	} else if ((sscanf(s, "%d/%d%n", &mon, &day, &n) == 2 ||
		    sscanf(s, "%d.%d%n", &mon, &day, &n) == 2) && n > 0) {
		rest = s + n;
		if ((*rest == '/' || *rest == '.') && sscanf(rest + 1, "%d%n", &year, &n) == 1)
			rest += 1 + n;
	} else {
		return -1;
	}
	if (*rest == '-') {
		int k = sscanf(rest + 1, "%d:%d:%d", &hh, &mm, &ss);
		if (k < 2)
			return -1;
	} else if (*rest) {
		return -1;
	}
	if (mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 59)
		return -1;
	localtime_r(&now, &tm);
	if (year >= 0)
		tm.tm_year = year < 100 ? year + 100 : year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	tm.tm_isdst = -1;
	*t = mktime(&tm);
	return 0;
}

static time_t midnight(time_t now)
{
	struct tm tm;
	localtime_r(&now, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* ---- --json (Slurm 22.05's openapi/dbv0.0.38 layout) ---- */

static json_t *jstr(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *jexit(uint32_t st)
{
	json_t *o = json_object();
	if (WIFSIGNALED(st)) {
		json_object_set_new(o, "status", json_string("SIGNALED"));
		json_object_set_new(o, "return_code", json_null());
		json_t *sg = json_object();
		json_object_set_new(sg, "signal_id", json_integer(WTERMSIG(st)));
		json_object_set_new(sg, "name", json_string(strsignal(WTERMSIG(st))));
		json_object_set_new(o, "signal", sg);
	} else {
		json_object_set_new(o, "status", json_string(WEXITSTATUS(st) ? "FAILED" : "SUCCESS"));
		json_object_set_new(o, "return_code", json_integer(WEXITSTATUS(st)));
	}
	return o;
}

static int64_t rnum(const sacct_row_t *r, int c)
{
	return r->c[c] && *r->c[c] ? strtoll(r->c[c], NULL, 10) : 0;
}

/* "cpu=2,mem=2G,node=2,billing=2,gres/gpu=8" as Slurm's TRES list. */
static json_t *jtres(const char *t)
{
	json_t *a = json_array();
	if (!t)
		return a;
	static const struct { const char *type; int id; } ids[] = {
		{ "cpu", 1 }, { "mem", 2 }, { "energy", 3 }, { "node", 4 }, { "billing", 5 },
	};
	char *dup = xstrdup(t), *save = NULL;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		if (!eq)
			continue;
		*eq = '\0';
		json_t *o = json_object();
		char *slash = strchr(w, '/');
		int id = 1000;
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			if (!strcmp(ids[i].type, w))
				id = ids[i].id;
		if (slash) {
			*slash = '\0';
			json_object_set_new(o, "type", json_string(w));
			json_object_set_new(o, "name", json_string(slash + 1));
		} else {
			json_object_set_new(o, "type", json_string(w));
			json_object_set_new(o, "name", json_null());
		}
		json_object_set_new(o, "id", json_integer(id));
		uint64_t v = 0;
		if (!strcmp(w, "mem"))
			mem_parse_mb(eq + 1, &v);
		else
			v = strtoull(eq + 1, NULL, 10);
		json_object_set_new(o, "count", json_integer((json_int_t)v));
		json_array_append_new(a, o);
	}
	free(dup);
	return a;
}

static json_t *jcpu_time(int64_t us)
{
	json_t *o = json_object();
	json_object_set_new(o, "seconds", json_integer(us / 1000000));
	json_object_set_new(o, "microseconds", json_integer(us % 1000000));
	return o;
}

static const char *step_name_id(const sacct_row_t *r, char *buf, size_t len)
{
	uint32_t s = (uint32_t)rnum(r, SC_STEP_ID);
	if (s == 4294967291u)
		return "batch";
	if (s == 4294967292u)
		return "extern";
	if (s == 4294967290u)
		return "interactive";
	snprintf(buf, len, "%u", s);
	return buf;
}

static json_t *json_step(const sacct_row_t *r)
{
	json_t *o = json_object(), *t = json_object(), *n = json_object(), *st = json_object();
	char b[64];
	const char *nl = r->c[SC_NODELIST];
	json_t *list = json_array();
	hostlist_t *hl = nl && *nl ? hostlist_create(nl, NULL) : NULL;
	for (size_t i = 0; hl && i < hostlist_count(hl); i++)
		json_array_append_new(list, json_string(hostlist_nth(hl, i)));
	json_object_set_new(n, "list", list);
	json_object_set_new(n, "count", json_integer(rnum(r, SC_ALLOC_NODES)));
	json_object_set_new(n, "range", json_string(nl ? nl : ""));
	hostlist_destroy(hl);
	json_object_set_new(o, "nodes", n);
	json_t *tres = json_object();
	json_object_set_new(tres, "allocated", jtres(r->c[SC_ALLOC_TRES]));
	json_object_set_new(o, "tres", tres);
	int64_t s = rnum(r, SC_START), e = rnum(r, SC_END);
	json_object_set_new(t, "elapsed", json_integer(s ? (e ? e : r->now) - s : 0));
	json_object_set_new(t, "end", json_integer(e));
	json_object_set_new(t, "start", json_integer(s));
	json_object_set_new(t, "suspended", json_integer(rnum(r, SC_SUSPENDED)));
	int64_t u = rnum(r, SC_USER_CPU_US), sy = rnum(r, SC_SYS_CPU_US);
	json_object_set_new(t, "system", jcpu_time(sy));
	json_object_set_new(t, "total", jcpu_time(u + sy));
	json_object_set_new(t, "user", jcpu_time(u));
	json_object_set_new(o, "time", t);
	json_object_set_new(o, "exit_code", jexit((uint32_t)rnum(r, SC_EXIT_CODE)));
	json_t *tk = json_object();
	json_object_set_new(tk, "count", json_integer(rnum(r, SC_NTASKS)));
	json_object_set_new(o, "tasks", tk);
	json_object_set_new(o, "pid", json_null());
	json_t *cpu = json_object(), *rf = json_object();
	json_object_set_new(rf, "min", json_integer(0));
	json_object_set_new(rf, "max", json_integer(0));
	json_object_set_new(cpu, "requested_frequency", rf);
	json_object_set_new(cpu, "governor", json_array());
	json_object_set_new(o, "CPU", cpu);
	json_object_set_new(o, "kill_request_user", json_null());
	sacct_state_fmt(r, b, sizeof(b));
	json_object_set_new(o, "state", json_string(b));
	json_t *stats = json_object(), *sc = json_object(), *en = json_object();
	json_object_set_new(sc, "actual_frequency", json_integer(0));
	json_object_set_new(en, "consumed", json_integer(0));
	json_object_set_new(stats, "CPU", sc);
	json_object_set_new(stats, "energy", en);
	json_object_set_new(o, "statistics", stats);
	json_t *het = json_object();
	json_object_set_new(het, "component", json_null());
	json_object_set_new(st, "job_id", json_integer(rnum(r, SC_JOB_ID)));
	json_object_set_new(st, "het", het);
	json_object_set_new(st, "id", json_string(step_name_id(r, b, sizeof(b))));
	json_object_set_new(st, "name", jstr(r->c[SC_NAME]));
	json_object_set_new(o, "step", st);
	json_t *task = json_object();
	json_object_set_new(task, "distribution", json_string("Unknown"));
	json_object_set_new(o, "task", task);
	return o;
}

static json_t *json_job(const sacct_row_t *r, const char *cluster)
{
	json_t *o = json_object();
	char b[64];
	json_object_set_new(o, "account", jstr(r->c[SC_ACCOUNT]));
	json_t *cm = json_object();
	json_object_set_new(cm, "administrator", json_null());
	json_object_set_new(cm, "job", jstr(r->c[SC_COMMENT]));
	json_object_set_new(cm, "system", json_null());
	json_object_set_new(o, "comment", cm);
	json_object_set_new(o, "allocation_nodes", json_integer(rnum(r, SC_ALLOC_NODES)));
	json_t *ar = json_object(), *lim = json_object(), *mx = json_object(), *ru = json_object();
	int64_t aj = rnum(r, SC_ARRAY_JOB_ID), at = rnum(r, SC_ARRAY_TASK_ID);
	json_object_set_new(ar, "job_id", json_integer(aj));
	json_object_set_new(ru, "tasks", json_integer(0));
	json_object_set_new(mx, "running", ru);
	json_object_set_new(lim, "max", mx);
	json_object_set_new(ar, "limits", lim);
	json_object_set_new(ar, "task", json_null());
	json_object_set_new(ar, "task_id", aj ? json_integer(at) : json_null());
	json_object_set_new(o, "array", ar);
	json_t *as = json_object();
	json_object_set_new(as, "account", jstr(r->c[SC_ACCOUNT]));
	json_object_set_new(as, "cluster", jstr(r->c[SC_CLUSTER] ? r->c[SC_CLUSTER] : cluster));
	json_object_set_new(as, "partition", json_null());
	json_object_set_new(as, "user", jstr(r->c[SC_USER]));
	json_object_set_new(o, "association", as);
	json_object_set_new(o, "cluster", jstr(r->c[SC_CLUSTER] ? r->c[SC_CLUSTER] : cluster));
	json_object_set_new(o, "constraints", json_string(r->c[SC_CONSTRAINTS] ? r->c[SC_CONSTRAINTS] : ""));
	json_object_set_new(o, "container", json_null());
	json_object_set_new(o, "derived_exit_code", jexit((uint32_t)rnum(r, SC_DERIVED_EC)));
	json_t *t = json_object();
	int64_t s = rnum(r, SC_START), e = rnum(r, SC_END);
	json_object_set_new(t, "elapsed", json_integer(s ? (e ? e : r->now) - s : 0));
	json_object_set_new(t, "eligible", json_integer(rnum(r, SC_ELIGIBLE)));
	json_object_set_new(t, "end", json_integer(e));
	json_object_set_new(t, "start", json_integer(s));
	json_object_set_new(t, "submission", json_integer(rnum(r, SC_SUBMIT)));
	json_object_set_new(t, "suspended", json_integer(rnum(r, SC_SUSPENDED)));
	json_object_set_new(t, "system", jcpu_time(0));
	uint32_t tl = (uint32_t)rnum(r, SC_TIMELIMIT);
	json_object_set_new(t, "limit", json_integer(tl == TIME_NO_VAL || tl == TIME_INFINITE ? 0 : tl));
	json_object_set_new(t, "total", jcpu_time(0));
	json_object_set_new(t, "user", jcpu_time(0));
	json_object_set_new(o, "time", t);
	uint32_t ec = (uint32_t)rnum(r, SC_EXIT_CODE);
	if (((uint32_t)rnum(r, SC_STATE) & JOB_STATE_BASE) == JOB_CANCELLED && WIFSIGNALED(ec))
		ec = 0;
	json_object_set_new(o, "exit_code", jexit(ec));
	json_object_set_new(o, "flags", json_array());
	json_object_set_new(o, "group", jstr(r->c[SC_GRP] ? r->c[SC_GRP]
					      : cmd_group_name((uint32_t)rnum(r, SC_GID))));
	json_t *het = json_object();
	json_object_set_new(het, "job_id", json_integer(0));
	json_object_set_new(het, "job_offset", json_null());
	json_object_set_new(o, "het", het);
	json_object_set_new(o, "job_id", json_integer(rnum(r, SC_JOB_ID)));
	json_object_set_new(o, "name", jstr(r->c[SC_NAME]));
	json_t *mcs = json_object();
	json_object_set_new(mcs, "label", json_string(""));
	json_object_set_new(o, "mcs", mcs);
	json_object_set_new(o, "nodes", json_string(r->c[SC_NODELIST] ? r->c[SC_NODELIST]
						     : "None assigned"));
	json_object_set_new(o, "partition", jstr(r->c[SC_PARTITION]));
	json_object_set_new(o, "priority", json_integer(rnum(r, SC_PRIORITY)));
	json_object_set_new(o, "qos", jstr(r->c[SC_QOS]));
	json_t *rq = json_object();
	json_object_set_new(rq, "CPUs", json_integer(rnum(r, SC_REQ_CPUS)));
	json_object_set_new(rq, "memory", json_integer(rnum(r, SC_REQ_MEM)));
	json_object_set_new(o, "required", rq);
	json_object_set_new(o, "kill_request_user", r->c[SC_REQUID] && *r->c[SC_REQUID]
			    ? json_string(cmd_user_name((uint32_t)rnum(r, SC_REQUID))) : json_null());
	json_t *rs = json_object();
	json_object_set_new(rs, "id", json_integer(rnum(r, SC_RESV_ID)));
	json_object_set_new(rs, "name", r->c[SC_RESERVATION] ? json_string(r->c[SC_RESERVATION])
			    : json_integer(0));
	json_object_set_new(o, "reservation", rs);
	json_t *st = json_object();
	snprintf(b, sizeof(b), "%s", "");
	sacct_row_t plain = *r;
	plain.c[SC_REQUID] = NULL;     /* "current" is the bare state name */
	sacct_state_fmt(&plain, b, sizeof(b));
	json_object_set_new(st, "current", json_string(b));
	json_object_set_new(st, "reason", json_string(job_reason_string((uint32_t)rnum(r, SC_REASON))));
	json_object_set_new(o, "state", st);
	json_object_set_new(o, "steps", json_array());
	json_t *tres = json_object();
	json_object_set_new(tres, "allocated", jtres(r->c[SC_ALLOC_TRES]));
	json_object_set_new(tres, "requested", jtres(r->c[SC_REQ_TRES]));
	json_object_set_new(o, "tres", tres);
	json_object_set_new(o, "user", jstr(r->c[SC_USER] ? r->c[SC_USER]
					     : cmd_user_name((uint32_t)rnum(r, SC_UID))));
	json_t *wk = json_object();
	json_object_set_new(wk, "wckey", json_string(""));
	json_object_set_new(wk, "flags", json_array());
	json_object_set_new(o, "wckey", wk);
	json_object_set_new(o, "working_directory", jstr(r->c[SC_WORKDIR]));
	return o;
}

/* ---- the table ---- */

typedef struct sacct_params {
	sacct_out_t *out;
	size_t nout;
	int noheader, parsable;      /* parsable: 1 (-p), 2 (-P) */
	const char *delim;
	int json;
	sacct_opts_t o;
} sacct_params_t;

static void print_rows(const sacct_params_t *p, const msg_acct_reply_t *m, const char *cluster)
{
	int idx[SC_N];
	for (int i = 0; i < SC_N; i++)
		idx[i] = -1;
	for (uint32_t k = 0; k < m->cols.n; k++)
		for (int i = 0; i < SC_N; i++)
			if (!strcmp(m->cols.v[k], sacct_col_names[i]))
				idx[i] = (int)k;
	size_t ncols = m->cols.n, nrows = ncols ? m->cells.n / ncols : 0;
	int64_t now = (int64_t)time(NULL);
	strbuf_t sb = STRBUF_INIT, v = STRBUF_INIT;
	json_t *jobs = p->json ? json_array() : NULL, *cur = NULL;
	if (!p->json && !p->noheader) {
		for (size_t i = 0; i < p->nout; i++) {
			const sacct_out_t *f = &p->out[i];
			if (p->parsable) {
				strbuf_addstr(&sb, f->def->name);
				if (i + 1 < p->nout || p->parsable == 1)
					strbuf_addstr(&sb, p->delim);
				continue;
			}
			/* a header is cut without the '+' */
			char *h = xstrndup(f->def->name, (size_t)f->width);
			sacct_pad(&sb, h, f->width, f->left);
			free(h);
		}
		strbuf_addch(&sb, '\n');
		if (!p->parsable) {
			for (size_t i = 0; i < p->nout; i++) {
				for (int k = 0; k < p->out[i].width; k++)
					strbuf_addch(&sb, '-');
				strbuf_addch(&sb, ' ');
			}
			strbuf_addch(&sb, '\n');
		}
	}
	for (size_t rw = 0; rw < nrows; rw++) {
		sacct_row_t r = { .now = now };
		const char *const *cells = (const char *const *)m->cells.v + rw * ncols;
		for (int i = 0; i < SC_N; i++)
			r.c[i] = idx[i] >= 0 ? cells[idx[i]] : NULL;
		r.step = r.c[SC_STEP_ID] && *r.c[SC_STEP_ID];
		if (p->json) {
			if (!r.step) {
				cur = json_job(&r, cluster);
				json_array_append_new(jobs, cur);
			} else if (cur) {
				json_array_append_new(json_object_get(cur, "steps"), json_step(&r));
			}
			continue;
		}
		for (size_t i = 0; i < p->nout; i++) {
			const sacct_out_t *f = &p->out[i];
			strbuf_setlen(&v, 0);
			sacct_value(&v, f->def, &r, &p->o);
			if (p->parsable) {
				strbuf_addstr(&sb, v.buf);
				if (i + 1 < p->nout || p->parsable == 1)
					strbuf_addstr(&sb, p->delim);
			} else {
				sacct_pad(&sb, v.buf, f->width, f->left);
			}
		}
		strbuf_addch(&sb, '\n');
		if (sb.len > 1 << 16) {
			fwrite(sb.buf, 1, sb.len, stdout);
			strbuf_setlen(&sb, 0);
		}
	}
	if (p->json) {
		json_t *root = json_object(), *meta = json_object(), *pl = json_object();
		json_t *sl = json_object(), *ver = json_object();
		json_object_set_new(pl, "type", json_string("openapi/dbv0.0.38"));
		json_object_set_new(pl, "name", json_string("Slurm OpenAPI DB v0.0.38"));
		json_object_set_new(meta, "plugin", pl);
		json_object_set_new(ver, "major", json_integer(22));
		json_object_set_new(ver, "micro", json_integer(8));
		json_object_set_new(ver, "minor", json_integer(5));
		json_object_set_new(sl, "version", ver);
		json_object_set_new(sl, "release", json_string(SLURM_COMPAT_VERSION));
		json_object_set_new(meta, "Slurm", sl);
		json_object_set_new(root, "meta", meta);
		json_object_set_new(root, "errors", json_array());
		json_object_set_new(root, "jobs", jobs);
		char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ESCAPE_SLASH);
		if (s)
			strbuf_addf(&sb, "%s\n", s);
		free(s);
		json_decref(root);
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	strbuf_release(&v);
}

/* Resolve a comma list of user (or group) names/ids to ids. */
static int ids_arg(strbuf_t *out, const char *list, int group)
{
	strv_t names = { 0 };
	cmd_split(&names, list);
	for (uint32_t i = 0; i < names.n; i++) {
		uint32_t id;
		if (group ? cmd_group_id(names.v[i], &id) : cmd_user_id(names.v[i], &id)) {
			fprintf(stderr, "sacct: error: Invalid %s id: %s\n", group ? "group" : "user",
				names.v[i]);
			strv_free(&names);
			return -1;
		}
		strbuf_addf(out, "%s%u", out->len ? "," : "", id);
	}
	strv_free(&names);
	return 0;
}

static void list_append(strbuf_t *sb, const char *list)
{
	if (*list && sb->len)
		strbuf_addch(sb, ',');
	strbuf_addstr(sb, list);
}

enum {
	OPT_DELIM = 0x100, OPT_NAME, OPT_NOCONVERT, OPT_UNITS, OPT_USAGE, OPT_JSON, OPT_YAML,
	OPT_LOCAL, OPT_FED, OPT_HELP, OPT_LOCALUID, OPT_ENVVARS, OPT_WHOLEHET, OPT_ARRAY,
};

int cmd_sacct(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "allusers", no_argument, NULL, 'a' },
		{ "accounts", required_argument, NULL, 'A' },
		{ "account", required_argument, NULL, 'A' },
		{ "array", no_argument, NULL, OPT_ARRAY },
		{ "brief", no_argument, NULL, 'b' },
		{ "batch-script", no_argument, NULL, 'B' },
		{ "completion", no_argument, NULL, 'c' },
		{ "constraints", required_argument, NULL, 'C' },
		{ "delimiter", required_argument, NULL, OPT_DELIM },
		{ "duplicates", no_argument, NULL, 'D' },
		{ "env-vars", no_argument, NULL, OPT_ENVVARS },
		{ "helpformat", no_argument, NULL, 'e' },
		{ "endtime", required_argument, NULL, 'E' },
		{ "file", required_argument, NULL, 'f' },
		{ "federation", no_argument, NULL, OPT_FED },
		{ "gid", required_argument, NULL, 'g' },
		{ "group", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "nnodes", required_argument, NULL, 'i' },
		{ "ncpus", required_argument, NULL, 'I' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timelimit-min", required_argument, NULL, 'k' },
		{ "timelimit-max", required_argument, NULL, 'K' },
		{ "long", no_argument, NULL, 'l' },
		{ "allclusters", no_argument, NULL, 'L' },
		{ "local", no_argument, NULL, OPT_LOCAL },
		{ "clusters", required_argument, NULL, 'M' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "nodelist", required_argument, NULL, 'N' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "noconvert", no_argument, NULL, OPT_NOCONVERT },
		{ "format", required_argument, NULL, 'o' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "qos", required_argument, NULL, 'q' },
		{ "partition", required_argument, NULL, 'r' },
		{ "reason", required_argument, NULL, 'R' },
		{ "state", required_argument, NULL, 's' },
		{ "starttime", required_argument, NULL, 'S' },
		{ "truncate", no_argument, NULL, 'T' },
		{ "uid", required_argument, NULL, 'u' },
		{ "user", required_argument, NULL, 'u' },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ "use-local-uid", no_argument, NULL, OPT_LOCALUID },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "wckeys", required_argument, NULL, 'W' },
		{ "whole-hetjob", optional_argument, NULL, OPT_WHOLEHET },
		{ "associations", required_argument, NULL, 'x' },
		{ "allocations", no_argument, NULL, 'X' },
		{ "yaml", no_argument, NULL, OPT_YAML },
		{ NULL, 0, NULL, 0 }
	};
	log_init("sacct", 0, LOG_LVL_INFO, NULL);
	argv[0] = (char *)"sacct";
	optind = 0;
	opterr = 1;
	sacct_params_t p = { .delim = "|", .o = { .units = -1 } };
	strbuf_t fmt = STRBUF_INIT, jobs = STRBUF_INIT, users = STRBUF_INIT, gids = STRBUF_INIT;
	strbuf_t accounts = STRBUF_INIT, parts = STRBUF_INIT, qos = STRBUF_INIT;
	strbuf_t names = STRBUF_INIT, states = STRBUF_INIT, nodes = STRBUF_INIT;
	int all = 0, nosteps = 0, brief = 0, long_fmt = 0, have_s = 0, have_e = 0, rc = 0;
	time_t now = time(NULL), start = 0, end = 0;
	int c;
	while ((c = getopt_long(argc, argv, "aA:bBcC:DeE:f:g:hi:I:j:k:K:lLM:nN:o:pPq:r:R:s:S:Tu:vVW:x:X",
				opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = 1; break;
		case 'A': list_append(&accounts, optarg); break;
		case 'b': brief = 1; break;
		case 'e': print_helpformat(); goto out;
		case 'E': case 'S':
			if (parse_time(optarg, now, c == 'E' ? &end : &start)) {
				fprintf(stderr, "Invalid time specification (pos=0): %s\n", optarg);
				rc = 1;
				goto out;
			}
			if (c == 'E')
				have_e = 1;
			else
				have_s = 1;
			break;
		case 'g':
			if (ids_arg(&gids, optarg, 1)) {
				rc = 1;
				goto out;
			}
			break;
		case 'h': sacct_help(); goto out;
		case 'j': {
			strv_t w = { 0 };
			cmd_split(&w, optarg);
			for (uint32_t i = 0; i < w.n; i++) {
				uint32_t job, task, step;
				if (jobid_parse_selector(w.v[i], &job, &task, &step)) {
					fprintf(stderr, "sacct: fatal: Bad job/step specified: %s\n", w.v[i]);
					strv_free(&w);
					rc = 1;
					goto out;
				}
			}
			strv_free(&w);
			list_append(&jobs, optarg);
			break;
		}
		case 'l': long_fmt = 1; break;
		case 'n': p.noheader = 1; break;
		case 'N': {
			char *err = NULL;
			/* checked as the controller reads it: not expanded */
			hostset_t *hs = hostset_create(optarg, &err);
			if (!hs) {
				fprintf(stderr, "sacct: error: Invalid node list: %s\n", err ? err : optarg);
				free(err);
				rc = 1;
				goto out;
			}
			hostset_destroy(hs);
			list_append(&nodes, optarg);
			break;
		}
		case OPT_NAME: list_append(&names, optarg); break;
		case 'o':
			if (fmt.len)
				strbuf_addch(&fmt, ',');
			strbuf_addstr(&fmt, optarg);
			break;
		case 'p': p.parsable = 1; break;
		case 'P': p.parsable = 2; break;
		case 'q': list_append(&qos, optarg); break;
		case 'r': list_append(&parts, optarg); break;
		case 's': {
			strv_t w = { 0 };
			cmd_split(&w, optarg);
			for (uint32_t i = 0; i < w.n; i++) {
				int st = sacct_state_parse(w.v[i]);
				if (st < 0) {
					fprintf(stderr, "sacct: fatal: unrecognized job state value '%s'\n",
						w.v[i]);
					strv_free(&w);
					rc = 1;
					goto out;
				}
				strbuf_addf(&states, "%s%d", states.len ? "," : "", st);
			}
			strv_free(&w);
			break;
		}
		case 'u':
			if (!strcmp(optarg, "-1")) {
				all = 1;
				break;
			}
			if (ids_arg(&users, optarg, 0)) {
				rc = 1;
				goto out;
			}
			break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); goto out;
		case 'X': nosteps = 1; break;
		case OPT_DELIM: p.delim = optarg; break;
		case OPT_NOCONVERT: p.o.noconvert = 1; break;
		case OPT_UNITS: {
			const char *u = strchr("KMGTP", optarg[0] & ~0x20);
			if (!optarg[0] || !u || (optarg[1] && optarg[1] != 'B' && optarg[1] != 'b')) {
				fprintf(stderr, "sacct: error: Invalid unit type: %s\n", optarg);
				rc = 1;
				goto out;
			}
			p.o.units = (int)(u - "KMGTP");
			break;
		}
		case OPT_JSON: p.json = 1; break;
		case OPT_YAML:
			fprintf(stderr, "sacct: error: --yaml is not supported (use --json)\n");
			rc = 1;
			goto out;
		case OPT_USAGE: sacct_usage(stdout); goto out;
		case 'f': case 'W': case 'x': case 'i': case 'I': case 'k': case 'K': case 'R':
		case 'C':
			fprintf(stderr, "sacct: error: option -%c is not supported\n",
				c == 'f' ? 'f' : c == 'W' ? 'W' : c == 'x' ? 'x' : c);
			rc = 1;
			goto out;
		case 'B': case OPT_ENVVARS:
			fprintf(stderr, "sacct: error: job scripts and environments are not recorded"
				" (AccountingStoreFlags)\n");
			rc = 1;
			goto out;
		case 'c': case 'D': case 'L': case 'M': case 'T': case 'v': case OPT_LOCAL:
		case OPT_FED: case OPT_LOCALUID: case OPT_WHOLEHET: case OPT_ARRAY:
			break;             /* one cluster, one record per job id */
		default:
			sacct_usage(stderr);
			rc = 1;
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sacct: error: Unknown arguments:");
		for (int i = optind; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
		rc = 1;
		goto out;
	}

	/* the fields */
	const char *spec = fmt.len ? fmt.buf : brief ? SACCT_BRIEF_FORMAT
		: long_fmt ? SACCT_LONG_FORMAT : getenv("SACCT_FORMAT");
	if (!spec || !*spec)
		spec = SACCT_DEFAULT_FORMAT;
	char *bad = NULL;
	if (sacct_format_parse(spec, &p.out, &p.nout, &bad)) {
		fprintf(stderr, "sacct: error: Invalid field requested: \"%s\"\n", bad);
		free(bad);
		rc = 1;
		goto out;
	}

	/* the window (sacct(1): DEFAULT TIME WINDOW) */
	if (!have_s)
		start = jobs.len ? 0 : states.len ? now : midnight(now);
	if (!have_e && states.len)
		end = start ? start : now, have_e = 1;
	if (have_e && have_s && end < start) {
		fprintf(stderr, "sacct: error: Start time (%ld) requested is after end time (%ld).\n",
			(long)start, (long)end);
		rc = 1;
		goto out;
	}

	unsigned char need[SC_N] = { 0 };
	for (size_t i = 0; i < p.nout; i++)
		sacct_field_need(p.out[i].def, need);
	if (p.json)
		memset(need, 1, sizeof(need));
	strbuf_t cols = STRBUF_INIT;
	for (int i = SC_ARRAY_JOB_ID; i < SC_N; i++)
		if (need[i])
			strbuf_addf(&cols, "%s%s", cols.len ? "," : "", sacct_col_names[i]);
	if (!cols.len)
		strbuf_addstr(&cols, "state");

	msg_acct_req_t req = { .op = ACCT_OP_SACCT };
	char *a = xasprintf("cols=%s", cols.buf);
	strv_push(&req.args, a);
	free(a);
	strbuf_release(&cols);
	/* root sees every user's jobs by default, as Slurm's sacct */
	if (all || (!users.len && getuid() == 0))
		strv_push(&req.args, "all=1");
	if (nosteps)
		strv_push(&req.args, "nosteps=1");
	const struct { const char *k; strbuf_t *v; } lists[] = {
		{ "jobs", &jobs }, { "users", &users }, { "gids", &gids }, { "accounts", &accounts },
		{ "partitions", &parts }, { "qos", &qos }, { "names", &names }, { "states", &states },
		{ "nodes", &nodes },
	};
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (lists[i].v->len) {
			a = xasprintf("%s=%s", lists[i].k, lists[i].v->buf);
			strv_push(&req.args, a);
			free(a);
		}
	a = xasprintf("start=%lld", (long long)start);
	strv_push(&req.args, a);
	free(a);
	if (have_e) {
		a = xasprintf("end=%lld", (long long)end);
		strv_push(&req.args, a);
		free(a);
	}
	/* A query over many records may take longer than MessageTimeout:
	 * wait as long as Slurm's sacct waits on slurmdbd. */
	void *reply = NULL;
	enum msg_type rtype = MSG_NONE;
	int err = 0;
	rpc_t *rp = rpc_connect_ctld(cmd_conf(), &err);
	if (rp) {
		err = rpc_send(rp, MSG_ACCT_REQ, &req);
		if (!err)
			err = rpc_recv(rp, &rtype, &reply, SACCT_TIMEOUT_MS);
		rpc_close(rp);
	} else if (!err) {
		err = SLUICE_E_CONNECT;
	}
	if (!err && rtype == MSG_RC) {
		err = ((msg_rc_t *)reply)->rc ? ((msg_rc_t *)reply)->rc : SLUICE_E_PROTOCOL;
		proto_msg_destroy(rtype, reply);
		reply = NULL;
	} else if (!err && rtype != MSG_ACCT_REPLY) {
		proto_msg_destroy(rtype, reply);
		reply = NULL;
		err = SLUICE_E_PROTOCOL;
	}
	proto_free(MSG_ACCT_REQ, &req);
	if (err) {
		fprintf(stderr, "sacct: error: Problem talking to the database: %s\n",
			slurm_strerror(err));
		rc = 1;
		goto out;
	}
	msg_acct_reply_t *m = reply;
	if (m->rc) {
		fprintf(stderr, "sacct: error: %s\n", m->msg ? m->msg : slurm_strerror(m->rc));
		rc = 1;
	} else {
		print_rows(&p, m, cmd_conf()->cluster_name);
	}
	proto_msg_destroy(MSG_ACCT_REPLY, reply);
out:
	free(p.out);
	strbuf_release(&fmt);
	strbuf_release(&jobs);
	strbuf_release(&users);
	strbuf_release(&gids);
	strbuf_release(&accounts);
	strbuf_release(&parts);
	strbuf_release(&qos);
	strbuf_release(&names);
	strbuf_release(&states);
	strbuf_release(&nodes);
	return rc;
}
