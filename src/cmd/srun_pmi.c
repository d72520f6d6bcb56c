/*
 * srun_pmi: the meeting point of a --mpi=pmi2 or pmix step's fences. Every
 * node's supervisor sends its tasks' puts (pmix: OpenPMIx's blob of them)
 * once they all entered the fence; when
 * every node has, the concatenation goes back to each (srun_step.c sends
 * it), which answers its tasks. A star through srun: the step's
 * connections are already there and authenticated by the launch, so no
 * node talks to another and nothing new listens. See srun_int.h.
 */
#include <stdlib.h>

#include "cmd/srun_int.h"
#include "log.h"
#include "xalloc.h"

struct srun_pmi {
	uint32_t nnodes, got;
	uint8_t *in;          /* per node: its share of this fence is in */
	strbuf_t all;
};

srun_pmi_t *srun_pmi_new(uint32_t nnodes)
{
	srun_pmi_t *p = xcalloc(1, sizeof(*p));
	p->nnodes = nnodes;
	p->in = xcalloc(nnodes ? nnodes : 1, 1);
	strbuf_init(&p->all);
	return p;
}

int srun_pmi_add(srun_pmi_t *p, uint32_t node, const void *data, size_t len,
		 const strbuf_t **all)
{
	if (node >= p->nnodes || p->in[node])
		return -1;
	if (p->got == p->nnodes) {       /* the last fence was handed back */
		p->got = 0;
		strbuf_reset(&p->all);
	}
	p->in[node] = 1;
	p->got++;
	if (len)
		strbuf_add(&p->all, data, len);
	if (p->got < p->nnodes)
		return 0;
	for (uint32_t i = 0; i < p->nnodes; i++)
		p->in[i] = 0;
	*all = &p->all;
	return 1;
}

void srun_pmi_free(srun_pmi_t *p)
{
	if (!p)
		return;
	strbuf_release(&p->all);
	free(p->in);
	free(p);
}
