/*
 * jobopts: one option table for sbatch and srun, the #SBATCH directive
 * scanner, the input environment variables and --export. See jobopts.h.
 *
 * Error texts and exit statuses are the ones Slurm 22.05's clients print
 * (checked against the Debian slurm-client binaries): numeric options go
 * through a parse_int-style check that exits 1 ("Invalid numeric value
 * "x" for --ntasks."), everything else exits 255 (Slurm's exit(-1)).
 */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "log.h"
#include "mpi_type.h"
#include "rlimits.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

enum {
	O_BOTH = JOBOPTS_SBATCH | JOBOPTS_SRUN,
	O_SB = JOBOPTS_SBATCH,
	O_SR = JOBOPTS_SRUN,
};

/* Long-only option ids live above the character range. */
enum opt_id {
	ID_COMMENT = 256, ID_EXCLUSIVE, ID_EXPORT, ID_GET_USER_ENV, ID_GPUS_PER_NODE,
	ID_GRES, ID_JOBID, ID_MAIL_TYPE, ID_MAIL_USER, ID_MEM, ID_MEM_PER_CPU, ID_MPI,
	ID_NICE, ID_NTASKS_PER_NODE, ID_OPEN_MODE, ID_PARSABLE, ID_PRIORITY, ID_PTY,
	ID_REQUEUE, ID_NO_REQUEUE, ID_RESERVATION, ID_SIGNAL, ID_WCKEY, ID_WRAP,
	ID_USAGE, ID_CONTIGUOUS, ID_CPU_BIND, ID_DISTRIBUTION, ID_SWITCHES,
	ID_GPUS_PER_TASK, ID_CPUS_PER_GPU, ID_MEM_PER_GPU, ID_PROPAGATE, ID_UID, ID_GID,
	ID_KILL_INV_DEP, ID_MINCPUS, ID_TMP, ID_DEADLINE, ID_TEST_ONLY,
};

struct optdef {
	const char *name;
	int has_arg;
	int id;          /* short option character or ID_* */
	int cmds;        /* O_SB, O_SR or O_BOTH */
};

static const struct optdef optdefs[] = {
	{ "account", required_argument, 'A', O_BOTH },
	{ "array", required_argument, 'a', O_SB },
	{ "begin", required_argument, 'b', O_BOTH },
	{ "chdir", required_argument, 'D', O_BOTH },
	{ "comment", required_argument, ID_COMMENT, O_BOTH },
	{ "constraint", required_argument, 'C', O_BOTH },
	{ "contiguous", no_argument, ID_CONTIGUOUS, O_BOTH },
	{ "cpu-bind", required_argument, SRUN_ID_CPU_BIND, O_SR },
	{ "gpu-bind", required_argument, SRUN_ID_GPU_BIND, O_SR },
	{ "cpus-per-gpu", required_argument, ID_CPUS_PER_GPU, O_BOTH },
	{ "cpus-per-task", required_argument, 'c', O_BOTH },
	{ "deadline", required_argument, ID_DEADLINE, O_BOTH },
	{ "dependency", required_argument, 'd', O_BOTH },
	{ "distribution", required_argument, 'm', O_BOTH },
	{ "error", required_argument, 'e', O_BOTH },
	{ "exclude", required_argument, 'x', O_BOTH },
	{ "exclusive", optional_argument, ID_EXCLUSIVE, O_BOTH },
	{ "export", required_argument, ID_EXPORT, O_BOTH },
	{ "get-user-env", optional_argument, ID_GET_USER_ENV, O_SB },
	{ "gid", required_argument, ID_GID, O_SB },
	{ "gpus", required_argument, 'G', O_BOTH },
	{ "gpus-per-node", required_argument, ID_GPUS_PER_NODE, O_BOTH },
	{ "gpus-per-task", required_argument, ID_GPUS_PER_TASK, O_BOTH },
	{ "gres", required_argument, ID_GRES, O_BOTH },
	{ "help", no_argument, 'h', O_BOTH },
	{ "hold", no_argument, 'H', O_BOTH },
	{ "input", required_argument, 'i', O_BOTH },
	{ "job-name", required_argument, 'J', O_BOTH },
	{ "jobid", required_argument, ID_JOBID, O_SR },
	{ "kill-on-bad-exit", optional_argument, 'K', O_SR },
	{ "kill-on-invalid-dep", required_argument, ID_KILL_INV_DEP, O_SB },
	{ "label", no_argument, 'l', O_SR },
	{ "mail-type", required_argument, ID_MAIL_TYPE, O_BOTH },
	{ "mail-user", required_argument, ID_MAIL_USER, O_BOTH },
	{ "mem", required_argument, ID_MEM, O_BOTH },
	{ "mem-per-cpu", required_argument, ID_MEM_PER_CPU, O_BOTH },
	{ "mem-per-gpu", required_argument, ID_MEM_PER_GPU, O_BOTH },
	{ "mincpus", required_argument, ID_MINCPUS, O_BOTH },
	{ "mpi", required_argument, ID_MPI, O_SR },
	{ "nice", optional_argument, ID_NICE, O_BOTH },
	{ "nodelist", required_argument, 'w', O_BOTH },
	{ "nodes", required_argument, 'N', O_BOTH },
	{ "ntasks", required_argument, 'n', O_BOTH },
	{ "ntasks-per-node", required_argument, ID_NTASKS_PER_NODE, O_BOTH },
	{ "no-requeue", no_argument, ID_NO_REQUEUE, O_SB },
	{ "open-mode", required_argument, ID_OPEN_MODE, O_BOTH },
	{ "output", required_argument, 'o', O_BOTH },
	{ "overcommit", no_argument, 'O', O_BOTH },
	{ "oversubscribe", no_argument, 's', O_BOTH },
	{ "parsable", no_argument, ID_PARSABLE, O_SB },
	{ "partition", required_argument, 'p', O_BOTH },
	{ "priority", required_argument, ID_PRIORITY, O_BOTH },
	{ "propagate", optional_argument, ID_PROPAGATE, O_BOTH },
	{ "pty", no_argument, ID_PTY, O_SR },
	{ "qos", required_argument, 'q', O_BOTH },
	{ "quiet", no_argument, 'Q', O_BOTH },
	{ "requeue", no_argument, ID_REQUEUE, O_SB },
	{ "reservation", required_argument, ID_RESERVATION, O_BOTH },
	{ "signal", required_argument, ID_SIGNAL, O_BOTH },
	{ "switches", required_argument, ID_SWITCHES, O_BOTH },
	{ "test-only", no_argument, ID_TEST_ONLY, O_BOTH },
	{ "time", required_argument, 't', O_BOTH },
	{ "tmp", required_argument, ID_TMP, O_BOTH },
	{ "unbuffered", no_argument, 'u', O_SR },
	{ "uid", required_argument, ID_UID, O_SB },
	{ "usage", no_argument, ID_USAGE, O_BOTH },
	{ "verbose", no_argument, 'v', O_BOTH },
	{ "version", no_argument, 'V', O_BOTH },
	{ "wait", no_argument, 'W', O_SB },
	{ "wckey", required_argument, ID_WCKEY, O_BOTH },
	{ "wrap", required_argument, ID_WRAP, O_SB },
	/* srun only: srun_opts.c */
	{ "wait", required_argument, 'W', O_SR },
	{ "multi-prog", no_argument, SRUN_ID_MULTI_PROG, O_SR },
	{ "overlap", no_argument, SRUN_ID_OVERLAP, O_SR },
	{ "exact", no_argument, SRUN_ID_EXACT, O_SR },
	{ "mem-bind", required_argument, SRUN_ID_MEM_BIND, O_SR },
	{ "task-prolog", required_argument, SRUN_ID_TASK_PROLOG, O_SR },
	{ "task-epilog", required_argument, SRUN_ID_TASK_EPILOG, O_SR },
	{ "quit-on-interrupt", no_argument, SRUN_ID_QUIT_ON_INTERRUPT, O_SR },
};

/* getopt tables per command, built once. */
static struct option *long_opts[3];
static char *short_opts[3];

static void build_tables(enum jobopts_cmd cmd)
{
	if (long_opts[cmd])
		return;
	size_t n = ARRAY_SIZE(optdefs);
	struct option *lo = xcalloc(n + 1, sizeof(*lo));
	strbuf_t so = STRBUF_INIT;
	size_t k = 0;

	strbuf_addch(&so, '+');   /* stop at the script / command */
	for (size_t i = 0; i < n; i++) {
		if (!(optdefs[i].cmds & (int)cmd))
			continue;
		lo[k].name = optdefs[i].name;
		lo[k].has_arg = optdefs[i].has_arg;
		lo[k].flag = NULL;
		lo[k].val = optdefs[i].id;
		k++;
		if (optdefs[i].id < 256) {
			strbuf_addch(&so, (char)optdefs[i].id);
			if (optdefs[i].has_arg == required_argument)
				strbuf_addch(&so, ':');
			else if (optdefs[i].has_arg == optional_argument)
				strbuf_addstr(&so, "::");
		}
	}
	/* sbatch's -u is --usage; srun's -u is --unbuffered (in the table). */
	if (cmd == JOBOPTS_SBATCH)
		strbuf_addch(&so, 'u');
	long_opts[cmd] = lo;
	short_opts[cmd] = strbuf_detach(&so);
}

void jobopts_init(jobopts_t *o, enum jobopts_cmd cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->prog = cmd == JOBOPTS_SBATCH ? "sbatch" : "srun";
	o->desc.time_limit = TIME_NO_VAL;
	o->desc.nice = 0;
	o->sr.kill_bad_exit = o->sr.wait_secs = -1;
}

void jobopts_release(jobopts_t *o)
{
	proto_free(MSG_SUBMIT, &o->desc);
	xfree(o->export_spec);
	xfree(o->wrap);
	xfree(o->array);
	xfree(o->jobid);
	xfree(o->mpi);
	xfree(o->propagate);
	strv_free(&o->shown);
	srun_opts_release(o);
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* Slurm's parse_int: a positive decimal, else exit 1 with its text. */
static int parse_pos_int(jobopts_t *o, const char *name, const char *v, uint32_t *out)
{
	char *end = NULL;
	long r = v ? strtol(v, &end, 10) : 0;

	if (!v || !*v || *end || r <= 0) {
		fprintf(stderr, "%s: error: Invalid numeric value \"%s\" for %s.\n",
			o->prog, v ? v : "", name);
		return 1;
	}
	if (r >= INT_MAX) {
		fprintf(stderr, "%s: error: Numeric argument (%ld) to big for %s.\n",
			o->prog, r, name);
		return 1;
	}
	*out = (uint32_t)r;
	return 0;
}

int jobopts_mpi_check(const char *prog, const char *name)
{
	int t = mpi_type_parse(name);
	if (t < 0) {
		fprintf(stderr, "%s: error: Invalid MPI type '%s', --mpi=list for acceptable types\n",
			prog, name);
		return -1;
	}
	if (!mpi_type_supported(t)) {
		fprintf(stderr, "%s: error: MPI type '%s' is not served by this build: "
			"--mpi=list for acceptable types\n", prog, name);
		return -1;
	}
	return t;
}

static int fail255(jobopts_t *o, const char *what)
{
	fprintf(stderr, "%s: error: %s\n", o->prog, what);
	return 255;
}

static int count_part(const char *s, const char *end, uint32_t *v)
{
	char *e;
	if (s == end || !isdigit((unsigned char)*s))
		return -1;
	unsigned long long x = strtoull(s, &e, 10);
	if (e < end && (*e == 'k' || *e == 'K')) {
		x *= 1024;
		e++;
	} else if (e < end && (*e == 'm' || *e == 'M')) {
		x *= 1024 * 1024;
		e++;
	}
	if (e != end || x > INT_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int jobopts_node_count(const char *s, uint32_t *min, uint32_t *max)
{
	const char *dash = strchr(s, '-');
	const char *end = s + strlen(s);
	uint32_t a = 0, b = 0;

	/* "-MAX": at least one node (Slurm reads the empty minimum as 1) */
	if (dash == s)
		a = 1;
	else if (count_part(s, dash ? dash : end, &a) < 0)
		return -1;
	if (dash) {
		if (dash + 1 == end)
			return -2;      /* "MIN-": no maximum */
		if (count_part(dash + 1, end, &b) < 0)
			return -1;
	}
	*min = a;
	*max = dash ? b : 0;
	return 0;
}

int jobopts_signal_parse(const char *s)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
		{ "ABRT", SIGABRT }, { "KILL", SIGKILL }, { "ALRM", SIGALRM },
		{ "TERM", SIGTERM }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
		{ "URG", SIGURG }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
		{ "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
		{ "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM },
		{ "PROF", SIGPROF }, { "WINCH", SIGWINCH }, { "PIPE", SIGPIPE },
		{ "TRAP", SIGTRAP }, { "BUS", SIGBUS }, { "SEGV", SIGSEGV },
		{ "ILL", SIGILL }, { "FPE", SIGFPE }, { "SYS", SIGSYS },
	};
	if (!s || !*s)
		return -1;
	if (isdigit((unsigned char)*s)) {
		char *end;
		long v = strtol(s, &end, 10);
		if (*end || v < 0 || v >= NSIG)
			return -1;
		return (int)v;
	}
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		if (!strcasecmp(s, sigs[i].name))
			return sigs[i].sig;
	return -1;
}

/* --signal=[{R|B}:]<sig>[@<time>]: the signal, the seconds before the time
 * limit (60 when not given, as Slurm) and WARN_F_* flags. 0 or -1. */
static int signal_spec_parse(const char *v, uint32_t *sig, uint32_t *secs, uint32_t *flags)
{
	const char *p = v;
	const char *colon = strchr(v, ':');
	*flags = 0;
	if (colon) {
		for (; p < colon; p++) {
			if (*p == 'B' || *p == 'b')
				*flags |= WARN_F_BATCH;
			else if (*p == 'R' || *p == 'r')
				*flags |= WARN_F_REQUEUE;
			else
				return -1;
		}
		if (p == v)
			return -1;
		p = colon + 1;
	}
	char *s = xstrdup(p);
	char *at = strchr(s, '@');
	long t = 60;
	int ok = 1;
	if (at) {
		*at++ = '\0';
		if (*at) {
			char *end;
			t = strtol(at, &end, 10);
			if (*end || t < 0 || t > 0xffff)
				ok = 0;
		}
	}
	int n = ok ? jobopts_signal_parse(s) : -1;
	free(s);
	if (n <= 0)
		return -1;
	*sig = (uint32_t)n;
	*secs = (uint32_t)t;
	return 0;
}

/* "gpu:h100:2,mps" -> append "gres:gpu:h100:2,gres:mps" to *dst. */
static void add_gres(char **dst, const char *spec)
{
	strbuf_t sb = STRBUF_INIT;
	char *copy = xstrdup(spec), *save = NULL;

	if (*dst)
		strbuf_addstr(&sb, *dst);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (sb.len)
			strbuf_addch(&sb, ',');
		if (strncmp(t, "gres:", 5) && strncmp(t, "gres/", 5))
			strbuf_addstr(&sb, "gres:");
		strbuf_addstr(&sb, t);
	}
	free(copy);
	free(*dst);
	*dst = strbuf_detach(&sb);
}

/* Remove the gres:gpu items from a tres string (a new --gpus-per-node
 * replaces the old one instead of adding to it). */
static void drop_gpu_items(char **dst)
{
	if (!*dst)
		return;
	strbuf_t sb = STRBUF_INIT;
	char *copy = xstrdup(*dst), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "gres:gpu") || !strncmp(t, "gres:gpu:", 9))
			continue;
		if (sb.len)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, t);
	}
	free(copy);
	free(*dst);
	*dst = sb.len ? strbuf_detach(&sb) : NULL;
	strbuf_release(&sb);
}

static void set_gpus(char **dst, const char *v)
{
	drop_gpu_items(dst);
	char *item = xasprintf("gpu:%s", v);
	add_gres(dst, item);
	free(item);
}

static const char *opt_name(int id);

/* Record what -v lists for option id just applied with arg: the value as
 * Slurm's listing shows it (times and memory normalised, flags "set"). */
static void note_shown(jobopts_t *o, int id, const char *arg)
{
	const job_desc_t *d = &o->desc;
	const char *name = opt_name(id);
	char buf[64];
	const char *v = arg;

	if (!name || id == 'h' || id == ID_USAGE || id == 'V' || id == 'v' || id == 'Q')
		return;          /* informational; verbose is listed from its count */
	switch (id) {
	case 't':
		mins_fmt_limit(d->time_limit, buf, sizeof(buf));
		v = buf;
		break;
	case 'b':
		time_fmt_iso((time_t)d->begin_time, buf, sizeof(buf));
		v = buf;
		break;
	case ID_DEADLINE:
		time_fmt_iso((time_t)d->deadline, buf, sizeof(buf));
		v = buf;
		break;
	case ID_MEM: case ID_MEM_PER_CPU: case ID_MEM_PER_GPU: case ID_TMP: {
		uint64_t mb = id == ID_TMP ? d->pn_min_tmp : id == ID_MEM ? d->mem_per_node :
			id == ID_MEM_PER_CPU ? d->mem_per_cpu : d->mem_per_gpu;
		if (mb && mb % 1024 == 0)
			mem_fmt_mb(mb, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)mb);
		v = buf;
		break;
	}
	case 'N':
		if (d->max_nodes && d->max_nodes != d->min_nodes)
			snprintf(buf, sizeof(buf), "%u-%u", d->min_nodes, d->max_nodes);
		else
			snprintf(buf, sizeof(buf), "%u", d->min_nodes);
		v = buf;
		break;
	case ID_GRES:
		v = d->tres_per_node;
		break;
	case ID_OPEN_MODE:
		v = d->flags & JOB_F_OPEN_APPEND ? "a" : "t";
		break;
	case ID_NICE:
		snprintf(buf, sizeof(buf), "%d", d->nice);
		v = buf;
		break;
	case ID_EXCLUSIVE:
		v = arg && *arg ? arg : "exclusive";
		break;
	case ID_REQUEUE: case ID_NO_REQUEUE:
		v = name;
		break;
	case ID_PROPAGATE:
		v = o->propagate;
		break;
	default:
		if (!arg)
			v = "set";
		break;
	}
	size_t nlen = strlen(name);
	char *kv = xasprintf("%s\t%s", name, v ? v : "");
	for (uint32_t i = 0; i < o->shown.n; i++) {
		if (!strncmp(o->shown.v[i], name, nlen) && o->shown.v[i][nlen] == '\t') {
			free(o->shown.v[i]);
			o->shown.v[i] = kv;
			return;
		}
	}
	strv_push(&o->shown, kv);
	free(kv);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void jobopts_print_defined(const jobopts_t *o, FILE *fp)
{
	if (!o->verbose || o->quiet)
		return;
	strv_t all = { 0 };
	for (uint32_t i = 0; i < o->shown.n; i++)
		strv_push(&all, o->shown.v[i]);
	char *vb = xasprintf("verbose\t%d", o->verbose);
	strv_push(&all, vb);
	free(vb);
	qsort(all.v, all.n, sizeof(*all.v), cmp_str);
	fprintf(fp, "%s: defined options\n", o->prog);
	fprintf(fp, "%s: -------------------- --------------------\n", o->prog);
	for (uint32_t i = 0; i < all.n; i++) {
		char *tab = strchr(all.v[i], '\t');
		fprintf(fp, "%s: %-20.*s: %s\n", o->prog, (int)(tab - all.v[i]), all.v[i], tab + 1);
	}
	fprintf(fp, "%s: -------------------- --------------------\n", o->prog);
	fprintf(fp, "%s: end of defined options\n", o->prog);
	strv_free(&all);
}

/* Apply one option. from_env/cli only change bookkeeping. */
static int apply_one(jobopts_t *o, int id, const char *arg, int from_cli);

static int apply(jobopts_t *o, int id, const char *arg, int from_cli)
{
	int rc = apply_one(o, id, arg, from_cli);
	if (!rc)
		note_shown(o, id, arg);
	return rc;
}

static int apply_one(jobopts_t *o, int id, const char *arg, int from_cli)
{
	job_desc_t *d = &o->desc;
	uint32_t u = 0;
	uint64_t mb = 0;
	int rc;

	switch (id) {
	case 'A': set_str(&d->account, arg); break;
	case 'a':
		/* checked by the controller against MaxArraySize, as Slurm */
		set_str(&d->array_inx, arg);
		break;
	case 'b': {
		time_t t;
		if (time_abs_parse(arg, time(NULL), &t) < 0)
			return fail255(o, "Invalid --begin specification");
		d->begin_time = (int64_t)t;
		break;
	}
	case 'D': set_str(&d->work_dir, arg); break;
	case ID_COMMENT: set_str(&d->comment, arg); break;
	case 'C': set_str(&d->features, arg); break;
	case ID_CONTIGUOUS: d->flags |= JOB_F_CONTIGUOUS; break;
	case ID_GET_USER_ENV: {
		/* [timeout][S|L] */
		char *end = NULL;
		unsigned long t = arg && *arg ? strtoul(arg, &end, 10) : 0;
		if (arg && *arg && (t > 0xffff || (*end && ((*end != 'S' && *end != 'L') || end[1]))))
			return fail255(o, "Invalid --get-user-env specification");
		d->get_user_env = GUE_ON | (uint32_t)t | (end && *end == 'S' ? GUE_SHORT : 0u);
		break;
	}
	case ID_MAIL_TYPE:
		if (mail_type_parse(arg, &d->mail_type) < 0)
			return fail255(o, "Invalid --mail-type specification");
		break;
	case ID_MAIL_USER: set_str(&d->mail_user, arg); break;
	case ID_UID: case ID_GID: {
		/* a name or a number; root only (the controller checks too) */
		const char *what = id == ID_UID ? "--uid" : "--gid";
		if (getuid() != 0) {
			fprintf(stderr, "%s: error: %s only permitted by root user\n", o->prog, what);
			return 255;
		}
		uint32_t v;
		int bad = id == ID_UID ? cmd_user_id(arg, &v) : cmd_group_id(arg, &v);
		if (bad) {
			fprintf(stderr, "%s: error: Invalid %s specification\n", o->prog, what);
			return 255;
		}
		if (id == ID_UID)
			d->user_id = v;
		else
			d->group_id = v;
		d->as_ids |= id == ID_UID ? AS_UID : AS_GID;
		break;
	}
	case 'm':
	case ID_WCKEY: case ID_PRIORITY:
		/* accepted for compatibility; Sluice does not act on them */
		break;
	case 'c':
		if ((rc = parse_pos_int(o, "--cpus-per-task", arg, &u)))
			return rc;
		d->cpus_per_task = u;
		break;
	case 'd': set_str(&d->dependency, arg); break;
	case ID_DEADLINE: {
		time_t t;
		if (time_abs_parse(arg, time(NULL), &t) < 0)
			return fail255(o, "Invalid --deadline specification");
		d->deadline = (int64_t)t;
		break;
	}
	case ID_MINCPUS:
		if ((rc = parse_pos_int(o, "--mincpus", arg, &u)))
			return rc;
		d->pn_min_cpus = u;
		break;
	case ID_TMP:
		/* [K|M|G|T], megabytes without a unit, as --mem */
		if (mem_parse_mb(arg, &mb) < 0)
			return fail255(o, "Invalid --tmp specification");
		d->pn_min_tmp = mb;
		break;
	case 'O': d->flags |= JOB_F_OVERCOMMIT; break;
	case ID_TEST_ONLY: d->flags |= JOB_F_TEST_ONLY; break;
	case 'e': set_str(&d->std_err, arg); break;
	case 'x': set_str(&d->exc_nodes, arg); break;
	case ID_EXCLUSIVE:
		/* --exclusive[=user|mcs|oversubscribe] (oversubscribe: as -s);
		 * MCS labels do not exist here, so mcs is the whole node, as
		 * plain --exclusive. */
		if (!arg || !*arg || !strcasecmp(arg, "exclusive") || !strcasecmp(arg, "mcs"))
			d->flags |= JOB_F_EXCLUSIVE;
		else if (!strcasecmp(arg, "user"))
			d->flags |= JOB_F_EXCLUSIVE_USER;
		else if (!strcasecmp(arg, "oversubscribe"))
			d->flags |= JOB_F_OVERSUBSCRIBE;
		else
			return fail255(o, "Invalid --exclusive specification");
		break;
	case 's': d->flags |= JOB_F_OVERSUBSCRIBE; break;
	case ID_EXPORT: set_str(&o->export_spec, arg); break;
	case 'G':
		if (!strcasecmp(arg, "none")) {
			xfree(d->tres_per_job);
			break;
		}
		xfree(d->tres_per_job);
		set_gpus(&d->tres_per_job, arg);
		break;
	case ID_GPUS_PER_NODE:
		set_gpus(&d->tres_per_node, arg);
		break;
	case ID_GPUS_PER_TASK:
		/* "[type:]N" -> "gres:gpu:[type:]N", as Slurm 22.05 shows it */
		set_gpus(&d->tres_per_task, arg);
		break;
	case ID_CPUS_PER_GPU:
		if ((rc = parse_pos_int(o, "--cpus-per-gpu", arg, &u)))
			return rc;
		d->cpus_per_gpu = u;
		break;
	case ID_MEM_PER_GPU:
		if (mem_parse_mb(arg, &mb) < 0)
			return fail255(o, "Invalid --mem-per-gpu specification");
		d->mem_per_gpu = mb;
		break;
	case ID_GRES:
		o->gres_set = 1;
		if (!strcasecmp(arg, "none")) {
			/* a step's "none": none of the job's GPUs, which it
			 * would get without a GPU option (the controller's
			 * "gres:none") */
			xfree(d->tres_per_node);
			if (o->cmd == JOBOPTS_SRUN)
				d->tres_per_node = xstrdup("gres:none");
			break;
		}
		add_gres(&d->tres_per_node, arg);
		break;
	case 'h': o->help = 1; break;
	case 'H': d->flags |= JOB_F_HOLD; break;
	case 'i': set_str(&d->std_in, arg); break;
	case 'J': set_str(&d->name, arg); break;
	case ID_JOBID: {
		char *end;
		long v = strtol(arg, &end, 10);
		if (!*arg || *end || v <= 0) {
			fprintf(stderr, "%s: error: Invalid --jobid specification: %s\n", o->prog, arg);
			return 255;
		}
		set_str(&o->jobid, arg);
		break;
	}
	case 'l': o->label = 1; break;
	case ID_MEM:
		if (mem_parse_mb(arg, &mb) < 0)
			return fail255(o, "Invalid --mem specification");
		d->mem_per_node = mb;
		d->mem_per_cpu = 0;
		break;
	case ID_MEM_PER_CPU:
		if (mem_parse_mb(arg, &mb) < 0)
			return fail255(o, "Invalid --mem-per-cpu specification");
		d->mem_per_cpu = mb;
		d->mem_per_node = 0;
		break;
	case ID_MPI:
		if (!strcmp(arg, "list")) {
			/* as Slurm: listed when met, srun ends there */
			mpi_type_list(stdout);
			fflush(stdout);
			exit(0);
		}
		if (jobopts_mpi_check(o->prog, arg) < 0)
			return 1;
		set_str(&o->mpi, arg);
		break;
	case ID_NICE: {
		long v = 100;
		if (arg) {
			char *end;
			v = strtol(arg, &end, 10);
			if (*end || v < -2147483645L || v > 2147483645L)
				return fail255(o, "Invalid --nice value");
		}
		d->nice = (int32_t)v;
		break;
	}
	case ID_SWITCHES: {
		/* --switches=N[@max-time]; without a time Slurm waits
		 * max_switch_wait (300 s by default). */
		char *end;
		unsigned long v = strtoul(arg, &end, 10);
		uint32_t mins = 5;
		if (end == arg || (*end && *end != '@') ||
		    (*end == '@' && (time_limit_parse(end + 1, &mins) || mins == TIME_INFINITE)))
			return fail255(o, "Invalid --switches value");
		d->req_switch = (uint32_t)v;
		d->wait4switch = *end == '@' ? mins * 60 : 300;
		break;
	}
	case 'w': set_str(&d->req_nodes, arg); break;
	case 'N': {
		uint32_t mn, mx;
		int nrc = jobopts_node_count(arg, &mn, &mx);
		if (nrc == -2) {
			/* Slurm's own wording for "4-" (its maximum parses as -1) */
			fprintf(stderr, "%s: error: Maximum node count -1 is less than minimum node count %ld\n",
				o->prog, strtol(arg, NULL, 10));
			return 255;
		}
		if (nrc < 0) {
			fprintf(stderr, "%s: error: \"%s\" is not a valid node count\n", o->prog, arg);
			return 255;
		}
		if (mx && mx < mn) {
			fprintf(stderr, "%s: error: Maximum node count %u is less than minimum node count %u\n",
				o->prog, mx, mn);
			return 255;
		}
		d->min_nodes = mn;
		d->max_nodes = mx;
		o->nodes_set = 1;
		if (from_cli)
			o->cli_nodes = 1;
		break;
	}
	case 'n':
		if ((rc = parse_pos_int(o, "--ntasks", arg, &u)))
			return rc;
		d->ntasks = u;
		o->ntasks_set = 1;
		if (from_cli)
			o->cli_ntasks = 1;
		break;
	case ID_NTASKS_PER_NODE:
		if ((rc = parse_pos_int(o, "--ntasks-per-node", arg, &u)))
			return rc;
		d->ntasks_per_node = u;
		break;
	case ID_REQUEUE:
		d->flags |= JOB_F_REQUEUE;
		d->flags &= ~JOB_F_NO_REQUEUE;
		break;
	case ID_NO_REQUEUE:
		d->flags |= JOB_F_NO_REQUEUE;
		d->flags &= ~JOB_F_REQUEUE;
		break;
	case ID_KILL_INV_DEP:
		d->flags &= ~(JOB_F_KILL_INV_DEP | JOB_F_NO_KILL_INV_DEP);
		if (!strcasecmp(arg, "yes"))
			d->flags |= JOB_F_KILL_INV_DEP;
		else if (!strcasecmp(arg, "no"))
			d->flags |= JOB_F_NO_KILL_INV_DEP;
		else
			return fail255(o, "Invalid --kill-on-invalid-dep specification");
		break;
	case ID_OPEN_MODE:
		if (arg[0] == 'a' || arg[0] == 'A')
			d->flags |= JOB_F_OPEN_APPEND;
		else if (arg[0] == 't' || arg[0] == 'T')
			d->flags &= ~JOB_F_OPEN_APPEND;
		else
			return fail255(o, "Invalid --open-mode specification");
		break;
	case 'o': set_str(&d->std_out, arg); break;
	case ID_PARSABLE: o->parsable = 1; break;
	case 'p': set_str(&d->partition, arg); break;
	case ID_PTY: o->pty = 1; break;
	case ID_PROPAGATE: {
		unsigned mask;
		const char *bad = NULL;
		if (arg && rlim_list_parse(arg, &mask, &bad) < 0) {
			fprintf(stderr, "%s: error: Bad rlimit name: %s\n", o->prog, bad);
			fprintf(stderr, "%s: error: --propagate=%s is not valid.\n", o->prog, arg);
			return 1;
		}
		set_str(&o->propagate, arg ? arg : "ALL");
		break;
	}
	case 'q': set_str(&d->qos, arg); break;
	case 'Q': o->quiet++; break;
	case ID_RESERVATION: set_str(&d->reservation, arg); break;
	case ID_SIGNAL:
		if (signal_spec_parse(arg, &d->warn_signal, &d->warn_time, &d->warn_flags) < 0)
			return fail255(o, "Invalid --signal specification");
		break;
	case 't': {
		uint32_t mins;
		if (time_limit_parse(arg, &mins) < 0)
			return fail255(o, "Invalid --time specification");
		d->time_limit = mins == 0 ? TIME_INFINITE : mins;
		break;
	}
	case 'u':
		if (o->cmd == JOBOPTS_SRUN)
			o->unbuffered = 1;
		else
			o->usage = 1;
		break;
	case ID_USAGE: o->usage = 1; break;
	case 'v': o->verbose++; break;
	case 'V': o->version = 1; break;
	case 'W':
		if (o->cmd == JOBOPTS_SRUN)
			return srun_opt_apply(o, id, arg);
		o->wait = 1;
		break;
	case ID_WRAP: set_str(&o->wrap, arg); break;
	default:
		if (o->cmd == JOBOPTS_SRUN)
			return srun_opt_apply(o, id, arg);   /* srun_opts.c */
		return 255;
	}
	return 0;
}

int jobopts_parse_argv(jobopts_t *o, int argc, char **argv, int from_script)
{
	build_tables(o->cmd);
	/* getopt prefixes its messages with argv[0]: give it the bare name. */
	char **av = xcalloc((size_t)argc + 1, sizeof(*av));
	av[0] = (char *)o->prog;
	for (int i = 1; i < argc; i++)
		av[i] = argv[i];

	int rc = 0, c;
	optind = 0;     /* full re-initialisation (several argvs per run) */
	opterr = 1;
	while ((c = getopt_long(argc, av, short_opts[o->cmd], long_opts[o->cmd], NULL)) != -1) {
		if (c == '?' || c == ':') {
			fprintf(stderr, "Try \"%s --help\" for more information\n", o->prog);
			rc = 255;
			break;
		}
		if ((rc = apply(o, c, optarg, !from_script)))
			break;
	}
	o->argi = optind;
	if (!rc && from_script && optind < argc) {
		fprintf(stderr, "%s: error: Invalid directive found in batch script: %s\n",
			o->prog, argv[optind]);
		rc = 1;
	}
	free(av);
	return rc;
}

/* One shell-like word: quotes group and are removed; an unquoted '#'
 * that starts a word begins a comment. Returns NULL at end of line. */
static char *next_word(const char **pp)
{
	const char *p = *pp;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || *p == '#') {
		*pp = p;
		return NULL;
	}
	strbuf_t w = STRBUF_INIT;
	char quote = 0;
	for (; *p && *p != '\n'; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else
				strbuf_addch(&w, *p);
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == ' ' || *p == '\t') {
			break;
		} else {
			strbuf_addch(&w, *p);
		}
	}
	*pp = p;
	return strbuf_detach(&w);
}

void jobopts_script_args(const char *script, strv_t *out)
{
	const char *p = script;
	strv_push(out, "sbatch");
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *q = p;
		while (q < p + len && (*q == ' ' || *q == '\t'))
			q++;
		if (q < p + len && *q != '#')
			break;          /* first command line: directives end */
		if (!strncmp(p, "#SBATCH", 7) && (p[7] == ' ' || p[7] == '\t')) {
			const char *w = p + 7;
			char *word;
			while (w < p + len && (word = next_word(&w))) {
				strv_push(out, word);
				free(word);
			}
		}
		p = eol ? eol + 1 : NULL;
	}
}

int jobopts_parse_script(jobopts_t *o, const char *script)
{
	strv_t args = { 0 };
	jobopts_script_args(script, &args);
	int rc = 0;
	if (args.n > 1)
		rc = jobopts_parse_argv(o, (int)args.n, args.v, 1);
	strv_free(&args);
	return rc;
}

/* ---- input environment variables ---- */

struct envdef {
	const char *var;
	int id;
	int cmds;
};

static const struct envdef envdefs[] = {
	{ "SBATCH_ACCOUNT", 'A', O_SB }, { "SBATCH_ARRAY_INX", 'a', O_SB }, { "SBATCH_CONSTRAINT", 'C', O_SB },
	{ "SBATCH_DEBUG", 'v', O_SB }, { "SBATCH_ERROR", 'e', O_SB },
	{ "SBATCH_EXCLUSIVE", ID_EXCLUSIVE, O_SB }, { "SBATCH_EXPORT", ID_EXPORT, O_SB },
	{ "SBATCH_GET_USER_ENV", ID_GET_USER_ENV, O_SB }, { "SBATCH_GPUS", 'G', O_SB },
	{ "SBATCH_GPUS_PER_NODE", ID_GPUS_PER_NODE, O_SB }, { "SBATCH_GRES", ID_GRES, O_SB },
	{ "SBATCH_GPUS_PER_TASK", ID_GPUS_PER_TASK, O_SB },
	{ "SBATCH_CPUS_PER_GPU", ID_CPUS_PER_GPU, O_SB },
	{ "SBATCH_MEM_PER_GPU", ID_MEM_PER_GPU, O_SB },
	{ "SBATCH_INPUT", 'i', O_SB }, { "SBATCH_JOB_NAME", 'J', O_SB },
	{ "SBATCH_MEM_PER_CPU", ID_MEM_PER_CPU, O_SB }, { "SBATCH_MEM_PER_NODE", ID_MEM, O_SB },
	{ "SBATCH_NO_REQUEUE", ID_NO_REQUEUE, O_SB }, { "SBATCH_OPEN_MODE", ID_OPEN_MODE, O_SB },
	{ "SBATCH_OVERCOMMIT", 'O', O_SB },
	{ "SBATCH_OUTPUT", 'o', O_SB }, { "SBATCH_PARTITION", 'p', O_SB },
	{ "SBATCH_QOS", 'q', O_SB }, { "SBATCH_REQUEUE", ID_REQUEUE, O_SB },
	{ "SBATCH_RESERVATION", ID_RESERVATION, O_SB }, { "SBATCH_SIGNAL", ID_SIGNAL, O_SB },
	{ "SBATCH_TIMELIMIT", 't', O_SB }, { "SBATCH_WAIT", 'W', O_SB },
	{ "SBATCH_WCKEY", ID_WCKEY, O_SB },

	{ "SLURM_ACCOUNT", 'A', O_SR }, { "SLURM_CONSTRAINT", 'C', O_SR },
	{ "SLURM_CPUS_PER_TASK", 'c', O_SR }, { "SLURM_DEPENDENCY", 'd', O_SR },
	{ "SLURM_EXPORT_ENV", ID_EXPORT, O_SR }, { "SLURM_GPUS", 'G', O_SR },
	{ "SLURM_GPUS_PER_NODE", ID_GPUS_PER_NODE, O_SR }, { "SLURM_GRES", ID_GRES, O_SR },
	{ "SLURM_GPUS_PER_TASK", ID_GPUS_PER_TASK, O_SR },
	{ "SLURM_CPUS_PER_GPU", ID_CPUS_PER_GPU, O_SR },
	{ "SLURM_MEM_PER_GPU", ID_MEM_PER_GPU, O_SR },
	{ "SLURM_JOB_NAME", 'J', O_SR }, { "SLURM_LABELIO", 'l', O_SR },
	{ "SLURM_MEM_PER_CPU", ID_MEM_PER_CPU, O_SR }, { "SLURM_MEM_PER_NODE", ID_MEM, O_SR },
	{ "SLURM_NNODES", 'N', O_SR }, { "SLURM_NTASKS", 'n', O_SR },
	{ "SLURM_OVERCOMMIT", 'O', O_SR },
	{ "SLURM_NTASKS_PER_NODE", ID_NTASKS_PER_NODE, O_SR },
	{ "SLURM_PARTITION", 'p', O_SR }, { "SLURM_QOS", 'q', O_SR },
	{ "SLURM_TIMELIMIT", 't', O_SR }, { "SLURM_UNBUFFEREDIO", 'u', O_SR },
	{ "SLURM_WORKING_DIR", 'D', O_SR }, { "SLURM_EXCLUSIVE", ID_EXCLUSIVE, O_SR },
	/* srun only: srun_opts.c */
	{ "SLURM_KILL_BAD_EXIT", 'K', O_SR }, { "SLURM_WAIT", 'W', O_SR },
	{ "SLURM_STDOUTMODE", 'o', O_SR }, { "SLURM_STDERRMODE", 'e', O_SR },
	{ "SLURM_STDINMODE", 'i', O_SR }, { "SLURM_OVERLAP", SRUN_ID_OVERLAP, O_SR },
	{ "SLURM_EXACT", SRUN_ID_EXACT, O_SR }, { "SLURM_CPU_BIND", SRUN_ID_CPU_BIND, O_SR },
	{ "SLURM_GPU_BIND", SRUN_ID_GPU_BIND, O_SR },
	{ "SLURM_MEM_BIND", SRUN_ID_MEM_BIND, O_SR },
	{ "SLURM_TASK_PROLOG", SRUN_ID_TASK_PROLOG, O_SR },
	{ "SLURM_TASK_EPILOG", SRUN_ID_TASK_EPILOG, O_SR },
	{ "SLURM_SIGNAL", ID_SIGNAL, O_SR }, { "SLURM_OPEN_MODE", ID_OPEN_MODE, O_SR },
	{ "SLURM_DISTRIBUTION", 'm', O_SR }, { "SLURM_MPI_TYPE", ID_MPI, O_SR },
	{ "SLURM_DEBUG", 'v', O_SR }, { "SRUN_EXPORT_ENV", SRUN_ID_SRUN_EXPORT, O_SR },
};

/* Slurm's rule for flag variables: empty, "yes" or a non-zero number. */
static int env_bool(const char *v)
{
	if (!*v || !strcasecmp(v, "yes"))
		return 1;
	char *end;
	return strtol(v, &end, 10) != 0 && end != v;
}

static const char *opt_name(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(optdefs); i++)
		if (optdefs[i].id == id)
			return optdefs[i].name;
	return NULL;
}

static int opt_has_arg(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(optdefs); i++)
		if (optdefs[i].id == id)
			return optdefs[i].has_arg;
	return required_argument;
}

int jobopts_parse_env(jobopts_t *o, char *const *env)
{
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || (strncmp(*e, "SBATCH_", 7) && strncmp(*e, "SLURM_", 6) &&
			    strncmp(*e, "SRUN_", 5)))
			continue;
		size_t klen = (size_t)(eq - *e);
		for (size_t i = 0; i < ARRAY_SIZE(envdefs); i++) {
			const struct envdef *d = &envdefs[i];
			if (!(d->cmds & (int)o->cmd) || strlen(d->var) != klen ||
			    strncmp(d->var, *e, klen))
				continue;
			const char *v = eq + 1;
			int rc = 0;
			if (d->id == 'v') {
				if (env_bool(v))
					o->verbose++;
			} else if (opt_has_arg(d->id) == no_argument) {
				if (env_bool(v))
					rc = apply(o, d->id, NULL, 0);
			} else if (opt_has_arg(d->id) == optional_argument) {
				rc = apply(o, d->id, *v ? v : NULL, 0);
			} else if (*v) {
				rc = apply(o, d->id, v, 0);
			}
			if (rc)
				return rc;
			break;
		}
	}
	return 0;
}

int jobopts_step_gres(jobopts_t *o, const char *v)
{
	if (o->gres_set || !v || !*v)
		return 0;
	return apply(o, ID_GRES, v, 0);
}

int jobopts_check(jobopts_t *o)
{
	const job_desc_t *d = &o->desc;
	if (d->deadline && d->begin_time > d->deadline) {
		fprintf(stderr, "%s: error: Incompatible begin and deadline time specification\n",
			o->prog);
		return 1;
	}
	return 0;
}

/* ---- --export ---- */

static int name_in(const char *entry, const strv_t *names)
{
	const char *eq = strchr(entry, '=');
	size_t len = eq ? (size_t)(eq - entry) : strlen(entry);
	for (uint32_t i = 0; i < names->n; i++)
		if (strlen(names->v[i]) == len && !strncmp(names->v[i], entry, len))
			return 1;
	return 0;
}

/* Set "K=V" in out, replacing an entry for K. */
static void env_put(strv_t *out, const char *kv)
{
	size_t len = strcspn(kv, "=");
	for (uint32_t j = 0; j < out->n; j++) {
		if (!strncmp(out->v[j], kv, len) && out->v[j][len] == '=') {
			free(out->v[j]);
			out->v[j] = xstrdup(kv);
			return;
		}
	}
	strv_push(out, kv);
}

int jobopts_build_env(jobopts_t *o, char *const *env)
{
	strv_t *out = &o->desc.env;
	const char *spec = o->export_spec;
	int all = 1;
	strv_t names = { 0 }, sets = { 0 };

	strv_free(out);
	if (spec) {
		char *copy = xstrdup(spec), *save = NULL;
		all = 0;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!strcasecmp(t, "ALL"))
				all = 1;
			else if (!strcasecmp(t, "NONE") || !strcasecmp(t, "NIL"))
				;
			else if (strchr(t, '='))
				strv_push(&sets, t);
			else
				strv_push(&names, t);
		}
		free(copy);
	}
	for (char *const *e = env; e && *e; e++) {
		if (!strchr(*e, '='))
			continue;
		if (all || !strncmp(*e, "SLURM_", 6) || name_in(*e, &names))
			strv_push(out, *e);
	}
	/* Explicit values win over the caller's, with ALL too (Slurm 22.05:
	 * FOO=bar sbatch --export=ALL,FOO=over runs with FOO=over). */
	for (uint32_t i = 0; i < sets.n; i++) {
		const char *eq = strchr(sets.v[i], '=');
		size_t len = (size_t)(eq - sets.v[i]);
		int replaced = 0;
		for (uint32_t j = 0; j < out->n; j++) {
			if (!strncmp(out->v[j], sets.v[i], len) && out->v[j][len] == '=') {
				free(out->v[j]);
				out->v[j] = xstrdup(sets.v[i]);
				replaced = 1;
			}
		}
		if (!replaced)
			strv_push(out, sets.v[i]);
	}
	/* The caller's resource limits (rlimits.h): all of them, for the
	 * node's PropagateResourceLimits to choose from, or those named by
	 * --propagate, marked 'U' (applied whatever the config says). */
	unsigned mask = (1u << rlim_count) - 1;
	if (o->propagate && rlim_list_parse(o->propagate, &mask, NULL) < 0)
		mask = 0;
	for (size_t i = 0; i < rlim_count; i++) {
		struct rlimit rl;
		if (!(mask & (1u << i)) || getrlimit(rlim_names[i].resource, &rl) < 0)
			continue;
		char *kv = xasprintf("SLURM_RLIMIT_%s=%s%llu", rlim_names[i].name,
				     o->propagate ? "U" : "", (unsigned long long)rl.rlim_cur);
		debug("propagating RLIMIT_%s=%llu", rlim_names[i].name,
		      (unsigned long long)rl.rlim_cur);
		env_put(out, kv);
		free(kv);
	}
	/* The submitter's umask, as Slurm's SLURM_UMASK ("0077"): the job
	 * (batch script, srun tasks) runs with it. One already in the
	 * environment wins (an srun inside a job keeps the job's). */
	int has_umask = 0;
	for (uint32_t j = 0; j < out->n; j++)
		has_umask |= !strncmp(out->v[j], "SLURM_UMASK=", 12);
	if (!has_umask) {
		mode_t um = umask(0);
		umask(um);
		char *kv = xasprintf("SLURM_UMASK=0%o%o%o", (unsigned)(um >> 6) & 7u,
				     (unsigned)(um >> 3) & 7u, (unsigned)um & 7u);
		debug("propagating UMASK=%s", kv + 12);
		strv_push(out, kv);
		free(kv);
	}
	/* sbatch --export=NONE or a list without ALL: the node loads the
	 * user's login environment under it, as --get-user-env (Slurm). */
	if (spec && !all && o->cmd == JOBOPTS_SBATCH && !o->desc.get_user_env)
		o->desc.get_user_env = GUE_ON;
	/* Steps inherit the export setting, as in Slurm. */
	if (spec && o->cmd == JOBOPTS_SBATCH) {
		char *kv = xasprintf("SLURM_EXPORT_ENV=%s", spec);
		int replaced = 0;
		for (uint32_t j = 0; j < out->n; j++)
			if (!strncmp(out->v[j], "SLURM_EXPORT_ENV=", 17)) {
				free(out->v[j]);
				out->v[j] = xstrdup(kv);
				replaced = 1;
			}
		if (!replaced)
			strv_push(out, kv);
		free(kv);
	}
	strv_free(&names);
	strv_free(&sets);
	return 0;
}

char *jobopts_wrap_script(const char *cmd)
{
	return xasprintf("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n", cmd);
}

int jobopts_check_script(const char *buf, size_t len)
{
	size_t i;
	if (len == 0) {
		error("Batch script is empty!");
		return 1;
	}
	for (i = 0; i < len && isspace((unsigned char)buf[i]); i++)
		;
	if (i == len) {
		error("Batch script contains only whitespace!");
		return 1;
	}
	if (len < 2 || buf[0] != '#' || buf[1] != '!') {
		error("This does not look like a batch script.  The first");
		error("line must start with #! followed by the path to an interpreter.");
		error("For instance: #!/bin/sh");
		return 1;
	}
	if (memchr(buf, '\0', len)) {
		error("The SLURM controller does not allow scripts that");
		error("contain a NULL character '\\0'.");
		return 1;
	}
	for (i = 1; i < len; i++) {
		if (buf[i - 1] == '\r' && buf[i] == '\n') {
			error("Batch script contains DOS line breaks (\\r\\n)");
			error("instead of expected UNIX line breaks (\\n).");
			return 1;
		}
	}
	return 0;
}
