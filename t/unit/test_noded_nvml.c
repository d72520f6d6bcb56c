/* Unit tests for gres.conf AutoDetect=nvml in the node daemon
 * (src/noded/nvml.c, gres_string_detected in resources.c): Slurm's GPU
 * type naming, loading a fake NVML library (t/unit/fake_nvml.c, built here
 * with cc) through SLUICE_NVML_LIB, and a missing library. */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noded/noded.h"
#include "noded/nvml.h"
#include "xalloc.h"

static void check_type(const char *name, const char *want)
{
	char *got = nvml_type_name(name);
	is_str(got, want, "type of '%s'", name);
	free(got);
}

/* Build the fake library next to a temp dir; NULL when no compiler. */
static char *build_fake(char *dir)
{
	char src[4096];
	snprintf(src, sizeof(src), "%s", __FILE__);
	char *slash = strrchr(src, '/');
	snprintf(slash ? slash + 1 : src, sizeof(src) - (size_t)(slash ? slash + 1 - src : 0), "fake_nvml.c");
	char *lib = xasprintf("%s/libfake-nvml.so", dir);
	char *cmd = xasprintf("cc -shared -fPIC -o '%s' '%s'", lib, src);
	int rc = system(cmd);
	free(cmd);
	if (rc != 0) {
		free(lib);
		return NULL;
	}
	return lib;
}

int main(void)
{
	check_type("NVIDIA H100 80GB HBM3", "nvidia_h100_80gb_hbm3");
	check_type("NVIDIA H200", "nvidia_h200");
	check_type("Tesla V100-PCIE-16GB", "tesla_v100-pcie-16gb");
	check_type("", "");

	/* Name grouping: configured Type=h100 is a substring of the detected
	 * type, so it is kept (as slurmd does); other GRES pass through. */
	conf_gres_t cg[2] = {
		{ .name = "gpu", .type = "h100", .count = 8 },
		{ .name = "nic", .type = NULL, .count = 2 },
	};
	conf_node_t n = { .gres = cg, .ngres = 2 };
	nvml_gpu_t found[3] = {
		{ .type = "nvidia_h100_80gb_hbm3" }, { .type = "nvidia_h100_80gb_hbm3" },
		{ .type = "nvidia_a100-sxm4-80gb" },
	};
	char *s = gres_string_detected(&n, found, 3);
	is_str(s, "gpu:h100:2,gpu:nvidia_a100-sxm4-80gb:1,nic:2", "detected gres string");
	free(s);
	s = gres_string_detected(&n, found, 0);
	is_str(s, "nic:2", "no GPUs found");
	free(s);
	conf_node_t bare = { 0 };
	s = gres_string_detected(&bare, found, 1);
	is_str(s, "gpu:nvidia_h100_80gb_hbm3:1", "no configured type: NVML's name");
	free(s);

	/* Missing library: an error naming it and the fix. */
	nvml_gpu_t *g = NULL;
	char *err = NULL;
	setenv("SLUICE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	is_str(nvml_lib_path(), "/nonexistent/libnvidia-ml.so.1", "SLUICE_NVML_LIB overrides the path");
	is_int(nvml_detect(NULL, &g, &err), -1, "missing library fails");
	ok(err && strstr(err, "gres.conf AutoDetect=nvml: cannot load /nonexistent/libnvidia-ml.so.1 (")
	   && strstr(err, "install the NVIDIA driver's NVML library or set AutoDetect=off"), "error: %s", err);
	ok(g == NULL, "no GPUs on failure");
	free(err);
	unsetenv("SLUICE_NVML_LIB");
	is_str(nvml_lib_path(), "libnvidia-ml.so.1", "default path");

	char dir[] = "/tmp/sluice-nvml.XXXXXX";
	char *lib = mkdtemp(dir) ? build_fake(dir) : NULL;
	if (!lib) {
		ok(1, "# SKIP no C compiler to build the fake NVML library");
	} else {
		setenv("SLUICE_NVML_LIB", lib, 1);
		int ng = nvml_detect(NULL, &g, &err);
		is_int(ng, 2, "fake NVML: 2 GPUs");
		ok(err == NULL, "no error");
		if (ng == 2) {
			is_str(g[0].type, "nvidia_h100_80gb_hbm3", "GPU 0 type");
			is_int(g[1].minor, 1, "GPU 1 minor");
		}
		nvml_gpus_free(g, ng > 0 ? (size_t)ng : 0);
		setenv("FAKE_NVML_INIT_FAIL", "1", 1);
		is_int(nvml_detect(lib, &g, &err), -1, "nvmlInit failure");
		ok(err && strstr(err, "nvmlInit failed") && strstr(err, "AutoDetect=off"), "error: %s", err);
		free(err);
		unsetenv("FAKE_NVML_INIT_FAIL");
		unlink(lib);
		rmdir(dir);
		free(lib);
	}
	return done_testing();
}
