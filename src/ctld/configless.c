/*
 * configless.c: the controller's side of configless operation (Slurm
 * 20.02+): with SlurmctldParameters=enable_configless it answers a node
 * daemon's MSG_CONFIG_FILES_REQ with the files of its config directory
 * that a node reads (conf_files.h: a fixed list, never the key).
 *
 * Only root and SlurmUser get them (the node daemons run as one of them):
 * the request is authenticated by the listener like every other one
 * (signed with the cluster key or MUNGE), and a user's request is refused.
 * Slurm also serves login nodes' commands; Sluice's commands read a local
 * slurm.conf.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"

#include "auth.h"
#include "conf_files.h"
#include "errors.h"
#include "log.h"
#include "xalloc.h"

int configless_enabled(const conf_t *conf)
{
	const char *p = conf_get(conf, "SlurmctldParameters");
	for (const char *s = p; s && *s;) {
		size_t len = strcspn(s, ",");
		if (len == strlen("enable_configless") && !strncasecmp(s, "enable_configless", len))
			return 1;
		s += len + (s[len] ? 1 : 0);
	}
	return 0;
}

void configless_answer(ctld_t *cd, conn_t *c, uint32_t uid)
{
	if (!configless_enabled(cd->conf)) {
		conn_send_rc(c, ESLURM_NOT_SUPPORTED,
			     "configless operation is not enabled (SlurmctldParameters=enable_configless)");
		return;
	}
	if (uid != 0 && uid != cd->slurm_uid) {
		info("config files request from uid %u refused (root or SlurmUser only)", uid);
		conn_send_rc(c, ESLURM_ACCESS_DENIED, "config files are served to root and SlurmUser only");
		return;
	}
	const char *path = cd->conf_path ? cd->conf_path : cd->conf->path;
	char *key = auth_key_path(cd->conf);
	msg_config_files_t m;
	char *err = NULL;
	if (conf_files_read(path, key, &m, &err) < 0) {
		error("config files request: %s", err);
		conn_send_rc(c, SLURM_ERROR, err);
	} else {
		debug("config files: %u served beside %s", m.names.n, path);
		conn_send(c, MSG_CONFIG_FILES, &m);
		proto_free(MSG_CONFIG_FILES, &m);
	}
	free(err);
	free(key);
}
