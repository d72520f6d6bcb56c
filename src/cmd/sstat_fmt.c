/*
 * sstat_fmt.c: sstat's aggregation of the nodes' task figures and how
 * each field of Slurm 22.05's sstat prints them (widths, units and the
 * TRES strings as measured on a real 22.05 cluster: memory and disk in
 * bytes moved up a unit only while exact to half a unit, CPU times as
 * [D-]HH:MM:SS, the "...Task" TRES strings with the cpu entry printed as
 * a time, as 22.05 does). Pure: no I/O.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/sstat.h"
#include "hostlist.h"
#include "jobid.h"
#include "timefmt.h"
#include "xalloc.h"

void sstat_step_add(sstat_step_t *s, const char *node, const char *pids,
		    const stat_task_t *tasks, uint32_t ntasks)
{
	uint32_t ni = (uint32_t)s->nodes.n;
	strv_push(&s->nodes, node);
	strv_push(&s->pids, pids ? pids : "");
	for (uint32_t k = 0; k < ntasks; k++) {
		const stat_task_t *t = &tasks[k];
		uint64_t v[SM_N] = {
			[SM_CPU] = t->cpu_us, [SM_READ] = t->disk_read, [SM_MEM] = t->rss_kb * 1024,
			[SM_PAGES] = t->pages, [SM_VMEM] = t->vmsize_kb * 1024,
			[SM_WRITE] = t->disk_write,
		};
		for (int m = 0; m < SM_N; m++) {
			sstat_measure_t *x = &s->m[m];
			if (!s->ntasks || v[m] > x->max) {
				x->max = v[m];
				x->max_node = ni;
				x->max_task = t->rank;
			}
			if (!s->ntasks || v[m] < x->min) {
				x->min = v[m];
				x->min_node = ni;
				x->min_task = t->rank;
			}
			x->tot += v[m];
		}
		s->ntasks++;
	}
}

uint64_t sstat_ave(const sstat_step_t *s, int m)
{
	return s->ntasks ? s->m[m].tot / s->ntasks : 0;
}

void sstat_step_release(sstat_step_t *s)
{
	strv_free(&s->nodes);
	strv_free(&s->pids);
}

void sstat_num_fmt(uint64_t v, const sstat_opts_t *o, char *buf, size_t len)
{
	static const char units[] = "\0KMGTP";
	if (!v || (o && o->noconvert)) {
		snprintf(buf, len, "%" PRIu64, v);
		return;
	}
	double x = (double)v;
	int u = 0;
	/* up a unit while the whole part stays a multiple of half a unit */
	while (u < 5 && x >= 1024 && (uint64_t)x % 512 == 0) {
		x /= 1024;
		u++;
	}
	if (x == (double)(uint64_t)x)
		snprintf(buf, len, "%" PRIu64 "%.1s", (uint64_t)x, units + u);
	else
		snprintf(buf, len, "%.2f%.1s", x, units + u);
}

/* How a field is printed. */
enum {
	K_JOBID, K_NTASKS, K_NODELIST, K_PIDS,
	K_ZERO,            /* energy, AveCPUFreq (not measured here) */
	K_REQFREQ,         /* "Unknown" for srun steps, "0" for the batch step */
	K_CPU_AVE, K_CPU_MIN,
	K_AVE, K_MAX, K_MAX_NODE, K_MAX_TASK, K_MIN_NODE, K_MIN_TASK,
	K_TRES_IN, K_TRES_OUT,  /* m: which of the T_* views */
};
enum { T_AVE, T_MAX, T_MAX_NODE, T_MAX_TASK, T_MIN, T_MIN_NODE, T_MIN_TASK, T_TOT };

#define F(n, w, k, m) { n, w, 0, k, m }
/* In the order `sstat -e` lists them. */
const sstat_field_t sstat_fields[] = {
	F("AveCPU", 10, K_CPU_AVE, SM_CPU),
	F("AveCPUFreq", 10, K_ZERO, 0),
	F("AveDiskRead", 12, K_AVE, SM_READ),
	F("AveDiskWrite", 12, K_AVE, SM_WRITE),
	F("AvePages", 10, K_AVE, SM_PAGES),
	F("AveRSS", 10, K_AVE, SM_MEM),
	F("AveVMSize", 10, K_AVE, SM_VMEM),
	F("ConsumedEnergy", 14, K_ZERO, 0),
	F("ConsumedEnergyRaw", 17, K_ZERO, 0),
	{ "JobID", 12, 1, K_JOBID, 0 },
	F("MaxDiskRead", 12, K_MAX, SM_READ),
	F("MaxDiskReadNode", 15, K_MAX_NODE, SM_READ),
	F("MaxDiskReadTask", 15, K_MAX_TASK, SM_READ),
	F("MaxDiskWrite", 12, K_MAX, SM_WRITE),
	F("MaxDiskWriteNode", 16, K_MAX_NODE, SM_WRITE),
	F("MaxDiskWriteTask", 16, K_MAX_TASK, SM_WRITE),
	F("MaxPages", 8, K_MAX, SM_PAGES),
	F("MaxPagesNode", 12, K_MAX_NODE, SM_PAGES),
	F("MaxPagesTask", 14, K_MAX_TASK, SM_PAGES),
	F("MaxRSS", 10, K_MAX, SM_MEM),
	F("MaxRSSNode", 10, K_MAX_NODE, SM_MEM),
	F("MaxRSSTask", 10, K_MAX_TASK, SM_MEM),
	F("MaxVMSize", 10, K_MAX, SM_VMEM),
	F("MaxVMSizeNode", 14, K_MAX_NODE, SM_VMEM),
	F("MaxVMSizeTask", 14, K_MAX_TASK, SM_VMEM),
	F("MinCPU", 10, K_CPU_MIN, SM_CPU),
	F("MinCPUNode", 10, K_MIN_NODE, SM_CPU),
	F("MinCPUTask", 10, K_MIN_TASK, SM_CPU),
	F("Nodelist", 20, K_NODELIST, 0),
	F("NTasks", 8, K_NTASKS, 0),
	F("Pids", 20, K_PIDS, 0),
	F("ReqCPUFreq", 10, K_REQFREQ, 0),
	F("ReqCPUFreqMin", 13, K_REQFREQ, 0),
	F("ReqCPUFreqMax", 13, K_REQFREQ, 0),
	F("ReqCPUFreqGov", 13, K_REQFREQ, 0),
	F("TRESUsageInAve", 14, K_TRES_IN, T_AVE),
	F("TRESUsageInMax", 14, K_TRES_IN, T_MAX),
	F("TRESUsageInMaxNode", 18, K_TRES_IN, T_MAX_NODE),
	F("TRESUsageInMaxTask", 18, K_TRES_IN, T_MAX_TASK),
	F("TRESUsageInMin", 14, K_TRES_IN, T_MIN),
	F("TRESUsageInMinNode", 18, K_TRES_IN, T_MIN_NODE),
	F("TRESUsageInMinTask", 18, K_TRES_IN, T_MIN_TASK),
	F("TRESUsageInTot", 14, K_TRES_IN, T_TOT),
	F("TRESUsageOutAve", 15, K_TRES_OUT, T_AVE),
	F("TRESUsageOutMax", 15, K_TRES_OUT, T_MAX),
	F("TRESUsageOutMaxNode", 19, K_TRES_OUT, T_MAX_NODE),
	F("TRESUsageOutMaxTask", 19, K_TRES_OUT, T_MAX_TASK),
	F("TRESUsageOutMin", 15, K_TRES_OUT, T_MIN),
	F("TRESUsageOutMinNode", 19, K_TRES_OUT, T_MIN_NODE),
	F("TRESUsageOutMinTask", 19, K_TRES_OUT, T_MIN_TASK),
	F("TRESUsageOutTot", 15, K_TRES_OUT, T_TOT),
};
#undef F
const size_t sstat_nfields = sizeof(sstat_fields) / sizeof(sstat_fields[0]);

const sstat_field_t *sstat_field_find(const char *name)
{
	for (size_t i = 0; i < sstat_nfields; i++)
		if (!strcasecmp(sstat_fields[i].name, name))
			return &sstat_fields[i];
	return NULL;
}

int sstat_format_parse(const char *spec, sstat_out_t **out, size_t *n, char **bad)
{
	char *dup = xstrdup(spec), *save = NULL;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int width = -1, left = -1;
		char *pct = strchr(w, '%');
		if (pct) {
			*pct = 0;
			char *e = NULL;
			long x = strtol(pct + 1, &e, 10);
			if (e != pct + 1 && !*e) {
				left = x < 0;
				width = (int)(x < 0 ? -x : x);
			}
		}
		const sstat_field_t *d = sstat_field_find(w);
		if (!d) {
			*bad = xstrdup(w);
			free(dup);
			return -1;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[*n] = (sstat_out_t){ .def = d, .width = width >= 0 ? width : d->width,
					    .left = left >= 0 ? left : d->left };
		(*n)++;
	}
	free(dup);
	return 0;
}

static void cpu_fmt(strbuf_t *sb, uint64_t us)
{
	char b[64];
	secs_fmt_hms((long)(us / 1000000), b, sizeof(b));
	strbuf_addstr(sb, b);
}

static void num(strbuf_t *sb, uint64_t v, const sstat_opts_t *o)
{
	char b[64];
	sstat_num_fmt(v, o, b, sizeof(b));
	strbuf_addstr(sb, b);
}

static const char *node_name(const sstat_step_t *s, uint32_t i)
{
	return i < s->nodes.n ? s->nodes.v[i] : "";
}

/* One entry of a TRES usage string: the value of measure m in view t. */
static void tres_entry(strbuf_t *sb, const sstat_step_t *s, int m, int t, const sstat_opts_t *o)
{
	const sstat_measure_t *x = &s->m[m];
	uint64_t v = 0;
	switch (t) {
	case T_MAX_NODE:
		strbuf_addstr(sb, node_name(s, x->max_node));
		return;
	case T_MIN_NODE:
		strbuf_addstr(sb, node_name(s, x->min_node));
		return;
	case T_MAX_TASK: case T_MIN_TASK: {
		uint32_t task = t == T_MAX_TASK ? x->max_task : x->min_task;
		if (m == SM_CPU)          /* 22.05 prints the task id as a time */
			cpu_fmt(sb, (uint64_t)task * 1000);
		else
			strbuf_addf(sb, "%u", task);
		return;
	}
	case T_AVE: v = sstat_ave(s, m); break;
	case T_MAX: v = x->max; break;
	case T_MIN: v = x->min; break;
	case T_TOT: v = x->tot; break;
	}
	if (m == SM_CPU)
		cpu_fmt(sb, v);
	else
		num(sb, v, o);
}

static void tres_fmt(strbuf_t *sb, const sstat_step_t *s, int out, int t, const sstat_opts_t *o)
{
	/* the energy entry: 0 (not measured) in value views, the first node
	 * in node views, absent in task views */
	int task_view = t == T_MAX_TASK || t == T_MIN_TASK;
	int node_view = t == T_MAX_NODE || t == T_MIN_NODE;
	if (!out) {
		strbuf_addstr(sb, "cpu=");
		tres_entry(sb, s, SM_CPU, t, o);
		strbuf_addch(sb, ',');
	}
	if (!task_view)
		strbuf_addf(sb, "energy=%s,", node_view ? node_name(s, 0) : "0");
	strbuf_addstr(sb, "fs/disk=");
	tres_entry(sb, s, out ? SM_WRITE : SM_READ, t, o);
	if (out)
		return;
	strbuf_addstr(sb, ",mem=");
	tres_entry(sb, s, SM_MEM, t, o);
	strbuf_addstr(sb, ",pages=");
	tres_entry(sb, s, SM_PAGES, t, o);
	strbuf_addstr(sb, ",vmem=");
	tres_entry(sb, s, SM_VMEM, t, o);
}

void sstat_value(strbuf_t *sb, const sstat_field_t *f, const sstat_step_t *s, int node,
		 const sstat_opts_t *o)
{
	const sstat_measure_t *x = &s->m[f->m];
	switch (f->kind) {
	case K_JOBID:
		if (s->step_id == STEP_BATCH)
			strbuf_addf(sb, "%u.batch", s->job_id);
		else if (s->step_id == STEP_EXTERN)
			strbuf_addf(sb, "%u.extern", s->job_id);
		else
			strbuf_addf(sb, "%u.%u", s->job_id, s->step_id);
		break;
	case K_NTASKS:
		strbuf_addf(sb, "%u", s->ntasks);
		break;
	case K_NODELIST:
		if (node >= 0) {
			strbuf_addstr(sb, node_name(s, (uint32_t)node));
		} else {
			char *r = hostlist_compress((const char *const *)s->nodes.v, s->nodes.n);
			strbuf_addstr(sb, r);
			free(r);
		}
		break;
	case K_PIDS: {
		int first = 1;
		for (size_t i = 0; i < s->pids.n; i++) {
			if ((node >= 0 && i != (size_t)node) || !*s->pids.v[i])
				continue;
			if (!first)
				strbuf_addch(sb, ',');
			first = 0;
			strbuf_addstr(sb, s->pids.v[i]);
		}
		break;
	}
	case K_ZERO:
		strbuf_addch(sb, '0');
		break;
	case K_REQFREQ:
		strbuf_addstr(sb, s->step_id == STEP_BATCH || s->step_id == STEP_EXTERN ? "0"
										 : "Unknown");
		break;
	case K_CPU_AVE:
		cpu_fmt(sb, sstat_ave(s, SM_CPU));
		break;
	case K_CPU_MIN:
		cpu_fmt(sb, x->min);
		break;
	case K_AVE:
		num(sb, sstat_ave(s, f->m), o);
		break;
	case K_MAX:
		num(sb, x->max, o);
		break;
	case K_MAX_NODE:
		strbuf_addstr(sb, node_name(s, x->max_node));
		break;
	case K_MIN_NODE:
		strbuf_addstr(sb, node_name(s, x->min_node));
		break;
	case K_MAX_TASK:
		strbuf_addf(sb, "%u", x->max_task);
		break;
	case K_MIN_TASK:
		strbuf_addf(sb, "%u", x->min_task);
		break;
	case K_TRES_IN:
		tres_fmt(sb, s, 0, f->m, o);
		break;
	case K_TRES_OUT:
		tres_fmt(sb, s, 1, f->m, o);
		break;
	}
}
