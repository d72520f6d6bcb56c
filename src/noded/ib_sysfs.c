/*
 * ib_sysfs: reading InfiniBand/RoCE ports from sysfs (see ib_sysfs.h).
 * A few small files per port; nothing is cached between calls.
 */
#include "ib_sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "xalloc.h"

const char *const ib_error_names[IB_NERRORS] = {
	"symbol_error", "port_rcv_errors", "port_rcv_remote_physical_errors",
	"port_rcv_switch_relay_errors", "link_error_recovery", "link_downed",
	"local_link_integrity_errors", "excessive_buffer_overrun_errors",
	"port_rcv_constraint_errors", "port_xmit_constraint_errors",
};
const char *const ib_drop_names[IB_NDROPS] = { "port_xmit_discards", "VL15_dropped" };

static int64_t read_counter(const char *dir, const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/counters/%s", dir, name);
	char *t = file_read_small(path, 64);
	if (!t)
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 10);
	int bad = end == t || errno;
	free(t);
	return bad ? -1 : (int64_t)(v > INT64_MAX ? INT64_MAX : v);
}

/* "4: ACTIVE" -> 4 */
static int read_state(const char *dir, const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *t = file_read_small(path, 64);
	if (!t)
		return -1;
	int v = isdigit((unsigned char)t[0]) ? atoi(t) : -1;
	free(t);
	return v;
}

/* "100 Gb/sec (4X EDR)" -> bytes per second; "2.5 Gb/sec ..." too. */
double ib_rate_parse(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return -1;
	while (*end == ' ')
		end++;
	double mult = 1e9;
	if (!strncmp(end, "Mb/s", 4))
		mult = 1e6;
	else if (strncmp(end, "Gb/s", 4))
		return -1;
	return v * mult / 8;
}

static void ib_port_read(const char *dir, ib_port_t *p)
{
	p->state = read_state(dir, "state");
	p->phys_state = read_state(dir, "phys_state");
	char path[1024];
	snprintf(path, sizeof(path), "%s/rate", dir);
	char *t = file_read_small(path, 128);
	p->rate_bps = t ? ib_rate_parse(t) : -1;
	free(t);
	snprintf(path, sizeof(path), "%s/link_layer", dir);
	t = file_read_small(path, 64);
	if (t)
		t[strcspn(t, "\n")] = '\0';
	p->link_layer = t ? t : xstrdup("InfiniBand");
	/* port_rcv_data/port_xmit_data count 4-byte words */
	int64_t v = read_counter(dir, "port_rcv_data");
	p->rx_bytes = v < 0 ? -1 : v * 4;
	v = read_counter(dir, "port_xmit_data");
	p->tx_bytes = v < 0 ? -1 : v * 4;
	p->rx_pkts = read_counter(dir, "port_rcv_packets");
	p->tx_pkts = read_counter(dir, "port_xmit_packets");
	p->xmit_wait = read_counter(dir, "port_xmit_wait");
	for (size_t i = 0; i < IB_NERRORS; i++)
		p->errors[i] = read_counter(dir, ib_error_names[i]);
	for (size_t i = 0; i < IB_NDROPS; i++)
		p->drops[i] = read_counter(dir, ib_drop_names[i]);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir (no dot entries); count in *n. */
static char **list_dir(const char *dir, size_t *n)
{
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **v = NULL;
	size_t alloc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

ib_port_t *ib_ports_read(const char *sysfs_root, size_t *np_out)
{
	char *root = xasprintf("%s/class/infiniband", sysfs_root);
	size_t nd = 0;
	char **devs = list_dir(root, &nd);
	ib_port_t *ports = NULL;
	size_t np = 0;
	for (size_t i = 0; i < nd; i++) {
		char *pd = xasprintf("%s/%s/ports", root, devs[i]);
		size_t n = 0;
		char **pn = list_dir(pd, &n);
		ports = xrealloc(ports, (np + n + 1) * sizeof(*ports));
		for (size_t k = 0; k < n; k++) {
			char *dir = xasprintf("%s/%s", pd, pn[k]);
			ib_port_t *p = &ports[np++];
			memset(p, 0, sizeof(*p));
			p->device = xstrdup(devs[i]);
			p->port = xstrdup(pn[k]);
			ib_port_read(dir, p);
			free(dir);
		}
		free_list(pn, n);
		free(pd);
	}
	free_list(devs, nd);
	free(root);
	*np_out = np;
	return ports;
}

void ib_ports_free(ib_port_t *ports, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ports[i].device);
		free(ports[i].port);
		free(ports[i].link_layer);
	}
	free(ports);
}

int ib_error_index(const char *name)
{
	for (int i = 0; i < IB_NERRORS; i++)
		if (!strcmp(ib_error_names[i], name))
			return i;
	return -1;
}
