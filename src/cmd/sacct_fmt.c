/*
 * sacct_fmt.c: sacct's fields (the --helpformat list of Slurm 22.05 with
 * its default widths) and how each is printed from a record row. Which
 * fields a step row fills and which only a job row does follows what
 * Slurm 22.05 prints (measured on a real cluster: a step has no User,
 * Partition, Timelimit, ReqMem, ...; a job row has no MaxRSS, NTasks, ...).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "cmd/sacct.h"
#include "cmd/cmdutil.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

const char *const sacct_col_names[SC_N] = {
	"job_id", "step_id", "array_job_id", "array_task_id", "cluster", "partition",
	"account", "qos", "assoc_id", "qos_id", "uid", "gid", "user", "grp", "name",
	"state", "reason", "exit_code", "derived_ec", "submit", "eligible", "start",
	"end", "suspended", "timelimit", "priority", "nice", "req_cpus", "req_mem",
	"req_mem_per_cpu", "req_nodes", "alloc_cpus", "alloc_nodes", "nodelist",
	"req_tres", "alloc_tres", "workdir", "comment", "constraints", "flags",
	"requid", "reservation", "array_task_str", "resv_id",
	"ntasks", "req_cpufreq", "user_cpu_us", "sys_cpu_us",
	"max_rss_kb", "max_rss_node", "max_rss_task", "ave_rss_kb",
	"max_vmsize_kb", "max_vmsize_node", "max_vmsize_task", "ave_vmsize_kb",
	"max_pages", "max_pages_node", "max_pages_task", "ave_pages",
	"min_cpu_s", "min_cpu_node", "min_cpu_task", "ave_cpu_s",
	"max_disk_read", "max_disk_read_node", "max_disk_read_task", "ave_disk_read",
	"max_disk_write", "max_disk_write_node", "max_disk_write_task", "ave_disk_write",
	"tres_usage_in_max", "tres_usage_in_ave", "tres_usage_out_max", "tres_usage_out_ave",
};

/* How a field is printed (col: the column it shows, where one). */
enum {
	K_BLANK,          /* never filled here */
	K_ZERO,           /* "0" on every row (energy, WCKeyID) */
	K_JOBID, K_JOBIDRAW,
	K_TEXT,           /* col, job and step rows */
	K_TEXT_JOB,       /* col, job rows only */
	K_TEXT_STEP,      /* col, step rows only */
	K_NUM_JOB,        /* col as a number, job rows only */
	K_NUM_STEP,
	K_NAME,           /* JobName */
	K_USER, K_GROUP,
	K_CPUS,           /* AllocCPUS, NCPUS, ReqCPUS */
	K_NNODES,         /* NNodes, ReqNodes */
	K_ALLOC_NODES,
	K_STATE, K_EXIT, K_DERIVED,
	K_ELAPSED, K_ELAPSED_RAW, K_CPUTIME, K_CPUTIME_RAW,
	K_SUBMIT, K_ELIGIBLE, K_START, K_END,
	K_SUSPENDED,
	K_TIMELIMIT, K_TIMELIMIT_RAW,
	K_NODELIST, K_REASON, K_REQMEM, K_TRES_JOB, K_TRES,
	K_RESERVED, K_RESVCPU, K_RESVCPU_RAW,
	K_CPU_US,         /* TotalCPU, UserCPU, SystemCPU */
	K_CPU_S,          /* MinCPU, AveCPU: seconds, steps */
	K_MEM_KB,         /* MaxRSS & co: KB, steps */
	K_DISK,           /* bytes, steps: "0.15M" */
	K_CPUFREQ,        /* ReqCPUFreq*: "Unknown" (job, srun steps), "0" batch */
	K_AVECPUFREQ,     /* "0" on steps */
	K_LAYOUT,
};

#define F(n, w, k, c) { n, w, 0, k, c }
const sacct_field_def_t sacct_fields[] = {
	F("Account", 10, K_TEXT, SC_ACCOUNT),
	F("AdminComment", 15, K_BLANK, 0),
	F("AllocCPUS", 10, K_CPUS, SC_ALLOC_CPUS),
	F("AllocNodes", 10, K_ALLOC_NODES, SC_ALLOC_NODES),
	F("AllocTRES", 10, K_TRES, SC_ALLOC_TRES),
	F("AssocID", 7, K_NUM_JOB, SC_ASSOC_ID),
	F("AveCPU", 10, K_CPU_S, SC_AVE_CPU_S),
	F("AveCPUFreq", 10, K_AVECPUFREQ, 0),
	F("AveDiskRead", 14, K_DISK, SC_AVE_DISK_READ),
	F("AveDiskWrite", 14, K_DISK, SC_AVE_DISK_WRITE),
	F("AvePages", 10, K_NUM_STEP, SC_AVE_PAGES),
	F("AveRSS", 10, K_MEM_KB, SC_AVE_RSS_KB),
	F("AveVMSize", 10, K_MEM_KB, SC_AVE_VMSIZE_KB),
	F("BlockID", 16, K_BLANK, 0),
	F("Cluster", 10, K_TEXT, SC_CLUSTER),
	F("Comment", 14, K_TEXT_JOB, SC_COMMENT),
	F("Constraints", 19, K_TEXT_JOB, SC_CONSTRAINTS),
	F("ConsumedEnergy", 14, K_ZERO, 0),
	F("ConsumedEnergyRaw", 17, K_ZERO, 0),
	F("Container", 19, K_BLANK, 0),
	F("CPUTime", 10, K_CPUTIME, 0),
	F("CPUTimeRAW", 10, K_CPUTIME_RAW, 0),
	{ "DBIndex", 10, 1, K_NUM_JOB, SC_JOB_ID },
	F("DerivedExitCode", 15, K_DERIVED, SC_DERIVED_EC),
	F("Elapsed", 10, K_ELAPSED, 0),
	F("ElapsedRaw", 10, K_ELAPSED_RAW, 0),
	F("Eligible", 19, K_ELIGIBLE, SC_ELIGIBLE),
	F("End", 19, K_END, SC_END),
	F("ExitCode", 8, K_EXIT, SC_EXIT_CODE),
	F("Flags", 19, K_BLANK, 0),
	F("GID", 6, K_NUM_JOB, SC_GID),
	F("Group", 9, K_GROUP, SC_GRP),
	{ "JobID", 12, 1, K_JOBID, 0 },
	{ "JobIDRaw", 12, 1, K_JOBIDRAW, 0 },
	F("JobName", 10, K_NAME, SC_NAME),
	F("Layout", 9, K_LAYOUT, 0),
	F("MaxDiskRead", 12, K_DISK, SC_MAX_DISK_READ),
	F("MaxDiskReadNode", 15, K_TEXT_STEP, SC_MAX_DISK_READ_NODE),
	F("MaxDiskReadTask", 15, K_NUM_STEP, SC_MAX_DISK_READ_TASK),
	F("MaxDiskWrite", 12, K_DISK, SC_MAX_DISK_WRITE),
	F("MaxDiskWriteNode", 16, K_TEXT_STEP, SC_MAX_DISK_WRITE_NODE),
	F("MaxDiskWriteTask", 16, K_NUM_STEP, SC_MAX_DISK_WRITE_TASK),
	F("MaxPages", 8, K_NUM_STEP, SC_MAX_PAGES),
	F("MaxPagesNode", 12, K_TEXT_STEP, SC_MAX_PAGES_NODE),
	F("MaxPagesTask", 14, K_NUM_STEP, SC_MAX_PAGES_TASK),
	F("MaxRSS", 10, K_MEM_KB, SC_MAX_RSS_KB),
	F("MaxRSSNode", 10, K_TEXT_STEP, SC_MAX_RSS_NODE),
	F("MaxRSSTask", 10, K_NUM_STEP, SC_MAX_RSS_TASK),
	F("MaxVMSize", 10, K_MEM_KB, SC_MAX_VMSIZE_KB),
	F("MaxVMSizeNode", 14, K_TEXT_STEP, SC_MAX_VMSIZE_NODE),
	F("MaxVMSizeTask", 14, K_NUM_STEP, SC_MAX_VMSIZE_TASK),
	F("McsLabel", 12, K_BLANK, 0),
	F("MinCPU", 10, K_CPU_S, SC_MIN_CPU_S),
	F("MinCPUNode", 10, K_TEXT_STEP, SC_MIN_CPU_NODE),
	F("MinCPUTask", 10, K_NUM_STEP, SC_MIN_CPU_TASK),
	F("NCPUS", 10, K_CPUS, SC_ALLOC_CPUS),
	F("NNodes", 8, K_NNODES, SC_ALLOC_NODES),
	F("NodeList", 15, K_NODELIST, SC_NODELIST),
	F("NTasks", 8, K_NUM_STEP, SC_NTASKS),
	F("Partition", 10, K_TEXT_JOB, SC_PARTITION),
	F("Priority", 10, K_NUM_JOB, SC_PRIORITY),
	F("QOS", 10, K_TEXT_JOB, SC_QOS),
	F("QOSRAW", 6, K_NUM_JOB, SC_QOS_ID),
	F("Reason", 22, K_REASON, SC_REASON),
	F("ReqCPUFreq", 10, K_CPUFREQ, SC_REQ_CPUFREQ),
	F("ReqCPUFreqGov", 13, K_CPUFREQ, SC_REQ_CPUFREQ),
	F("ReqCPUFreqMax", 13, K_CPUFREQ, SC_REQ_CPUFREQ),
	F("ReqCPUFreqMin", 13, K_CPUFREQ, SC_REQ_CPUFREQ),
	F("ReqCPUS", 8, K_CPUS, SC_REQ_CPUS),
	F("ReqMem", 10, K_REQMEM, SC_REQ_TRES),
	F("ReqNodes", 8, K_NNODES, SC_REQ_NODES),
	F("ReqTRES", 10, K_TRES_JOB, SC_REQ_TRES),
	F("Reservation", 20, K_TEXT_JOB, SC_RESERVATION),
	F("ReservationId", 8, K_NUM_JOB, SC_RESV_ID),
	F("Reserved", 10, K_RESERVED, 0),
	F("ResvCPU", 10, K_RESVCPU, 0),
	F("ResvCPURAW", 10, K_RESVCPU_RAW, 0),
	F("Start", 19, K_START, SC_START),
	F("State", 10, K_STATE, SC_STATE),
	F("Submit", 19, K_SUBMIT, SC_SUBMIT),
	F("SubmitLine", 20, K_BLANK, 0),
	F("Suspended", 10, K_SUSPENDED, SC_SUSPENDED),
	F("SystemComment", 15, K_BLANK, 0),
	F("SystemCPU", 10, K_CPU_US, SC_SYS_CPU_US),
	F("Timelimit", 10, K_TIMELIMIT, SC_TIMELIMIT),
	F("TimelimitRaw", 10, K_TIMELIMIT_RAW, SC_TIMELIMIT),
	F("TotalCPU", 10, K_CPU_US, SC_N),
	F("TRESUsageInAve", 14, K_TEXT_STEP, SC_TRES_IN_AVE),
	F("TRESUsageInMax", 14, K_TEXT_STEP, SC_TRES_IN_MAX),
	F("TRESUsageInMaxNode", 18, K_BLANK, 0),
	F("TRESUsageInMaxTask", 18, K_BLANK, 0),
	F("TRESUsageInMin", 14, K_BLANK, 0),
	F("TRESUsageInMinNode", 18, K_BLANK, 0),
	F("TRESUsageInMinTask", 18, K_BLANK, 0),
	F("TRESUsageInTot", 14, K_BLANK, 0),
	F("TRESUsageOutAve", 15, K_TEXT_STEP, SC_TRES_OUT_AVE),
	F("TRESUsageOutMax", 15, K_TEXT_STEP, SC_TRES_OUT_MAX),
	F("TRESUsageOutMaxNode", 19, K_BLANK, 0),
	F("TRESUsageOutMaxTask", 19, K_BLANK, 0),
	F("TRESUsageOutMin", 15, K_BLANK, 0),
	F("TRESUsageOutMinNode", 19, K_BLANK, 0),
	F("TRESUsageOutMinTask", 19, K_BLANK, 0),
	F("TRESUsageOutTot", 15, K_BLANK, 0),
	F("UID", 6, K_NUM_JOB, SC_UID),
	F("User", 9, K_USER, SC_USER),
	F("UserCPU", 10, K_CPU_US, SC_USER_CPU_US),
	F("WCKey", 10, K_BLANK, 0),
	F("WCKeyID", 10, K_ZERO, 0),
	F("WorkDir", 20, K_TEXT_JOB, SC_WORKDIR),
};
#undef F
const size_t sacct_nfields = sizeof(sacct_fields) / sizeof(sacct_fields[0]);

const sacct_field_def_t *sacct_field_find(const char *name)
{
	for (size_t i = 0; i < sacct_nfields; i++)
		if (!strcasecmp(sacct_fields[i].name, name))
			return &sacct_fields[i];
	/* a unique prefix, as Slurm takes "jobn" or "tresusageinmaxn" */
	const sacct_field_def_t *hit = NULL;
	size_t n = strlen(name);
	for (size_t i = 0; n && i < sacct_nfields; i++)
		if (!strncasecmp(sacct_fields[i].name, name, n)) {
			if (hit)
				return NULL;
			hit = &sacct_fields[i];
		}
	return hit;
}

void sacct_field_need(const sacct_field_def_t *d, unsigned char need[SC_N])
{
	static const struct { int kind; int cols[6]; } deps[] = {
		{ K_JOBID, { SC_ARRAY_JOB_ID, SC_ARRAY_TASK_ID, SC_ARRAY_TASK_STR, -1 } },
		{ K_USER, { SC_USER, SC_UID, -1 } },
		{ K_GROUP, { SC_GRP, SC_GID, -1 } },
		{ K_CPUS, { SC_ALLOC_CPUS, SC_REQ_CPUS, SC_START, -1 } },
		{ K_NNODES, { SC_ALLOC_NODES, SC_REQ_NODES, -1 } },
		{ K_EXIT, { SC_EXIT_CODE, SC_STATE, -1 } },
		{ K_STATE, { SC_STATE, SC_REQUID, -1 } },
		{ K_ELAPSED, { SC_START, SC_END, SC_SUSPENDED, -1 } },
		{ K_ELAPSED_RAW, { SC_START, SC_END, SC_SUSPENDED, -1 } },
		{ K_CPUTIME, { SC_START, SC_END, SC_SUSPENDED, SC_ALLOC_CPUS, SC_REQ_CPUS, -1 } },
		{ K_CPUTIME_RAW, { SC_START, SC_END, SC_SUSPENDED, SC_ALLOC_CPUS, SC_REQ_CPUS, -1 } },
		{ K_SUBMIT, { SC_SUBMIT, SC_START, -1 } },
		{ K_ELIGIBLE, { SC_ELIGIBLE, SC_START, -1 } },
		{ K_START, { SC_START, SC_STATE, -1 } },
		{ K_RESERVED, { SC_ELIGIBLE, SC_START, -1 } },
		{ K_RESVCPU, { SC_ELIGIBLE, SC_START, SC_REQ_CPUS, -1 } },
		{ K_RESVCPU_RAW, { SC_ELIGIBLE, SC_START, SC_REQ_CPUS, -1 } },
		{ K_CPU_US, { SC_USER_CPU_US, SC_SYS_CPU_US, -1 } },
	};
	if (d->col < SC_N && d->kind != K_BLANK && d->kind != K_ZERO)
		need[d->col] = 1;
	for (size_t i = 0; i < sizeof(deps) / sizeof(deps[0]); i++)
		if (deps[i].kind == d->kind)
			for (int k = 0; deps[i].cols[k] >= 0; k++)
				need[deps[i].cols[k]] = 1;
}

int sacct_format_parse(const char *spec, sacct_out_t **out, size_t *n, char **bad)
{
	char *dup = xstrdup(spec), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		if (!*t)
			continue;
		char *pct = strchr(t, '%');
		int width = 0, left = -1;
		if (pct) {
			*pct = '\0';
			char *e;
			long w = strtol(pct + 1, &e, 10);
			if (w < 0) {
				left = 1;
				w = -w;
			}
			width = (int)(w > 4096 ? 4096 : w);
		}
		const sacct_field_def_t *d = sacct_field_find(t);
		if (!d) {
			*bad = xstrdup(t);
			free(dup);
			return -1;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[*n].def = d;
		(*out)[*n].width = pct ? width : d->width;
		(*out)[*n].left = left >= 0 ? left : d->left;
		(*n)++;
	}
	free(dup);
	return 0;
}

void sacct_pad(strbuf_t *sb, const char *v, int width, int left)
{
	/* cut, with a '+' where the rest was */
	cmd_add_cut_plus(sb, v, strlen(v), width > 0 ? (size_t)width : 0, left);
	strbuf_addch(sb, ' ');
}

static int has(const sacct_row_t *r, int c)
{
	return c < SC_N && r->c[c] && *r->c[c];
}

static int64_t num(const sacct_row_t *r, int c)
{
	return has(r, c) ? strtoll(r->c[c], NULL, 10) : 0;
}

void sacct_exit_fmt(uint32_t status, char *buf, size_t len)
{
	int rc = 0, sig = 0;
	if (WIFSIGNALED(status))
		sig = WTERMSIG(status);
	else
		rc = WEXITSTATUS(status);
	snprintf(buf, len, "%d:%d", rc, sig);
}

static const char *state_name(uint32_t base)
{
	static const char *const names[] = {
		"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
		"TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY",
	};
	return base < sizeof(names) / sizeof(names[0]) ? names[base] : "UNKNOWN";
}

void sacct_state_fmt(const sacct_row_t *r, char *buf, size_t len)
{
	uint32_t base = (uint32_t)num(r, SC_STATE) & JOB_STATE_BASE;
	if (!r->step && base == JOB_CANCELLED && has(r, SC_REQUID))
		snprintf(buf, len, "CANCELLED by %s", r->c[SC_REQUID]);
	else
		snprintf(buf, len, "%s", state_name(base));
}

int sacct_state_parse(const char *s)
{
	static const struct { const char *l, *s; int v; } t[] = {
		{ "PENDING", "PD", JOB_PENDING }, { "RUNNING", "R", JOB_RUNNING },
		{ "SUSPENDED", "S", JOB_SUSPENDED }, { "COMPLETED", "CD", JOB_COMPLETE },
		{ "CANCELLED", "CA", JOB_CANCELLED }, { "FAILED", "F", JOB_FAILED },
		{ "TIMEOUT", "TO", JOB_TIMEOUT }, { "NODE_FAIL", "NF", JOB_NODE_FAIL },
		{ "PREEMPTED", "PR", JOB_PREEMPTED }, { "BOOT_FAIL", "BF", JOB_BOOT_FAIL },
		{ "DEADLINE", "DL", JOB_DEADLINE }, { "OUT_OF_MEMORY", "OOM", JOB_OOM },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcasecmp(s, t[i].l) || !strcasecmp(s, t[i].s))
			return t[i].v;
	return -1;
}

void sacct_mem_fmt(double v, int base, const sacct_opts_t *o, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	if (o && o->units >= 0) {
		double x = v;
		for (int u = base; u < o->units; u++)
			x /= 1024;
		for (int u = base; u > o->units; u--)
			x *= 1024;
		if (x == (double)(uint64_t)x)
			snprintf(buf, len, "%.0f%c", x, units[o->units]);
		else
			snprintf(buf, len, "%.2f%c", x, units[o->units]);
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (o && o->noconvert) {
		/* KB amounts as bytes, MB as they are */
		if (base == 0)
			snprintf(buf, len, "%.0f", v * 1024);
		else
			snprintf(buf, len, "%.0f%c", v, units[base]);
		return;
	}
	/* only exact multiples move up a unit (sacct converts "exactly") */
	uint64_t x = (uint64_t)v;
	int u = base;
	while (x && x % 1024 == 0 && u < 5) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", x, units[u]);
}

/* "mem=2G" in a TRES string, converted for --units / --noconvert. */
static void tres_fmt(strbuf_t *sb, const char *t, const sacct_opts_t *o)
{
	if (!t)
		return;
	if (o->units < 0 && !o->noconvert) {
		strbuf_addstr(sb, t);
		return;
	}
	char *dup = xstrdup(t), *save = NULL;
	int first = 1;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!first)
			strbuf_addch(sb, ',');
		first = 0;
		uint64_t mb;
		if (!strncmp(w, "mem=", 4) && !mem_parse_mb(w + 4, &mb)) {
			char m[64];
			sacct_opts_t mo = *o;
			mo.noconvert = 1;     /* TRES memory stays in MB */
			sacct_mem_fmt((double)mb, 1, &mo, m, sizeof(m));
			strbuf_addf(sb, "mem=%s", m);
		} else {
			strbuf_addstr(sb, w);
		}
	}
	free(dup);
}

static void time_fmt(strbuf_t *sb, int64_t t, const char *zero)
{
	char b[64];
	if (!t) {
		strbuf_addstr(sb, zero);
		return;
	}
	time_fmt_iso((time_t)t, b, sizeof(b));
	strbuf_addstr(sb, b);
}

static int64_t elapsed(const sacct_row_t *r)
{
	int64_t s = num(r, SC_START), e = num(r, SC_END);
	if (!s)
		return 0;
	if (!e)
		e = r->now;
	int64_t d = e - s - num(r, SC_SUSPENDED);
	return d < 0 ? 0 : d;
}

static int64_t cpus(const sacct_row_t *r)
{
	if (r->step || has(r, SC_START))
		return num(r, SC_ALLOC_CPUS) ? num(r, SC_ALLOC_CPUS) : num(r, SC_REQ_CPUS);
	return num(r, SC_REQ_CPUS);
}

/* Slurm's CPU time format: [D-]HH:MM:SS, or MM:SS.mmm under an hour. */
static void cpu_us_fmt(strbuf_t *sb, uint64_t us)
{
	uint64_t secs = us / 1000000, ms = us % 1000000 / 1000;
	uint64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
	if (d)
		strbuf_addf(sb, "%" PRIu64 "-%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, d, h, m, s);
	else if (h)
		strbuf_addf(sb, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, h, m, s);
	else if (us % 1000000)
		strbuf_addf(sb, "%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64, m, s, ms);
	else
		strbuf_addf(sb, "00:%02" PRIu64 ":%02" PRIu64, m, s);
}

static void hms(strbuf_t *sb, int64_t secs)
{
	char b[64];
	secs_fmt_hms((long)secs, b, sizeof(b));
	strbuf_addstr(sb, b);
}

static uint32_t step_id(const sacct_row_t *r)
{
	return (uint32_t)num(r, SC_STEP_ID);
}

static void jobid(strbuf_t *sb, const sacct_row_t *r, int raw)
{
	int64_t aj = num(r, SC_ARRAY_JOB_ID), at = num(r, SC_ARRAY_TASK_ID);
	const char *tasks = r->c[SC_ARRAY_TASK_STR];
	if (!raw && aj && at != NO_VAL32 && has(r, SC_ARRAY_TASK_ID))
		strbuf_addf(sb, "%" PRId64 "_%" PRId64, aj, at);
	else if (!raw && aj && tasks && *tasks)   /* the tasks not started */
		strbuf_addf(sb, "%" PRId64 "_[%s]", aj, tasks);
	else
		strbuf_addstr(sb, r->c[SC_JOB_ID] ? r->c[SC_JOB_ID] : "");
	if (!r->step)
		return;
	uint32_t s = step_id(r);
	if (s == 4294967291u)
		strbuf_addstr(sb, ".batch");
	else if (s == 4294967292u)
		strbuf_addstr(sb, ".extern");
	else if (s == 4294967290u)
		strbuf_addstr(sb, ".interactive");
	else
		strbuf_addf(sb, ".%u", s);
}

void sacct_value(strbuf_t *sb, const sacct_field_def_t *d, const sacct_row_t *r,
		 const sacct_opts_t *o)
{
	char b[128];
	int c = d->kind == K_CPU_US && d->col == SC_N ? SC_N : d->col;
	switch (d->kind) {
	case K_BLANK:
		break;
	case K_ZERO:
		strbuf_addch(sb, '0');
		break;
	case K_JOBID:
		jobid(sb, r, 0);
		break;
	case K_JOBIDRAW:
		jobid(sb, r, 1);
		break;
	case K_TEXT:
		if (has(r, c))
			strbuf_addstr(sb, r->c[c]);
		break;
	case K_TEXT_JOB: case K_NUM_JOB:
		if (!r->step && has(r, c))
			strbuf_addstr(sb, r->c[c]);
		break;
	case K_TEXT_STEP: case K_NUM_STEP:
		if (r->step && has(r, c))
			strbuf_addstr(sb, r->c[c]);
		break;
	case K_NAME:
		if (has(r, SC_NAME))
			strbuf_addstr(sb, r->c[SC_NAME]);
		break;
	case K_USER:
		if (!r->step)
			strbuf_addstr(sb, has(r, SC_USER) ? r->c[SC_USER]
				      : cmd_user_name((uint32_t)num(r, SC_UID)));
		break;
	case K_GROUP:
		if (!r->step)
			strbuf_addstr(sb, has(r, SC_GRP) ? r->c[SC_GRP]
				      : cmd_group_name((uint32_t)num(r, SC_GID)));
		break;
	case K_CPUS:
		if (c == SC_REQ_CPUS && !r->step)
			strbuf_addf(sb, "%" PRId64, num(r, SC_REQ_CPUS));
		else
			strbuf_addf(sb, "%" PRId64, cpus(r));
		break;
	case K_NNODES:
		if (r->step || (c == SC_ALLOC_NODES && num(r, SC_ALLOC_NODES)))
			strbuf_addf(sb, "%" PRId64, num(r, SC_ALLOC_NODES));
		else
			strbuf_addf(sb, "%" PRId64, num(r, SC_REQ_NODES));
		break;
	case K_ALLOC_NODES:
		strbuf_addf(sb, "%" PRId64, num(r, SC_ALLOC_NODES));
		break;
	case K_STATE:
		sacct_state_fmt(r, b, sizeof(b));
		strbuf_addstr(sb, b);
		break;
	case K_EXIT: {
		uint32_t st = (uint32_t)num(r, SC_EXIT_CODE);
		/* a cancelled job's own code is 0:0 (its batch step has the signal) */
		if (!r->step && ((uint32_t)num(r, SC_STATE) & JOB_STATE_BASE) == JOB_CANCELLED &&
		    WIFSIGNALED(st))
			st = 0;
		sacct_exit_fmt(st, b, sizeof(b));
		strbuf_addstr(sb, b);
		break;
	}
	case K_DERIVED:
		if (!r->step) {
			sacct_exit_fmt((uint32_t)num(r, SC_DERIVED_EC), b, sizeof(b));
			strbuf_addstr(sb, b);
		}
		break;
	case K_ELAPSED:
		hms(sb, elapsed(r));
		break;
	case K_ELAPSED_RAW:
		strbuf_addf(sb, "%" PRId64, elapsed(r));
		break;
	case K_CPUTIME:
		hms(sb, elapsed(r) * cpus(r));
		break;
	case K_CPUTIME_RAW:
		strbuf_addf(sb, "%" PRId64, elapsed(r) * cpus(r));
		break;
	case K_SUBMIT:
		time_fmt(sb, r->step ? num(r, SC_START) : num(r, SC_SUBMIT), "Unknown");
		break;
	case K_ELIGIBLE:
		time_fmt(sb, r->step ? num(r, SC_START) : num(r, SC_ELIGIBLE), "Unknown");
		break;
	case K_START: {
		/* never started: "Unknown" while it may, "None" once it cannot */
		uint32_t base = (uint32_t)num(r, SC_STATE) & JOB_STATE_BASE;
		time_fmt(sb, num(r, SC_START), base >= JOB_COMPLETE ? "None" : "Unknown");
		break;
	}
	case K_END:
		time_fmt(sb, num(r, SC_END), "Unknown");
		break;
	case K_SUSPENDED:
		hms(sb, num(r, SC_SUSPENDED));
		break;
	case K_TIMELIMIT: case K_TIMELIMIT_RAW: {
		if (r->step)
			break;
		uint32_t t = (uint32_t)num(r, SC_TIMELIMIT);
		if (t == TIME_NO_VAL || !has(r, SC_TIMELIMIT))
			strbuf_addstr(sb, "Partition_Limit");
		else if (t == TIME_INFINITE)
			strbuf_addstr(sb, "UNLIMITED");
		else if (d->kind == K_TIMELIMIT_RAW)
			strbuf_addf(sb, "%u", t);
		else {
			mins_fmt_limit(t, b, sizeof(b));
			strbuf_addstr(sb, b);
		}
		break;
	}
	case K_NODELIST:
		strbuf_addstr(sb, has(r, SC_NODELIST) ? r->c[SC_NODELIST] : "None assigned");
		break;
	case K_REASON:
		if (!r->step)
			strbuf_addstr(sb, job_reason_string((uint32_t)num(r, SC_REASON)));
		break;
	case K_REQMEM: {
		if (r->step || !has(r, SC_REQ_TRES))
			break;
		const char *m = strstr(r->c[SC_REQ_TRES], "mem=");
		uint64_t mb;
		if (m) {
			char v[32];
			size_t n = strcspn(m + 4, ",");
			snprintf(v, sizeof(v), "%.*s", (int)(n < 31 ? n : 31), m + 4);
			if (!mem_parse_mb(v, &mb)) {
				sacct_opts_t mo = *o;
				mo.noconvert = 1;
				if (o->units >= 0 || o->noconvert)
					sacct_mem_fmt((double)mb, 1, &mo, b, sizeof(b));
				else
					sacct_mem_fmt((double)mb, 1, NULL, b, sizeof(b));
				strbuf_addstr(sb, b);
			}
		}
		break;
	}
	case K_TRES_JOB:
		if (!r->step)
			tres_fmt(sb, has(r, c) ? r->c[c] : NULL, o);
		break;
	case K_TRES:
		tres_fmt(sb, has(r, c) ? r->c[c] : NULL, o);
		break;
	case K_RESERVED: case K_RESVCPU: case K_RESVCPU_RAW: {
		if (r->step)
			break;
		int64_t el = num(r, SC_ELIGIBLE), st = num(r, SC_START);
		int64_t v = el ? (st ? st : r->now) - el : 0;
		if (v < 0)
			v = 0;
		if (d->kind != K_RESERVED)
			v *= num(r, SC_REQ_CPUS);
		if (d->kind == K_RESVCPU_RAW)
			strbuf_addf(sb, "%" PRId64, v);
		else
			hms(sb, v);
		break;
	}
	case K_CPU_US: {
		uint64_t us = c == SC_N ? (uint64_t)(num(r, SC_USER_CPU_US) + num(r, SC_SYS_CPU_US))
			: (uint64_t)num(r, c);
		cpu_us_fmt(sb, us);
		break;
	}
	case K_CPU_S:
		if (r->step && has(r, c))
			hms(sb, num(r, c));
		break;
	case K_MEM_KB:
		if (r->step && has(r, c)) {
			sacct_mem_fmt((double)num(r, c), 0, o, b, sizeof(b));
			strbuf_addstr(sb, b);
		}
		break;
	case K_DISK:
		if (r->step && has(r, c)) {
			double mb = (double)num(r, c) / (1024.0 * 1024.0);
			if (num(r, c) == 0)
				strbuf_addch(sb, '0');
			else
				strbuf_addf(sb, "%.2fM", mb);
		}
		break;
	case K_CPUFREQ:
		if (r->step && step_id(r) == 4294967291u)
			strbuf_addch(sb, '0');
		else
			strbuf_addstr(sb, has(r, c) ? r->c[c] : "Unknown");
		break;
	case K_AVECPUFREQ:
		if (r->step)
			strbuf_addch(sb, '0');
		break;
	case K_LAYOUT:
		if (r->step)
			strbuf_addstr(sb, "Unknown");
		break;
	}
}
