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

/* ---- a session kept open for metrics ---- */

#define NVML_UUID_LEN 96       /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
#define NVML_NVLINK_LINKS 18   /* NVML_NVLINK_MAX_LINKS */
#define NVML_EVENT_XID 0x8ull  /* nvmlEventTypeXidCriticalError */
#define NVML_XID_DRAIN_MAX 256 /* events taken per sample, a bound against a storm */

typedef struct nvml_util { unsigned gpu, memory; } nvml_util_t;
typedef struct nvml_memory { unsigned long long total, free, used; } nvml_memory_t;
typedef struct nvml_event_data {
	nvml_device_t device;
	unsigned long long type, data;
	unsigned gpu_instance, compute_instance;
} nvml_event_data_t;
typedef struct nvml_event_set_st *nvml_event_set_t;

struct nvml_dev {
	nvml_device_t h;
	char name[NVML_NAME_LEN + 1];
	char uuid[NVML_UUID_LEN + 1];
	unsigned minor;
	uint64_t xid_count;
	unsigned xid_last;
};

struct nvml_lib {
	void *h;
	unsigned n;
	struct nvml_dev *dev;
	nvml_event_set_t events;      /* NULL: XID events not available */
	nvml_return_t (*shutdown)(void);
	/* Optional entry points: NULL when the library lacks them. */
	nvml_return_t (*util)(nvml_device_t, nvml_util_t *);
	nvml_return_t (*mem)(nvml_device_t, nvml_memory_t *);
	nvml_return_t (*temp)(nvml_device_t, int, unsigned *);
	nvml_return_t (*power)(nvml_device_t, unsigned *);
	nvml_return_t (*energy)(nvml_device_t, unsigned long long *);
	nvml_return_t (*clock)(nvml_device_t, int, unsigned *);
	nvml_return_t (*ecc)(nvml_device_t, int, int, unsigned long long *);
	nvml_return_t (*throttle)(nvml_device_t, unsigned long long *);
	nvml_return_t (*nvl_state)(nvml_device_t, unsigned, int *);
	nvml_return_t (*nvl_err)(nvml_device_t, unsigned, int, unsigned long long *);
	nvml_return_t (*ev_wait)(nvml_event_set_t, nvml_event_data_t *, unsigned);
	nvml_return_t (*ev_free)(nvml_event_set_t);
	nvml_return_t (*retired_pending)(nvml_device_t, int *);
	nvml_return_t (*remapped)(nvml_device_t, unsigned *, unsigned *, unsigned *, unsigned *);
	nvml_return_t (*persistence)(nvml_device_t, int *);
};

static void *opt_sym(void *h, const char *name)
{
	dlerror();
	return dlsym(h, name);
}

nvml_lib_t *nvml_open(const char *lib, char **err)
{
	*err = NULL;
	if (!lib)
		lib = nvml_lib_path();
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		*err = xasprintf("cannot load %s (%s)", lib, why ? why : "unknown error");
		return NULL;
	}
	const char *missing = NULL;
	nvml_return_t (*init)(void), (*shutdown)(void);
	nvml_return_t (*count_fn)(unsigned *);
	nvml_return_t (*handle_fn)(unsigned, nvml_device_t *);
	*(void **)&init = sym(h, "nvmlInit_v2", &missing);
	*(void **)&shutdown = sym(h, "nvmlShutdown", &missing);
	*(void **)&count_fn = sym(h, "nvmlDeviceGetCount_v2", &missing);
	*(void **)&handle_fn = sym(h, "nvmlDeviceGetHandleByIndex_v2", &missing);
	if (missing) {
		*err = xasprintf("%s has no %s (NVML too old?)", lib, missing);
		dlclose(h);
		return NULL;
	}
	nvml_return_t rc = init();
	if (rc != NVML_OK) {
		*err = xasprintf("nvmlInit failed (NVML error %d; is the NVIDIA driver loaded?)", rc);
		dlclose(h);
		return NULL;
	}
	unsigned n = 0;
	if (count_fn(&n) != NVML_OK)
		n = 0;
	if (n > 1024)
		n = 1024;
	nvml_lib_t *nl = xcalloc(1, sizeof(*nl));
	nl->h = h;
	nl->shutdown = shutdown;
	nvml_return_t (*name_fn)(nvml_device_t, char *, unsigned);
	nvml_return_t (*uuid_fn)(nvml_device_t, char *, unsigned);
	nvml_return_t (*minor_fn)(nvml_device_t, unsigned *);
	*(void **)&name_fn = opt_sym(h, "nvmlDeviceGetName");
	*(void **)&uuid_fn = opt_sym(h, "nvmlDeviceGetUUID");
	*(void **)&minor_fn = opt_sym(h, "nvmlDeviceGetMinorNumber");
	*(void **)&nl->util = opt_sym(h, "nvmlDeviceGetUtilizationRates");
	*(void **)&nl->mem = opt_sym(h, "nvmlDeviceGetMemoryInfo");
	*(void **)&nl->temp = opt_sym(h, "nvmlDeviceGetTemperature");
	*(void **)&nl->power = opt_sym(h, "nvmlDeviceGetPowerUsage");
	*(void **)&nl->energy = opt_sym(h, "nvmlDeviceGetTotalEnergyConsumption");
	*(void **)&nl->clock = opt_sym(h, "nvmlDeviceGetClockInfo");
	*(void **)&nl->ecc = opt_sym(h, "nvmlDeviceGetTotalEccErrors");
	*(void **)&nl->throttle = opt_sym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
	*(void **)&nl->nvl_state = opt_sym(h, "nvmlDeviceGetNvLinkState");
	*(void **)&nl->nvl_err = opt_sym(h, "nvmlDeviceGetNvLinkErrorCounter");
	*(void **)&nl->retired_pending = opt_sym(h, "nvmlDeviceGetRetiredPagesPendingStatus");
	*(void **)&nl->remapped = opt_sym(h, "nvmlDeviceGetRemappedRows");
	*(void **)&nl->persistence = opt_sym(h, "nvmlDeviceGetPersistenceMode");
	nl->dev = n ? xcalloc(n, sizeof(*nl->dev)) : NULL;
	for (unsigned i = 0; i < n; i++) {
		nvml_device_t dev = NULL;
		if (handle_fn(i, &dev) != NVML_OK)
			continue;
		struct nvml_dev *d = &nl->dev[nl->n++];
		d->h = dev;
		if (!name_fn || name_fn(dev, d->name, NVML_NAME_LEN) != NVML_OK)
			d->name[0] = '\0';
		if (!uuid_fn || uuid_fn(dev, d->uuid, NVML_UUID_LEN) != NVML_OK)
			d->uuid[0] = '\0';
		d->name[NVML_NAME_LEN] = d->uuid[NVML_UUID_LEN] = '\0';
		if (!minor_fn || minor_fn(dev, &d->minor) != NVML_OK)
			d->minor = i;
	}
	/* XID events: one set for all devices, polled without waiting. */
	nvml_return_t (*ev_create)(nvml_event_set_t *);
	nvml_return_t (*ev_reg)(nvml_device_t, unsigned long long, nvml_event_set_t);
	*(void **)&ev_create = opt_sym(h, "nvmlEventSetCreate");
	*(void **)&ev_reg = opt_sym(h, "nvmlDeviceRegisterEvents");
	*(void **)&nl->ev_wait = opt_sym(h, "nvmlEventSetWait_v2");
	*(void **)&nl->ev_free = opt_sym(h, "nvmlEventSetFree");
	if (ev_create && ev_reg && nl->ev_wait && nl->ev_free && ev_create(&nl->events) == NVML_OK) {
		int any = 0;
		for (unsigned i = 0; i < nl->n; i++)
			any |= ev_reg(nl->dev[i].h, NVML_EVENT_XID, nl->events) == NVML_OK;
		if (!any) {
			nl->ev_free(nl->events);
			nl->events = NULL;
		}
	}
	return nl;
}

void nvml_close(nvml_lib_t *nl)
{
	if (!nl)
		return;
	if (nl->events)
		nl->ev_free(nl->events);
	nl->shutdown();
	dlclose(nl->h);
	free(nl->dev);
	free(nl);
}

unsigned nvml_count(const nvml_lib_t *nl)
{
	return nl ? nl->n : 0;
}

const char *nvml_dev_name(const nvml_lib_t *nl, unsigned i)
{
	return nl->dev[i].name;
}

const char *nvml_dev_uuid(const nvml_lib_t *nl, unsigned i)
{
	return nl->dev[i].uuid;
}

unsigned nvml_dev_minor(const nvml_lib_t *nl, unsigned i)
{
	return nl->dev[i].minor;
}

/* Take the XID events queued so far (timeout 0: never blocks the loop). */
static void xid_drain(nvml_lib_t *nl)
{
	if (!nl->events)
		return;
	for (int k = 0; k < NVML_XID_DRAIN_MAX; k++) {
		nvml_event_data_t ev;
		memset(&ev, 0, sizeof(ev));
		if (nl->ev_wait(nl->events, &ev, 0) != NVML_OK)
			break;
		if (!(ev.type & NVML_EVENT_XID))
			continue;
		for (unsigned i = 0; i < nl->n; i++) {
			if (nl->dev[i].h == ev.device) {
				nl->dev[i].xid_count++;
				nl->dev[i].xid_last = (unsigned)ev.data;
				break;
			}
		}
	}
}

void nvml_sample(nvml_lib_t *nl, unsigned i, nvml_sample_t *s)
{
	memset(s, 0, sizeof(*s));
	xid_drain(nl);
	struct nvml_dev *d = &nl->dev[i];
	nvml_device_t h = d->h;
	nvml_util_t u;
	if (nl->util && nl->util(h, &u) == NVML_OK) {
		s->util_gpu = u.gpu;
		s->util_mem = u.memory;
		s->have |= NVS_UTIL;
	}
	nvml_memory_t m;
	if (nl->mem && nl->mem(h, &m) == NVML_OK) {
		s->fb_total = m.total;
		s->fb_used = m.used;
		s->fb_free = m.free;
		s->have |= NVS_MEM;
	}
	if (nl->temp && nl->temp(h, 0 /* NVML_TEMPERATURE_GPU */, &s->temp_c) == NVML_OK)
		s->have |= NVS_TEMP;
	if (nl->power && nl->power(h, &s->power_mw) == NVML_OK)
		s->have |= NVS_POWER;
	unsigned long long v1 = 0, v2 = 0;
	if (nl->energy && nl->energy(h, &v1) == NVML_OK) {
		s->energy_mj = v1;
		s->have |= NVS_ENERGY;
	}
	if (nl->clock && nl->clock(h, 1 /* NVML_CLOCK_SM */, &s->sm_clock_mhz) == NVML_OK)
		s->have |= NVS_SM_CLOCK;
	if (nl->clock && nl->clock(h, 2 /* NVML_CLOCK_MEM */, &s->mem_clock_mhz) == NVML_OK)
		s->have |= NVS_MEM_CLOCK;
	/* errorType 0 corrected (SBE), 1 uncorrected (DBE); counter 0
	 * volatile, 1 aggregate. A GPU without ECC fails these. */
	if (nl->ecc && nl->ecc(h, 0, 0, &v1) == NVML_OK && nl->ecc(h, 1, 0, &v2) == NVML_OK) {
		s->sbe_vol = v1;
		s->dbe_vol = v2;
		s->have |= NVS_ECC_VOL;
	}
	if (nl->ecc && nl->ecc(h, 0, 1, &v1) == NVML_OK && nl->ecc(h, 1, 1, &v2) == NVML_OK) {
		s->sbe_agg = v1;
		s->dbe_agg = v2;
		s->have |= NVS_ECC_AGG;
	}
	if (nl->throttle && nl->throttle(h, &v1) == NVML_OK) {
		s->throttle = v1;
		s->have |= NVS_THROTTLE;
	}
	if (nl->nvl_state && nl->nvl_err) {
		int links = 0;
		for (unsigned l = 0; l < NVML_NVLINK_LINKS; l++) {
			int active = 0;
			if (nl->nvl_state(h, l, &active) != NVML_OK)
				break;     /* no such link: the rest are absent too */
			if (!active) {
				s->nvl_down++;
				continue;
			}
			links++;
			/* counters 0 replay, 1 recovery, 2 CRC flit, 3 CRC data */
			if (nl->nvl_err(h, l, 0, &v1) == NVML_OK)
				s->nvl_replay += v1;
			if (nl->nvl_err(h, l, 1, &v1) == NVML_OK)
				s->nvl_recovery += v1;
			if (nl->nvl_err(h, l, 2, &v1) == NVML_OK)
				s->nvl_crc_flit += v1;
			if (nl->nvl_err(h, l, 3, &v1) == NVML_OK)
				s->nvl_crc_data += v1;
		}
		if (links || s->nvl_down)
			s->have |= NVS_NVLINK;
	}
	/* Pages (pre-Ampere) or rows (Ampere on) waiting for a reset to be
	 * retired or remapped; a remap that failed needs the GPU replaced. */
	int en = 0;
	if (nl->retired_pending && nl->retired_pending(h, &en) == NVML_OK) {
		s->retire_pending = en != 0;
		s->have |= NVS_RETIRE;
	}
	unsigned corr = 0, unc = 0, pend = 0, fail = 0;
	if (nl->remapped && nl->remapped(h, &corr, &unc, &pend, &fail) == NVML_OK) {
		s->remap_pending = pend != 0;
		s->remap_failed = fail != 0;
		s->have |= NVS_REMAP;
	}
	if (nl->persistence && nl->persistence(h, &en) == NVML_OK) {
		s->persistence = en != 0;
		s->have |= NVS_PERSIST;
	}
	if (nl->events) {
		s->xid_count = d->xid_count;
		s->xid_last = d->xid_last;
		s->have |= NVS_XID;
	}
}
