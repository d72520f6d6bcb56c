/*
 * health_conf: health.conf, the built-in node health checks (beside
 * slurm.conf). The node daemon runs them (src/noded/health.c); the
 * controller reads the same file for the auth key's path; `sluice
 * check-config` validates it. Syntax (docs/node-operations.md):
 *
 *   # comment
 *   CHECK [key=value ...]
 *
 * one check per line, CHECK one of gpu, ib, fs, memory, clock, procs,
 * authkey, gate, nccl (the NCCL transport check's settings: the batch
 * supervisor applies them, noded/nccl_watch.c). Errors are "FILE:LINE: message", all collected.
 */
#ifndef SLUICE_HEALTH_CONF_H
#define SLUICE_HEALTH_CONF_H

#include <stddef.h>
#include <stdint.h>

struct conf;

enum hc_kind {
	HC_GPU, HC_IB, HC_FS, HC_MEMORY, HC_CLOCK, HC_PROCS, HC_AUTHKEY, HC_NCCL, HC_KINDS
};

/* Check names as written in health.conf and in the node's report
 * ("gpu", "ib", ...). */
const char *hc_kind_name(enum hc_kind k);

/* Throttle reasons (NVML's nvmlClocksThrottleReason bits) by group. */
#define HC_THROTTLE_POWER   0x0000000000000004ull  /* SW power cap */
#define HC_THROTTLE_THERMAL 0x00000000000000e8ull  /* HW slowdown, SW/HW thermal, power brake */

typedef struct hc_check {
	enum hc_kind kind;
	int line;
	/* gpu */
	long gpu_count;            /* -1: the node's gres.conf/slurm.conf count */
	char *gpu_type;            /* NULL: the configured type, if any */
	long ecc_volatile;         /* most uncorrectable (volatile) allowed; -1 off */
	long ecc_aggregate;        /* same, aggregate (lifetime); -1 off */
	int retired_pending;       /* fail on pages/rows pending retirement or remap */
	uint32_t *xids;            /* XID codes that fail (nxids 0 + xid_all: any) */
	size_t nxids;
	int xid_all;
	long max_temp;             /* degrees C; -1 off */
	uint64_t throttle;         /* HC_THROTTLE_* that fail */
	long nvlink_down;          /* most links down allowed; -1 off */
	int persistence;           /* 1 must be on, 0 not checked */
	/* ib */
	char *device;              /* NULL: every device */
	long port;                 /* -1: every port */
	double rate_gbps;          /* expected rate; 0 not checked */
	long error_growth;         /* most growth of the error counters
	                            * between rounds; -1 off */
	/* fs */
	char *path;
	uint64_t min_free;         /* bytes (fs, memory); 0 off */
	int writable, mounted;
	/* clock */
	double max_offset;         /* seconds */
	/* procs: nothing to set */
	/* authkey */
	char *key_path;            /* NULL: by AuthType (health_key_path) */
	int key_drain;             /* a mismatch drains (default 1) */
	/* nccl (defaults apply without the line) */
	int nccl_log, nccl_counters;   /* read the job's output / the fabric
	                                * counters (default yes / yes) */
	long nccl_interval;        /* seconds between looks (default 10) */
	long nccl_window;          /* seconds of still counters (default 300) */
	int64_t nccl_min_rate;     /* bytes/s below which ports are still (1M) */
} hc_check_t;

typedef struct health_conf {
	char *path;
	hc_check_t *checks;
	size_t n;
	unsigned gate;             /* (1 << hc_kind) run before each job */
	char **errors;             /* "FILE:LINE: message" */
	size_t nerrors;
} health_conf_t;

/* The file beside slurm.conf: $SLUICE_HEALTH_CONF, else DIR/health.conf
 * with DIR the directory of conf->path. malloc'd. */
char *health_conf_path(const struct conf *conf);

/* Parse path. A missing file gives an empty config (no checks; *missing
 * set to 1 when missing is not NULL). Never NULL; errors are in ->errors. */
health_conf_t *health_conf_load(const char *path, int *missing);
/* Parse text as if read from file name (tests). */
health_conf_t *health_conf_parse(const char *text, const char *name);
void health_conf_free(health_conf_t *hc);
/* The first check of kind k, or NULL. */
const hc_check_t *health_conf_find(const health_conf_t *hc, enum hc_kind k);

/* The auth key file whose digest nodes compare: authkey path=, else for
 * auth/slurm AuthInfo's key= or DIR/slurm.key, else /etc/munge/munge.key.
 * malloc'd. hc may be NULL. */
char *health_key_path(const struct conf *conf, const health_conf_t *hc);
/* SHA-256 of the file as 64 hex digits into out (65 bytes), or
 * "unreadable" when it cannot be read. Returns 0, or -1 when unreadable. */
int health_key_digest(const char *path, char out[65]);

/* The nccl check's settings: health.conf's line, else the defaults
 * (hc may be NULL). */
void health_nccl_settings(const health_conf_t *hc, hc_check_t *out);

/* "10G", "512M", "100k", "4096" (bytes) -> bytes; -1 if malformed. */
int64_t health_parse_size(const char *s);

#endif
