/*
 * fake_nvml: a stand-in for libnvidia-ml.so.1 with the few entry points the
 * node daemon's AutoDetect=nvml uses, so tests can run without a GPU. It
 * reports 2 devices named "NVIDIA H100 80GB HBM3" (FAKE_NVML_COUNT changes
 * how many; FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 fail like a host whose
 * driver is not loaded). Built by the tests with `cc -shared -fPIC`.
 *
 * For node metrics it also answers the sampling calls: device i has
 * utilization 10*i+5 %, 80 GiB of memory with i GiB used, 40+i degrees,
 * 100+i W, SM clock 1980 MHz, memory clock 2619 MHz, no ECC errors, no
 * throttling, 18 NVLinks without errors, and UUID GPU-00000000-...-i.
 * FAKE_NVML_SET changes readings, read at each call: a comma-separated
 * list of I.FIELD=VALUE with FIELD one of util, mem_used (MiB), temp,
 * power (mW), sbe, dbe (volatile; aggregate is the same), throttle,
 * nvl_crc (CRC flit errors on link 0), xid (one XID event with that code,
 * delivered once per process), nvl_down (that many of the 18 NVLinks
 * inactive), retired_pending, remap_pending, remap_failed (0/1), persist
 * (persistence mode, default 1). FAKE_NVML_SET_FILE names a file holding
 * more of the same (read at each call, after FAKE_NVML_SET), so a test can
 * change a running daemon's GPUs. FAKE_NVML_XID_EVENTS=0 makes the library
 * lack event support, as old drivers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_dev { unsigned index; int xid_sent; };
static struct fake_dev devs[64];
static int inited;

int nvmlInit_v2(void)
{
	const char *f = getenv("FAKE_NVML_INIT_FAIL");
	if (f && *f == '1')
		return 9;       /* NVML_ERROR_DRIVER_NOT_LOADED */
	inited = 1;
	return 0;
}

int nvmlShutdown(void)
{
	inited = 0;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
	const char *c = getenv("FAKE_NVML_COUNT");
	unsigned n = c ? (unsigned)atoi(c) : 2;
	*count = n > 64 ? 64 : n;
	return inited ? 0 : 1;  /* NVML_ERROR_UNINITIALIZED */
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, struct fake_dev **dev)
{
	if (!inited || i >= 64)
		return 2;       /* NVML_ERROR_INVALID_ARGUMENT */
	devs[i].index = i;
	*dev = &devs[i];
	return 0;
}

int nvmlDeviceGetName(struct fake_dev *dev, char *name, unsigned len)
{
	(void)dev;
	snprintf(name, len, "NVIDIA H100 80GB HBM3");
	return 0;
}

int nvmlDeviceGetMinorNumber(struct fake_dev *dev, unsigned *minor)
{
	*minor = dev->index;
	return 0;
}

/* ---- sampling ---- */

/* Value of I.FIELD in list s ("I.F=V,I.F=V" or one a line), or dflt. */
static unsigned long long list_get(const char *s, const char *key, unsigned long long dflt)
{
	size_t kl = strlen(key);
	for (const char *p = s; p && *p; ) {
		if (!strncmp(p, key, kl))
			return strtoull(p + kl, NULL, 10);
		p += strcspn(p, ",\n");
		while (*p == ',' || *p == '\n')
			p++;
	}
	return dflt;
}

/* Value of I.FIELD in FAKE_NVML_SET_FILE's file, else FAKE_NVML_SET, or
 * dflt. */
static unsigned long long fake_get(unsigned idx, const char *field, unsigned long long dflt)
{
	char key[64];
	snprintf(key, sizeof(key), "%u.%s=", idx, field);
	unsigned long long v = list_get(getenv("FAKE_NVML_SET"), key, dflt);
	const char *f = getenv("FAKE_NVML_SET_FILE");
	FILE *fp = f && *f ? fopen(f, "r") : NULL;
	if (fp) {
		char buf[4096];
		size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
		buf[n] = '\0';
		fclose(fp);
		v = list_get(buf, key, v);
	}
	return v;
}

int nvmlDeviceGetUUID(struct fake_dev *dev, char *uuid, unsigned len)
{
	snprintf(uuid, len, "GPU-00000000-0000-0000-0000-%012u", dev->index);
	return 0;
}

struct fake_util { unsigned gpu, memory; };
int nvmlDeviceGetUtilizationRates(struct fake_dev *dev, struct fake_util *u)
{
	unsigned dflt = 10 * dev->index + 5;
	u->gpu = (unsigned)fake_get(dev->index, "util", dflt > 100 ? 100 : dflt);
	u->memory = u->gpu / 2;
	return 0;
}

struct fake_mem { unsigned long long total, free, used; };
int nvmlDeviceGetMemoryInfo(struct fake_dev *dev, struct fake_mem *m)
{
	m->total = 81559ull << 20;
	m->used = fake_get(dev->index, "mem_used", 1024ull * dev->index) << 20;
	m->free = m->total - m->used;
	return 0;
}

int nvmlDeviceGetTemperature(struct fake_dev *dev, int sensor, unsigned *t)
{
	if (sensor != 0)
		return 2;
	*t = (unsigned)fake_get(dev->index, "temp", 40 + dev->index);
	return 0;
}

int nvmlDeviceGetPowerUsage(struct fake_dev *dev, unsigned *mw)
{
	*mw = (unsigned)fake_get(dev->index, "power", 100000 + 1000 * dev->index);
	return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(struct fake_dev *dev, unsigned long long *mj)
{
	*mj = 1000000ull * (dev->index + 1);
	return 0;
}

int nvmlDeviceGetClockInfo(struct fake_dev *dev, int type, unsigned *mhz)
{
	if (type == 1)
		*mhz = 1980;
	else if (type == 2)
		*mhz = 2619;
	else
		return 2;
	return 0;
}

int nvmlDeviceGetTotalEccErrors(struct fake_dev *dev, int err_type, int counter, unsigned long long *n)
{
	(void)counter;
	*n = fake_get(dev->index, err_type ? "dbe" : "sbe", 0);
	return 0;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(struct fake_dev *dev, unsigned long long *r)
{
	*r = fake_get(dev->index, "throttle", 0);
	return 0;
}

int nvmlDeviceGetNvLinkState(struct fake_dev *dev, unsigned link, int *active)
{
	if (link >= 18)
		return 2;
	*active = link >= fake_get(dev->index, "nvl_down", 0);
	return 0;
}

int nvmlDeviceGetRetiredPagesPendingStatus(struct fake_dev *dev, int *pending)
{
	*pending = (int)fake_get(dev->index, "retired_pending", 0);
	return 0;
}

int nvmlDeviceGetRemappedRows(struct fake_dev *dev, unsigned *corr, unsigned *unc,
			      unsigned *pending, unsigned *failed)
{
	*corr = 0;
	*unc = 0;
	*pending = (unsigned)fake_get(dev->index, "remap_pending", 0);
	*failed = (unsigned)fake_get(dev->index, "remap_failed", 0);
	return 0;
}

int nvmlDeviceGetPersistenceMode(struct fake_dev *dev, int *mode)
{
	*mode = (int)fake_get(dev->index, "persist", 1);
	return 0;
}

int nvmlDeviceGetNvLinkErrorCounter(struct fake_dev *dev, unsigned link, int counter, unsigned long long *n)
{
	*n = link == 0 && counter == 2 ? fake_get(dev->index, "nvl_crc", 0) : 0;
	return 0;
}

/* XID events: one set; FAKE_NVML_SET's I.xid=CODE queues one event for
 * device I, delivered once. */
struct fake_set { int unused; };
static struct fake_set the_set;
static unsigned long long registered[64];

int nvmlEventSetCreate(struct fake_set **set)
{
	const char *e = getenv("FAKE_NVML_XID_EVENTS");
	if (e && *e == '0')
		return 3;       /* NVML_ERROR_NOT_SUPPORTED */
	*set = &the_set;
	return 0;
}

int nvmlDeviceRegisterEvents(struct fake_dev *dev, unsigned long long types, struct fake_set *set)
{
	registered[dev->index] |= types;
	return 0;
}

struct fake_event {
	struct fake_dev *device;
	unsigned long long type, data;
	unsigned gi, ci;
};
int nvmlEventSetWait_v2(struct fake_set *set, struct fake_event *ev, unsigned timeout_ms)
{
	unsigned n = 2;
	nvmlDeviceGetCount_v2(&n);
	for (unsigned i = 0; i < n; i++) {
		unsigned long long code = fake_get(i, "xid", 0);
		if (code && !devs[i].xid_sent && (registered[i] & 0x8)) {
			devs[i].index = i;
			devs[i].xid_sent = 1;
			ev->device = &devs[i];
			ev->type = 0x8;
			ev->data = code;
			return 0;
		}
	}
	return 10;              /* NVML_ERROR_TIMEOUT */
}

int nvmlEventSetFree(struct fake_set *set)
{
	return 0;
}
