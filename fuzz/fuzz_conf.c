/*
 * fuzz_conf: libFuzzer target for the config reader. The input becomes
 * slurm.conf in a private temp directory (with the same bytes also used as
 * gres.conf, topology.conf and cgroup.conf when the first byte is odd, so
 * those parsers are reached too), is loaded in both modes, rendered with
 * conf_show_lines, and destroyed. Includes in the input can only reach
 * files that exist; the depth limit stops self-inclusion.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

static char dir[64];

static void put(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	if (!fp)
		abort();
	fwrite(data, 1, size, fp);
	fclose(fp);
}

static void rm(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		strcpy(dir, "/tmp/fuzz_conf.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	put("slurm.conf", data, size);
	int extra = size > 0 && (data[0] & 1);
	if (extra) {
		put("gres.conf", data, size);
		put("topology.conf", data, size);
		put("cgroup.conf", data, size);
	}
	char path[128];
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	for (int mode = 0; mode < 2; mode++) {
		conf_t *c = conf_load(path, mode ? CONF_CLIENT : CONF_FULL);
		char **k, **v;
		size_t n = conf_show_lines(c, &k, &v);
		for (size_t i = 0; i < n; i++) {
			free(k[i]);
			free(v[i]);
		}
		free(k);
		free(v);
		for (size_t i = 0; i < c->nnodes; i++)
			(void)conf_node_find(c, c->nodes[i].name);
		conf_destroy(c);
	}
	if (extra) {
		rm("gres.conf");
		rm("topology.conf");
		rm("cgroup.conf");
	}
	return 0;
}
