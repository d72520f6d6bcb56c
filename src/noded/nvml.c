/*
 * nvml: GPU discovery through libnvidia-ml for gres.conf AutoDetect=nvml
 * (see nvml.h). Only the handful of NVML entry points needed are declared
 * here, with the ABI NVML documents: nvmlReturn_t is an int (0 = success),
 * nvmlDevice_t an opaque pointer.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "nvml.h"
#include "xalloc.h"

typedef int nvml_return_t;
typedef struct nvml_device_st *nvml_device_t;

#define NVML_OK 0
#define NVML_NAME_LEN 96     /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */

const char *nvml_lib_path(void)
{
	const char *p = getenv("SLUICE_NVML_LIB");
	return p && *p ? p : "libnvidia-ml.so.1";
}

char *nvml_type_name(const char *device_name)
{
	char *s = xstrdup(device_name ? device_name : "");
	for (char *p = s; *p; p++)
		*p = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
	return s;
}

void nvml_gpus_free(nvml_gpu_t *gpus, size_t n)
{
	for (size_t i = 0; gpus && i < n; i++)
		free(gpus[i].type);
	free(gpus);
}

/* dlsym into a function pointer without the object/function pointer cast
 * warning. */
static void *sym(void *h, const char *name, const char **missing)
{
	void *p = dlsym(h, name);
	if (!p && !*missing)
		*missing = name;
	return p;
}

int nvml_detect(const char *lib, nvml_gpu_t **gpus, char **err)
{
	*gpus = NULL;
	*err = NULL;
	if (!lib)
		lib = nvml_lib_path();
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		*err = xasprintf("gres.conf AutoDetect=nvml: cannot load %s (%s); install the NVIDIA "
				 "driver's NVML library or set AutoDetect=off", lib, why ? why : "unknown error");
		return -1;
	}
	const char *missing = NULL;
	nvml_return_t (*init)(void), (*shutdown)(void);
	nvml_return_t (*count_fn)(unsigned *);
	nvml_return_t (*handle_fn)(unsigned, nvml_device_t *);
	nvml_return_t (*name_fn)(nvml_device_t, char *, unsigned);
	nvml_return_t (*minor_fn)(nvml_device_t, unsigned *);
	*(void **)&init = sym(h, "nvmlInit_v2", &missing);
	*(void **)&shutdown = sym(h, "nvmlShutdown", &missing);
	*(void **)&count_fn = sym(h, "nvmlDeviceGetCount_v2", &missing);
	*(void **)&handle_fn = sym(h, "nvmlDeviceGetHandleByIndex_v2", &missing);
	*(void **)&name_fn = sym(h, "nvmlDeviceGetName", &missing);
	*(void **)&minor_fn = sym(h, "nvmlDeviceGetMinorNumber", &missing);
	if (missing) {
		*err = xasprintf("gres.conf AutoDetect=nvml: %s has no %s (NVML too old?); install the "
				 "NVIDIA driver's NVML library or set AutoDetect=off", lib, missing);
		dlclose(h);
		return -1;
	}
	nvml_return_t rc = init();
	if (rc != NVML_OK) {
		*err = xasprintf("gres.conf AutoDetect=nvml: nvmlInit failed (NVML error %d; is the NVIDIA "
				 "driver loaded?); fix the driver or set AutoDetect=off", rc);
		dlclose(h);
		return -1;
	}
	unsigned n = 0;
	rc = count_fn(&n);
	if (rc != NVML_OK) {
		*err = xasprintf("gres.conf AutoDetect=nvml: nvmlDeviceGetCount failed (NVML error %d); "
				 "fix the NVIDIA driver or set AutoDetect=off", rc);
		shutdown();
		dlclose(h);
		return -1;
	}
	if (n > 1024)          /* a sane bound against a broken library */
		n = 1024;
	nvml_gpu_t *g = n ? xcalloc(n, sizeof(*g)) : NULL;
	size_t found = 0;
	for (unsigned i = 0; i < n; i++) {
		nvml_device_t dev = NULL;
		if (handle_fn(i, &dev) != NVML_OK)
			continue;      /* slurmd skips a device it cannot open too */
		char name[NVML_NAME_LEN + 1] = "";
		if (name_fn(dev, name, NVML_NAME_LEN) != NVML_OK)
			name[0] = '\0';
		name[NVML_NAME_LEN] = '\0';
		unsigned minor = i;
		if (minor_fn(dev, &minor) != NVML_OK)
			minor = i;
		g[found].type = nvml_type_name(name);
		g[found].minor = minor;
		found++;
	}
	shutdown();
	dlclose(h);
	*gpus = g;
	return (int)found;
}
