/*
 * check_config: `sluice check-config [DIR|FILE]` reads a Slurm config
 * directory the way the daemons will (slurm.conf with its Includes,
 * gres.conf, topology.conf, cgroup.conf, health.conf) and reports every problem at once
 * as "file:line: message" on stderr, so an admin can fix a config before
 * `scontrol reconfigure` rather than after. On success it prints a summary
 * and the keys that are accepted but that Sluice does not act on yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmds.h"
#include "conf.h"
#include "health_conf.h"
#include "xalloc.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sluice check-config [DIR|FILE]\n"
		"  Validate slurm.conf (and gres.conf, topology.conf, cgroup.conf, health.conf next to it).\n"
		"  Default: the directory of $SLURM_CONF, else /etc/slurm.\n");
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

int cmd_check_config(int argc, char **argv)
{
	const char *arg = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "sluice check-config: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 1;
		}
		if (arg) {
			fprintf(stderr, "sluice check-config: too many arguments\n");
			usage(stderr);
			return 1;
		}
		arg = argv[i];
	}
	char *path;
	struct stat st;
	if (!arg) {
		/* The directory of $SLURM_CONF: the other files live there. */
		const char *def = conf_default_path();
		const char *slash = strrchr(def, '/');
		if (slash)
			path = xasprintf("%.*s/slurm.conf", (int)(slash - def), def);
		else
			path = xstrdup("slurm.conf");
	} else if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		size_t l = strlen(arg);
		path = xasprintf("%s%sslurm.conf", arg, l && arg[l - 1] == '/' ? "" : "/");
	} else {
		path = xstrdup(arg);
	}
	conf_t *conf = conf_load(path, CONF_FULL);
	int rc = 0;
	/* health.conf beside it (the built-in health checks), when there */
	char *hpath = health_conf_path(conf);
	int hmissing = 0;
	health_conf_t *hc = health_conf_load(hpath, &hmissing);
	for (size_t i = 0; i < hc->nerrors; i++)
		fprintf(stderr, "%s\n", hc->errors[i]);
	if (hc->nerrors)
		rc = 1;
	if (conf->nerrors) {
		for (size_t i = 0; i < conf->nerrors; i++)
			fprintf(stderr, "%s\n", conf->errors[i]);
		rc = 1;
	} else if (!rc) {
		printf("%s: %zu %s, %zu %s, %zu %s: OK\n", conf->path,
		       conf->nnodes, plural(conf->nnodes, "node", "nodes"),
		       conf->nparts, plural(conf->nparts, "partition", "partitions"),
		       conf->nswitches, plural(conf->nswitches, "switch", "switches"));
		for (size_t i = 0; i < conf->nunsupported; i++)
			printf("note: '%s' is accepted but not supported yet\n", conf->unsupported[i]);
		if (!hmissing)
			printf("%s: %zu %s%s: OK\n", hpath, hc->n, plural(hc->n, "check", "checks"),
			       hc->gate ? ", gating each job" : "");
	}
	health_conf_free(hc);
	free(hpath);
	conf_destroy(conf);
	free(path);
	return rc;
}
