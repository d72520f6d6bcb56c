/*
 * cpubind: srun --cpu-bind for one task, applied with sched_setaffinity
 * in the task before it runs its command (man srun, --cpu-bind):
 *   none, no            no binding (also when --cpu-bind is not given);
 *   threads, cores, sockets, ldoms (and rank_ldom):
 *                       each task of the node gets its cpus-per-task CPUs
 *                       of the job's CPUs there, in order (task 0 the
 *                       first ones), wrapping round when there are more
 *                       tasks than CPUs;
 *   rank                the local rank's CPU of the job's;
 *   map_cpu:A,B,...     CPU A for local task 0, B for 1, ... (cycling);
 *   mask_cpu:M,N,...    hex masks, the same way (map_ldom/mask_ldom as
 *                       map_cpu/mask_cpu);
 *   verbose / quiet     report the binding on the task's stderr or not.
 * The job's CPU ids on a node are the controller's (core indexes, as
 * scontrol show job -d lists them). Only CPUs this host has (the node
 * daemon's own affinity) are used: a virtual node with more CPUs than
 * the host binds to what exists, and to nothing when none does.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noded.h"
#include "xalloc.h"

/* "0-3,6" -> ids; returns count (at most max). */
static uint32_t parse_ids(const char *s, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;
	char *copy = xstrdup(s ? s : ""), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) {
		char *d = strchr(t, '-');
		unsigned long a = strtoul(t, NULL, 10), b = d ? strtoul(d + 1, NULL, 10) : a;
		for (unsigned long v = a; v <= b && n < max && v < CPU_SETSIZE; v++)
			out[n++] = (uint32_t)v;
	}
	free(copy);
	return n;
}

/* The list item k (cycling) of "A,B,C" after a "type:" prefix. */
static char *list_item(const char *list, uint32_t k)
{
	uint32_t n = 1;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	k %= n;
	const char *p = list;
	while (k--)
		p = strchr(p, ',') + 1;
	return xstrndup(p, strcspn(p, ","));
}

int cpubind_apply(const char *spec, const char *ids, uint32_t rank, uint32_t local,
		  uint32_t cpt, const char *node, char **msg)
{
	*msg = NULL;
	if (!spec || !*spec)
		return 0;
	int verbose = 0;
	const char *type = NULL, *list = NULL;
	char *copy = xstrdup(spec), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(t, "v") || !strcasecmp(t, "verbose")) {
			verbose = 1;
		} else if (!strcasecmp(t, "q") || !strcasecmp(t, "quiet")) {
			verbose = 0;
		} else if (strchr(t, ':')) {
			type = t;
			list = spec + (strchr(t, ':') - copy) + 1;   /* the rest, commas and all */
			break;
		} else {
			type = t;
		}
	}
	cpu_set_t host, want;
	CPU_ZERO(&want);
	if (!type || !strcasecmp(type, "none") || !strcasecmp(type, "no") ||
	    sched_getaffinity(0, sizeof(host), &host) < 0) {
		free(copy);
		return 0;
	}
	const char *kind = "MASK";
	if (!strncasecmp(type, "map_cpu:", 8) || !strncasecmp(type, "map_ldom:", 9)) {
		char *it = list_item(list, local);
		unsigned long v = strtoul(it, NULL, 0);
		if (v < CPU_SETSIZE)
			CPU_SET(v, &want);
		free(it);
		kind = "MAP";
	} else if (!strncasecmp(type, "mask_cpu:", 9) || !strncasecmp(type, "mask_ldom:", 10)) {
		char *it = list_item(list, local);
		unsigned long long m = strtoull(it, NULL, 16);
		for (int b = 0; b < 64; b++)
			if (m & (1ull << b))
				CPU_SET(b, &want);
		free(it);
	} else {
		uint32_t *v = xcalloc(CPU_SETSIZE, sizeof(uint32_t));
		uint32_t n = parse_ids(ids, v, CPU_SETSIZE);
		if (n) {
			uint32_t per = !strcasecmp(type, "rank") ? 1 : (cpt ? cpt : 1);
			for (uint32_t k = 0; k < per; k++)
				CPU_SET(v[((uint64_t)local * per + k) % n], &want);
		}
		free(v);
	}
	CPU_AND(&want, &want, &host);
	free(copy);
	if (!CPU_COUNT(&want))
		return 0;           /* none of them on this host */
	if (sched_setaffinity(0, sizeof(want), &want) < 0)
		return -1;
	if (verbose) {
		unsigned long long m = 0;
		for (int b = 0; b < 64; b++)
			if (CPU_ISSET(b, &want))
				m |= 1ull << b;
		*msg = xasprintf("cpu-bind=%s - %s, task %2u %2u [%d]: mask 0x%llx set\n", kind,
				 node, rank, local, (int)getpid(), m);
	}
	return 0;
}
