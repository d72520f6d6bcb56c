/*
 * fake_nvml: a stand-in for libnvidia-ml.so.1 with the few entry points the
 * node daemon's AutoDetect=nvml uses, so tests can run without a GPU. It
 * reports 2 devices named "NVIDIA H100 80GB HBM3" (FAKE_NVML_COUNT changes
 * how many; FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 fail like a host whose
 * driver is not loaded). Built by the tests with `cc -shared -fPIC`.
 */
#include <stdio.h>
#include <stdlib.h>

struct fake_dev { unsigned index; };
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
