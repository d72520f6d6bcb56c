/*
 * pattern: the stdio file name patterns of sbatch/srun (man sbatch,
 * "filename pattern": %j %J %s %A %a %x %u %N %n %t %%, with an optional
 * zero-pad width), expanded as Slurm's stepd does. The node daemon opens
 * a job's files with them; commands use them to name the same files
 * (srun's per-task files, `sluice why`'s stderr tail).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"
#include "proto.h"
#include "strbuf.h"
#include "xalloc.h"

static void add_num(strbuf_t *sb, int width, unsigned long v)
{
	strbuf_addf(sb, "%0*lu", width, v);
}

char *pattern_expand(const char *pat, const pattern_ctx_t *ctx)
{
	strbuf_t sb = STRBUF_INIT;
	if (!pat)
		return strbuf_detach(&sb);
	/* man sbatch: a backslash anywhere turns off all replacement. */
	if (strchr(pat, '\\')) {
		for (const char *p = pat; *p; p++)
			if (*p != '\\')
				strbuf_addch(&sb, *p);
		return strbuf_detach(&sb);
	}
	for (const char *p = pat; *p; p++) {
		if (*p != '%') {
			strbuf_addch(&sb, *p);
			continue;
		}
		const char *start = p++;
		int width = 0;
		while (*p >= '0' && *p <= '9') {
			if (width < 10)     /* Slurm caps the pad width at 10 */
				width = width * 10 + (*p - '0');
			p++;
		}
		if (width > 10)
			width = 10;
		switch (*p) {
		case '%':
			strbuf_addch(&sb, '%');
			break;
		case 'j':
			add_num(&sb, width, ctx->job_id);
			break;
		case 'J':
			add_num(&sb, width, ctx->job_id);
			if (ctx->step_id != PATTERN_BATCH_STEP)
				strbuf_addf(&sb, ".%u", ctx->step_id);
			break;
		case 's':
			add_num(&sb, width, ctx->step_id);
			break;
		case 'A':
			add_num(&sb, width, ctx->array_job_id ? ctx->array_job_id : ctx->job_id);
			break;
		case 'a':
			add_num(&sb, width, ctx->array_job_id ? ctx->array_task_id : NO_VAL32);
			break;
		case 'x':
			strbuf_addstr(&sb, ctx->job_name ? ctx->job_name : "");
			break;
		case 'u':
			strbuf_addstr(&sb, ctx->user ? ctx->user : "");
			break;
		case 'N': {
			/* the short host name: up to the first '.' */
			const char *n = ctx->node ? ctx->node : "";
			strbuf_add(&sb, n, strcspn(n, "."));
			break;
		}
		case 'n':
			add_num(&sb, width, ctx->node_id);
			break;
		case 't':
			add_num(&sb, width, ctx->task_id);
			break;
		case '\0':
			strbuf_addstr(&sb, start);
			return strbuf_detach(&sb);
		default:
			strbuf_add(&sb, start, (size_t)(p - start + 1));
			break;
		}
	}
	return strbuf_detach(&sb);
}

char *pattern_path(const char *pat, const char *dflt, const char *work_dir,
		   const pattern_ctx_t *ctx)
{
	char *name = pattern_expand(pat && *pat ? pat : dflt, ctx);
	if (name[0] == '/' || !work_dir || !*work_dir)
		return name;
	size_t wl = strlen(work_dir);
	char *full = xasprintf("%s%s%s", work_dir,
			       work_dir[wl - 1] == '/' ? "" : "/", name);
	free(name);
	return full;
}

/* Does pat use one of the conversions in convs (after an optional width)? */
static int uses(const char *pat, const char *convs)
{
	if (!pat || strchr(pat, '\\'))
		return 0;
	for (const char *p = pat; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			break;
		if (strchr(convs, *p))
			return 1;
	}
	return 0;
}

int fpattern_per_task(const char *pat)
{
	return uses(pat, "t");
}

int fpattern_per_node(const char *pat)
{
	return uses(pat, "Nn");
}
