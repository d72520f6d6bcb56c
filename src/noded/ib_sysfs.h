/*
 * ib_sysfs: the InfiniBand/RoCE ports as sysfs shows them
 * (<root>/class/infiniband/DEV/ports/N/{state,phys_state,rate,link_layer,
 * counters/...}). One reader for the node's /metrics (metrics.c) and its
 * health checks (health.c).
 */
#ifndef SLUICE_NODED_IB_SYSFS_H
#define SLUICE_NODED_IB_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* The error counters of a port (counters/NAME) and the drop counters, in
 * the order of ib_port_t.errors/.drops. */
#define IB_NERRORS 10
#define IB_NDROPS 2
extern const char *const ib_error_names[IB_NERRORS];
extern const char *const ib_drop_names[IB_NDROPS];

/* sysfs state / phys_state values the checks look for */
#define IB_STATE_ACTIVE 4
#define IB_PHYS_LINKUP 5

typedef struct ib_port {
	char *device, *port, *link_layer;
	int state, phys_state;     /* -1: unreadable */
	double rate_bps;           /* bytes per second, <0 unknown */
	int64_t rx_bytes, tx_bytes, rx_pkts, tx_pkts, xmit_wait; /* -1: absent */
	int64_t errors[IB_NERRORS];
	int64_t drops[IB_NDROPS];
} ib_port_t;

/* Every port under sysfs_root/class/infiniband, devices and ports in name
 * order; *n their number (0, and maybe NULL, when there is none). Free
 * with ib_ports_free. */
ib_port_t *ib_ports_read(const char *sysfs_root, size_t *n);
void ib_ports_free(ib_port_t *ports, size_t n);

/* "100 Gb/sec (4X EDR)" -> 12.5e9 bytes per second; -1 if not a rate. */
double ib_rate_parse(const char *s);

/* Index of error counter name in ib_error_names, or -1. */
int ib_error_index(const char *name);

#endif
