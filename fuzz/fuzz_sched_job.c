/*
 * fuzz_sched_job: libFuzzer target for what a user's job request makes
 * the scheduler core parse and decide: the --constraint expression (plain
 * and/or, matching OR "[a|b]", counts "a*2"), the job's shape (nodes,
 * tasks, CPUs, memory, GPUs, exclusive, oversubscribe, contiguous), and
 * the SchedulerParameters / SelectTypeParameters strings, and up to 3
 * advance reservations (active, future, infinite, MAINT) the job may be
 * in. The input is 16 bytes of numbers, then the constraint text, a NUL,
 * and a parameter string. Every path must end without a crash, leak or
 * sanitizer report, a started job's allocation must fit its nodes, and
 * a started job never holds a node a reservation keeps from it (nor, in
 * one, a node outside it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "timefmt.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NN 8

static const char *feats[NN] = { "a", "a,b", "b", "b,ib", "ib", NULL, "a,ib", "h100,a" };
static const int32_t sw_parent[4 + 3] = { 4, 4, 5, 5, 6, 6, -1 };
static const uint32_t sw_level[4 + 3] = { 0, 0, 0, 0, 1, 1, 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 16)
		return 0;
	const uint8_t *v = data;
	char *text = xmalloc(size - 16 + 1);
	memcpy(text, data + 16, size - 16);
	text[size - 16] = '\0';
	const char *params = text + strlen(text) + (strlen(text) < size - 16 ? 1 : 0);

	sched_t s;
	memset(&s, 0, sizeof(s));
	sched_params_init(&s.params);
	sched_params_parse(&s.params, "sched/backfill", params);
	sched_params_select(&s.params, params);
	s.nnodes = NN;
	s.nodes = xcalloc(NN, sizeof(sched_node_t));
	static char names[NN][8];
	for (uint32_t i = 0; i < NN; i++) {
		sched_node_t *n = &s.nodes[i];
		snprintf(names[i], sizeof(names[i]), "n%u", i);
		n->name = names[i];
		n->cpus = 16;
		n->mem = 64000;
		n->weight = 1;
		n->usable = 1;
		n->ngpus = 4;
		n->features = (char *)feats[i];
		n->leaf = (int)(i / 2);
		n->core_words = 1;
		n->cores_used = xcalloc(1, sizeof(uint64_t));
		n->cpu_share = xcalloc(n->cpus, 1);
		n->cpu_unit = sched_cpu_unit(&s.params, 4, 1 + (v[15] & 1));
	}
	s.nswitches = 7;
	s.sw_parent = sw_parent;
	s.sw_level = sw_level;
	s.nparts = 1;
	s.parts = xcalloc(1, sizeof(sched_part_t));
	uint32_t all[NN];
	for (uint32_t i = 0; i < NN; i++)
		all[i] = i;
	s.parts[0].name = "p";
	s.parts[0].nodes = all;
	s.parts[0].nnodes = NN;
	s.parts[0].up = 1;
	s.parts[0].max_time = TIME_INFINITE;
	s.parts[0].max_nodes = UINT32_MAX;
	s.parts[0].max_share = v[14] % 5;
	s.parts[0].force_share = v[14] >> 7;
	sched_totals(&s);

	/* Two jobs: a running-shaped one first, then the fuzzed one. */
	sched_job_t j[2];
	memset(j, 0, sizeof(j));
	for (int k = 0; k < 2; k++) {
		j[k].job_id = (uint32_t)k + 1;
		j[k].priority = 100 - (uint32_t)k;
		j[k].min_nodes = 1 + v[0] % 9;
		j[k].max_nodes = v[1] % 3 ? j[k].min_nodes + v[1] % 4 : 0;
		j[k].ntasks = v[2] & 0x80 ? 1u << (v[2] & 31) : v[2] % 40;
		/* High bit: a count from anywhere in 32 bits, as the wire allows
		 * (products of these overflowed once). */
		j[k].cpus_per_task = v[3] & 0x80 ? 1u << (v[3] & 31) : 1 + v[3] % 20;
		j[k].ntasks_per_node = v[4] & 0x80 ? 1u << (v[4] & 31) : v[4] % 5;
		j[k].mem_per_node = (v[5] & 1) ? (uint64_t)v[6] * 1000 : 0;
		j[k].mem_per_cpu = (v[5] & 2) ? (uint64_t)v[6] * 100 : 0;
		j[k].gpus_per_node = v[7] % 6;
		j[k].gpus_per_job = v[8] % 10;
		j[k].gpus_per_task = (v[9] & 3) == 3 ? 1 : 0;
		j[k].cpus_per_gpu = v[9] >> 5;
		j[k].time_limit = 1 + v[10];
		j[k].exclusive = v[11] & 1;
		j[k].oversubscribe = (v[11] >> 1) & 1;
		j[k].contiguous = (v[11] >> 2) & 1;
		j[k].exclusive_user = (v[11] >> 3) & 1;
		j[k].user_id = 1000 + ((v[11] >> 4) & 1) + (uint32_t)k;
		j[k].features = k ? text : NULL;
		j[k].req_switch = v[12] % 3;
		j[k].wait4switch = v[13];
		j[k].submit_time = 1000;
	}
	/* Reservations from the bits the numbers above leave unused. */
	sched_resv_t rv[3];
	uint32_t rn[3][NN];
	uint32_t nrv = (v[15] >> 1) & 3;
	for (uint32_t r = 0; r < nrv; r++) {
		uint32_t first = ((v[12] >> 2) + 3 * r) % NN, cnt = 1 + ((v[15] >> 3) + r) % 4;
		memset(&rv[r], 0, sizeof(rv[r]));
		rv[r].name = "rs_fuzz";
		rv[r].nnodes = 0;
		for (uint32_t i = 0; i < cnt; i++)
			rn[r][rv[r].nnodes++] = (first + i) % NN;
		rv[r].nodes = rn[r];
		rv[r].start = 100000 + ((int64_t)(v[13] % 7) - 3) * 600 * (r + 1);
		rv[r].end = (v[15] >> 7) && r == 0 ? INT64_MAX : rv[r].start + 600 * (1 + v[10] % 5);
		rv[r].flags = r & 1 ? SCHED_RESV_F_MAINT : 0;
	}
	s.resvs = nrv ? rv : NULL;
	s.nresvs = nrv;
	j[1].resv = (v[12] >> 4) & 3;      /* may be out of range: never runs */
	(void)sched_job_validate(&s, &j[1]);
	(void)sched_job_refusal_detail(&s, &j[1]);
	s.run_backfill = 1;
	sched_decision_t *d = NULL;
	sched_pass(&s, j, 2, 100000, &d);
	for (uint32_t k = 0; k < 2; k++) {
		if (!d[k].start)
			continue;
		const sched_job_t *jj = &j[d[k].job_index];
		const sched_alloc_t *a = &d[k].alloc;
		int64_t end = 100000 + (int64_t)jj->time_limit * 60;
		for (uint32_t i = 0; i < a->nnodes; i++) {
			if (a->nodes[i] >= NN || a->cpus[i] > s.nodes[a->nodes[i]].cpus ||
			    a->mem[i] > s.nodes[a->nodes[i]].mem)
				abort();
			for (uint32_t r = 0; r < nrv; r++) {
				int in = 0;
				for (uint32_t q = 0; q < rv[r].nnodes; q++)
					in |= rv[r].nodes[q] == a->nodes[i];
				if (jj->resv == r + 1 ? !in || 100000 < rv[r].start || 100000 >= rv[r].end
				    : in && 100000 < rv[r].end && end > rv[r].start)
					abort();
			}
		}
	}
	sched_alloc_t wr;
	int64_t wt = sched_will_run(&s, j, 1, &j[1], 100000, &wr);
	if (wt != INT64_MAX && wt < 100000)
		abort();
	sched_alloc_free(&wr);
	for (uint32_t k = 0; k < 2; k++)
		if (d[k].start)
			sched_alloc_release(&s, &d[k].alloc);
	for (uint32_t i = 0; i < NN; i++)
		if (s.nodes[i].cpus_used || s.nodes[i].mem_used || s.nodes[i].gpus_used ||
		    s.nodes[i].njobs || s.nodes[i].cores_used[0])
			abort();   /* release undoes commit */
	sched_decisions_free(d, 2);
	for (uint32_t i = 0; i < NN; i++) {
		free(s.nodes[i].cores_used);
		free(s.nodes[i].cpu_share);
	}
	free(s.nodes);
	free(s.parts);
	free(text);
	return 0;
}
