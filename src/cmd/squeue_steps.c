/*
 * squeue_steps: squeue -s (see squeue_steps.h). The filters Slurm 22.05
 * applies to steps are -s's list, -j, -u, -p and -w (a step on any of the
 * nodes); it ignores -n, -t, -A and -q for steps, and so does this.
 * Invalid -o letters and -O names are reported as Slurm words it ("Invalid
 * job step format specification") and printed literally / left empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmdutil.h"
#include "cmd/print.h"
#include "cmd/squeue_steps.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "strbuf.h"
#include "xalloc.h"

typedef struct step_sel {
	uint32_t job_id, step_id;
} step_sel_t;

static void bad_letter(int c, void *arg)
{
	(void)arg;
	error("Invalid job step format specification: %c", c);
}

static void bad_name(const char *name, void *arg)
{
	(void)arg;
	error("Invalid job step format specification: %s", name);
}

static int on_nodes(const step_info_t *s, hostlist_t *want)
{
	char *err = NULL;
	hostlist_t *hl = s->nodes ? hostlist_create(s->nodes, &err) : NULL;
	free(err);
	int hit = 0;
	for (size_t i = 0; hl && !hit && i < hostlist_count(hl); i++)
		hit = hostlist_find(want, hostlist_nth(hl, i)) >= 0;
	hostlist_destroy(hl);
	return hit;
}

static int wanted(const squeue_steps_opts_t *o, const step_sel_t *sel, size_t nsel,
		  const step_info_t *s)
{
	if (nsel) {
		size_t k;
		for (k = 0; k < nsel; k++)
			if (sel[k].job_id == s->job_id && sel[k].step_id == s->step_id)
				break;
		if (k == nsel)
			return 0;
	}
	if (o->njob_ids) {
		size_t k;
		for (k = 0; k < o->njob_ids; k++)
			if (o->job_ids[k] == s->job_id || o->job_ids[k] == s->array_job_id)
				break;
		if (k == o->njob_ids)
			return 0;
	}
	if (o->nuids) {
		size_t k;
		for (k = 0; k < o->nuids && o->uids[k] != s->user_id; k++)
			;
		if (k == o->nuids)
			return 0;
	}
	if (o->parts && o->parts->n && !cmd_strv_has(o->parts, s->partition ? s->partition : ""))
		return 0;
	if (o->nodes && !on_nodes(s, o->nodes))
		return 0;
	return 1;
}

static int run_once(const squeue_steps_opts_t *o, const fmt_t *fmt, const step_sel_t *sel,
		    size_t nsel)
{
	msg_info_req_t req = { 0 };
	msg_step_info_t *si = NULL;
	if (cmd_call(MSG_STEP_INFO_REQ, &req, MSG_STEP_INFO, (void **)&si, "slurm_get_job_steps"))
		return 1;
	time_t now = time(NULL);
	const step_info_t **v = xcalloc(si->nsteps + 1, sizeof(*v));
	size_t n = 0;
	for (uint32_t i = 0; i < si->nsteps; i++)
		if (wanted(o, sel, nsel, &si->steps[i]))
			v[n++] = &si->steps[i];
	steps_sort(v, n, o->sort);
	strbuf_t sb = STRBUF_INIT;
	if (!o->no_header) {
		if (o->long_fmt || o->iterate > 0)
			print_date_line(&sb, now);
		print_step_header(&sb, fmt);
	}
	for (size_t i = 0; i < n; i++)
		print_step_row(&sb, fmt, v[i], now);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	free(v);
	proto_msg_destroy(MSG_STEP_INFO, si);
	return 0;
}

int squeue_steps_run(const squeue_steps_opts_t *o)
{
	/* -s's list: JOB.STEP items (Slurm refuses a bare job id) */
	step_sel_t *sel = NULL;
	size_t nsel = 0;
	strv_t items = { 0 };
	if (o->steps)
		cmd_split(&items, o->steps);
	for (uint32_t i = 0; i < items.n; i++) {
		uint32_t j, st;
		if (step_id_parse(items.v[i], &j, &st) || st == NO_VAL32) {
			error("Invalid job_step id: %s%s", items.v[i],
			      strchr(items.v[i], '.') ? "" : ".??");
			strv_free(&items);
			free(sel);
			return 1;
		}
		sel = xrealloc(sel, (nsel + 1) * sizeof(*sel));
		sel[nsel++] = (step_sel_t){ j, st };
	}
	strv_free(&items);

	fmt_t fmt;
	if (o->format_long) {
		fmt_parse_long(&fmt, o->format_long, step_fmt_lookup, bad_name, NULL);
		for (size_t i = 0; i < fmt.n; i++)   /* for steps Slurm prints nothing there */
			if (fmt.f[i].code < 0)
				fmt.f[i].suffix[0] = '\0';
	} else {
		const char *spec = o->format ? o->format : SQUEUE_FMT_STEPS;
		if (!strncmp(spec, "%all", 4))   /* the step letters, '|' after each */
			spec = "%b|%i|%j|%l|%u|%A|%M|%N|%P|%S|%U|";
		fmt_parse(&fmt, spec, 1, step_fmt_valid, bad_letter, NULL);
	}
	int rc;
	for (;;) {
		rc = run_once(o, &fmt, sel, nsel);
		if (rc || o->iterate <= 0)
			break;
		printf("\n");
		fflush(stdout);
		sleep((unsigned)o->iterate);
	}
	fmt_release(&fmt);
	free(sel);
	return rc;
}
