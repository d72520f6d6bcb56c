/*
 * nvml: gres.conf AutoDetect=nvml. The node daemon asks NVIDIA's management
 * library which GPUs the host has, so the registration reports what is
 * really there and the controller drains a node with fewer GPUs than
 * configured, as slurmd + slurmctld do. The library is loaded with dlopen
 * at run time (no NVIDIA headers or link-time dependency): a host without
 * the driver still runs the daemon, which then reports the configured GRES.
 */
#ifndef SLUICE_NODED_NVML_H
#define SLUICE_NODED_NVML_H

#include <stddef.h>
#include <stdint.h>

/* One GPU found. */
typedef struct nvml_gpu {
	char *type;          /* Slurm's type name, e.g. "nvidia_h100_80gb_hbm3" */
	unsigned minor;      /* /dev/nvidiaN */
} nvml_gpu_t;

/* Library path: $SLUICE_NVML_LIB (for tests), else "libnvidia-ml.so.1". */
const char *nvml_lib_path(void);

/* Slurm's GPU type name for an NVML device name: spaces become '_' and
 * letters are lowercased ("NVIDIA H100 80GB HBM3" ->
 * "nvidia_h100_80gb_hbm3"). malloc'd. */
char *nvml_type_name(const char *device_name);

/* Load lib (NULL: nvml_lib_path()), list its GPUs and unload it. Returns the
 * number found (>= 0) with *gpus a malloc'd array (free with
 * nvml_gpus_free), or -1 with *err a malloc'd message naming the problem
 * and the fix. */
int nvml_detect(const char *lib, nvml_gpu_t **gpus, char **err);
void nvml_gpus_free(nvml_gpu_t *gpus, size_t n);

/* ---- metrics (metrics.c): an NVML session kept open for the daemon's life ---- */

typedef struct nvml_lib nvml_lib_t;

/* Which fields of a sample NVML answered (a field whose call failed or
 * whose entry point the library lacks is left out of the metrics). */
enum {
	NVS_UTIL = 1u << 0, NVS_MEM = 1u << 1, NVS_TEMP = 1u << 2, NVS_POWER = 1u << 3,
	NVS_ENERGY = 1u << 4, NVS_SM_CLOCK = 1u << 5, NVS_MEM_CLOCK = 1u << 6,
	NVS_ECC_VOL = 1u << 7, NVS_ECC_AGG = 1u << 8, NVS_THROTTLE = 1u << 9,
	NVS_NVLINK = 1u << 10, NVS_XID = 1u << 11, NVS_RETIRE = 1u << 12, NVS_REMAP = 1u << 13,
	NVS_PERSIST = 1u << 14,
};

/* One GPU's readings at one scrape. */
typedef struct nvml_sample {
	unsigned have;             /* NVS_* */
	unsigned util_gpu, util_mem;         /* percent */
	uint64_t fb_total, fb_used, fb_free; /* bytes */
	unsigned temp_c;
	unsigned power_mw;
	uint64_t energy_mj;                  /* since the driver loaded */
	unsigned sm_clock_mhz, mem_clock_mhz;
	uint64_t sbe_vol, dbe_vol, sbe_agg, dbe_agg;
	uint64_t throttle;                   /* nvmlClocksThrottleReason bitmask */
	uint64_t nvl_crc_flit, nvl_crc_data, nvl_replay, nvl_recovery; /* all links */
	uint64_t xid_count;                  /* XID events seen since the session opened */
	unsigned xid_last;                   /* code of the last one, 0 = none */
	unsigned nvl_down;                   /* links present but not active */
	int retire_pending;                  /* pages waiting to be retired */
	int remap_pending, remap_failed;     /* row remapping (Ampere on) */
	int persistence;                     /* persistence mode on */
} nvml_sample_t;

/* Load lib (NULL: nvml_lib_path()) and initialize NVML for sampling; the
 * devices are listed once here. NULL with *err (malloc'd) when the library
 * is missing or does not initialize. */
nvml_lib_t *nvml_open(const char *lib, char **err);
/* Shut NVML down and unload it; NULL is fine. */
void nvml_close(nvml_lib_t *nl);
/* Devices found at open. */
unsigned nvml_count(const nvml_lib_t *nl);
/* Static facts of device i (index order of NVML): name, "GPU-..." UUID,
 * minor number (/dev/nvidiaN). Strings live as long as nl. */
const char *nvml_dev_name(const nvml_lib_t *nl, unsigned i);
const char *nvml_dev_uuid(const nvml_lib_t *nl, unsigned i);
unsigned nvml_dev_minor(const nvml_lib_t *nl, unsigned i);
/* Read device i now. Also takes the XID events NVML queued since the last
 * call (without waiting), so counts stay right whichever GPU is read first. */
void nvml_sample(nvml_lib_t *nl, unsigned i, nvml_sample_t *s);

#endif
