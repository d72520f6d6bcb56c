/*
 * metrics: the node daemon's /metrics (see metrics.c for the families).
 * The collector reads the hardware at each render, from the daemon's loop.
 */
#ifndef SLUICE_NODED_METRICS_H
#define SLUICE_NODED_METRICS_H

#include <stdint.h>

#include "ib_sysfs.h"
#include "strbuf.h"

struct noded;
struct strv;

typedef struct node_metrics node_metrics_t;

/* Where the collector looks; NULL fields take the defaults (tests point
 * them at fake trees): sysfs $SLUICE_SYSFS_ROOT or "/sys" (InfiniBand under
 * class/infiniband), proc "/proc", cgroup $SLUICE_CGROUP_ROOT or
 * "/sys/fs/cgroup", nvml_lib nvml_lib_path() ($SLUICE_NVML_LIB),
 * dcgm_map_dir the config's SlurmdMetricsDcgmMapDir. */
typedef struct metrics_paths {
	const char *sysfs, *proc, *cgroup, *nvml_lib, *dcgm_map_dir;
} metrics_paths_t;

/* Serve /metrics (and /livez, /readyz, /healthz) on the node's
 * SlurmdMetricsPort (MetricsTokenFile and MetricsAllowFrom apply as for
 * the controller); nothing when neither it nor SlurmdMetricsDcgmMapDir is
 * set. Sets nd->metrics. 0, or -1 with *err (malloc'd: port in use, bad
 * token file or allow-list). Called before the daemon forks, so these
 * errors reach the starting shell. */
int metrics_start(struct noded *nd, char **err);
/* After the fork: open NVML (never across a fork) and look for
 * InfiniBand; start keeping the dcgm mapping files current. */
void metrics_start_hw(struct noded *nd);

/* Open NVML and look for InfiniBand devices once; what is missing is said
 * in one log line each. nd may be NULL (benchmarks: no jobs, no node
 * state). paths may be NULL. Never fails. */
node_metrics_t *metrics_create(struct noded *nd, const metrics_paths_t *paths);
void metrics_destroy(node_metrics_t *m);     /* accepts NULL */
/* Append the whole exposition (Prometheus text format 0.0.4) to out. */
void metrics_render(node_metrics_t *m, strbuf_t *out);
/* With a dcgm mapping dir: write one file per GPU index holding the ids of
 * the jobs on it (dcgm-exporter's --hpc-job-mapping-dir format). 0, or -1
 * when a file could not be written (logged). */
int metrics_dcgm_map_write(node_metrics_t *m);

/* Record what metrics need of a job launched here in dir/meta: user,
 * account, GPU indexes on this node, node count (from the environment of
 * its batch script, or of an srun step when step is set). 0 or -1 with
 * errno. */
int metrics_job_meta_write(const char *dir, const struct strv *env, uint32_t uid, int step);

#endif
