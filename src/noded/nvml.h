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

#endif
