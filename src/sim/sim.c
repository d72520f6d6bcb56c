/*
 * sim.c: the simulator's event loop (sim.h) and the bare SWF machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "sim/sim.h"
#include "timefmt.h"
#include "xalloc.h"

/* Running jobs: a binary min-heap of job indexes on (end, index), so ends
 * at one instant are taken in a fixed order. */
typedef struct heap {
	uint32_t *v;
	size_t n, cap;
	const sim_job_t *jobs;
} heap_t;

static int heap_less(const heap_t *h, uint32_t a, uint32_t b)
{
	int64_t ea = h->jobs[a].end, eb = h->jobs[b].end;
	return ea < eb || (ea == eb && a < b);
}

static void heap_push(heap_t *h, uint32_t x)
{
	h->v = xgrow(h->v, sizeof(uint32_t), h->n + 1, &h->cap);
	size_t i = h->n++;
	while (i && heap_less(h, x, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static uint32_t heap_pop(heap_t *h)
{
	uint32_t top = h->v[0], x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && heap_less(h, h->v[c + 1], h->v[c]))
			c++;
		if (!heap_less(h, h->v[c], x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

void sim_run(sched_t *s, sim_job_t *jobs, size_t n, sim_counts_t *counts,
	     sim_progress_fn progress, void *arg)
{
	memset(counts, 0, sizeof(*counts));
	heap_t run = { .jobs = jobs };
	sched_alloc_t *allocs = xcalloc(n ? n : 1, sizeof(sched_alloc_t));
	uint32_t *pend = xmalloc((n ? n : 1) * sizeof(uint32_t));
	size_t npend = 0, next = 0, ended = 0;
	sched_job_t *sj = xmalloc((n ? n : 1) * sizeof(sched_job_t));
	sched_running_t *rs = xcalloc(n ? n : 1, sizeof(sched_running_t));
	int64_t last_bf = 0;
	int dirty = 0;               /* an event since the last backfill cycle */
	for (size_t i = 0; i < n; i++)
		jobs[i].started = 0;

	while (next < n || run.n) {
		int64_t t = INT64_MAX;
		if (next < n)
			t = jobs[next].req.submit_time;
		if (run.n && jobs[run.v[0]].end < t)
			t = jobs[run.v[0]].end;
		if (s->params.backfill && npend && dirty &&
		    last_bf + (int64_t)s->params.bf_interval < t)
			t = last_bf + (int64_t)s->params.bf_interval;
		int event = 0;
		while (run.n && jobs[run.v[0]].end == t) {
			uint32_t j = heap_pop(&run);
			sched_alloc_release(s, &allocs[j]);
			sched_alloc_free(&allocs[j]);
			ended++;
			event = 1;
		}
		while (next < n && jobs[next].req.submit_time == t) {
			pend[npend++] = (uint32_t)next++;
			event = 1;
		}
		if (event)
			dirty = 1;
		if (progress && event)
			progress(arg, ended, n);
		if (!npend)
			continue;

		/* One scheduling turn at t, as the controller runs it. */
		for (size_t k = 0; k < npend; k++)
			sj[k] = jobs[pend[k]].req;
		size_t nr = 0;
		for (size_t k = 0; k < run.n; k++) {
			const sim_job_t *rj = &jobs[run.v[k]];
			rs[nr++] = (sched_running_t){
				.alloc = &allocs[run.v[k]],
				.end_time = rj->start + (int64_t)rj->req.time_limit * 60,
				.job_id = rj->req.job_id, .uid = rj->req.user_id,
				.assoc = -1, .qos = -1, .start_time = rj->start,
				.part = rj->req.part,
			};
		}
		s->running = rs;
		s->nrunning = (uint32_t)nr;
		s->run_backfill = sched_backfill_due(&s->params, last_bf, t, (uint32_t)npend);
		sched_decision_t *d = NULL;
		sched_pass(s, sj, (uint32_t)npend, t, &d);
		s->running = NULL;
		s->nrunning = 0;
		counts->passes++;
		if (s->last.bf_ran) {
			counts->bf_cycles++;
			last_bf = t;
			dirty = 0;
		}
		int any = 0;
		for (size_t k = 0; k < npend; k++) {
			if (!d[k].start)
				continue;
			uint32_t j = pend[d[k].job_index];
			sim_job_t *sjb = &jobs[j];
			sjb->started = 1;
			sjb->start = t;
			sjb->end = t + sjb->run;
			sjb->nnodes = d[k].alloc.nnodes;
			sjb->backfilled = d[k].backfilled;
			allocs[j] = d[k].alloc;         /* ours now */
			memset(&d[k].alloc, 0, sizeof(d[k].alloc));
			heap_push(&run, j);
			any = 1;
		}
		sched_decisions_free(d, (uint32_t)npend);
		if (any) {
			size_t w = 0;
			for (size_t k = 0; k < npend; k++)
				if (!jobs[pend[k]].started)
					pend[w++] = pend[k];
			npend = w;
		}
	}
	counts->never_started = npend;
	free(run.v);
	free(allocs);
	free(pend);
	free(sj);
	free(rs);
}

void sim_machine_bare(sched_t *s, uint32_t nodes, uint32_t cpus, uint32_t gpus, int backfill)
{
	memset(s, 0, sizeof(*s));
	s->nnodes = nodes;
	s->nodes = xcalloc(nodes ? nodes : 1, sizeof(sched_node_t));
	for (uint32_t i = 0; i < nodes; i++) {
		sched_node_t *nd = &s->nodes[i];
		nd->name = "sim";        /* the core names nodes only in reasons */
		nd->cpus = cpus;
		nd->weight = 1;
		nd->leaf = -1;
		nd->usable = 1;
		if (gpus) {
			nd->ngpu_types = 1;
			nd->gpu_types[0].count = gpus > SCHED_MAX_GPUS ? SCHED_MAX_GPUS : gpus;
			nd->ngpus = nd->gpu_types[0].count;
		}
	}
	s->nparts = 1;
	s->parts = xcalloc(1, sizeof(sched_part_t));
	sched_part_t *p = &s->parts[0];
	p->name = "sim";
	p->nnodes = nodes;
	p->nodes = xmalloc((nodes ? nodes : 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < nodes; i++)
		p->nodes[i] = i;
	p->up = 1;
	p->max_time = TIME_INFINITE;
	p->max_nodes = UINT32_MAX;
	sched_params_init(&s->params);
	sched_params_parse(&s->params, backfill ? "sched/backfill" : "sched/builtin", NULL);
	sched_params_select(&s->params, "CR_Core");
	sched_totals(s);
}

void sim_machine_free(sched_t *s)
{
	for (uint32_t p = 0; p < s->nparts; p++)
		free(s->parts[p].nodes);
	free(s->parts);
	free(s->nodes);
	memset(s, 0, sizeof(*s));
}

void sim_machine_conf(sched_t *s, const struct conf *conf, int backfill)
{
	memset(s, 0, sizeof(*s));
	sched_build_conf(s, conf);
	for (uint32_t i = 0; i < s->nnodes; i++) {
		const char *st = conf->nodes[i].state;
		s->nodes[i].usable = !st || (strcasecmp(st, "FUTURE") && strcasecmp(st, "DOWN"));
	}
	for (uint32_t p = 0; p < s->nparts; p++) {
		const conf_part_t *cp = &conf->parts[p];
		sched_part_t *sp = &s->parts[p];
		sp->up = cp->state == CONF_PART_UP || cp->state == CONF_PART_DRAIN;
		sp->inactive = cp->state == CONF_PART_INACTIVE;
		sp->max_time = cp->max_time;
		sp->max_nodes = cp->max_nodes;
		sp->min_nodes = cp->min_nodes;
	}
	if (backfill >= 0)
		s->params.backfill = backfill;
}
