/*
 * configless: a node daemon started with --conf-server HOST[:PORT] has no
 * slurm.conf of its own (Slurm 20.02+'s configless mode). It asks the
 * controller for the config files (MSG_CONFIG_FILES_REQ, signed like every
 * request: the controller answers root and SlurmUser only, and only with
 * SlurmctldParameters=enable_configless), keeps them in its cache
 * directory (--conf-cache, default /var/spool/slurmd/conf-cache) and reads
 * them from there, at start and again at each reconfigure. A controller
 * that cannot be reached at start leaves the cache as it is: the node
 * starts from it, as slurmd does.
 *
 * Before slurm.conf is known the daemon signs with --authinfo (AuthInfo
 * syntax: key=PATH means auth/slurm with that key, socket=PATH auth/munge
 * on that socket), else with /etc/slurm/slurm.key under auth/slurm when
 * that file exists, else with MUNGE. The key is the node's own file, never
 * served: the served slurm.conf must name the same AuthType, and its
 * AuthInfo is replaced with the one the daemon started with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf_files.h"
#include "errors.h"
#include "net.h"
#include "noded.h"
#include "xalloc.h"

#define DEFAULT_KEY "/etc/slurm/slurm.key"
#define FETCH_TIMEOUT_MS 10000

conf_t *configless_boot_auth(const char *authinfo)
{
	if (authinfo && strstr(authinfo, "key="))
		return conf_bootstrap("auth/slurm", authinfo);
	if (authinfo)
		return conf_bootstrap("auth/munge", authinfo);
	if (access(DEFAULT_KEY, F_OK) == 0)
		return conf_bootstrap("auth/slurm", "key=" DEFAULT_KEY);
	return conf_bootstrap("auth/munge", NULL);
}

int configless_fetch(const noded_t *nd, char **err)
{
	*err = NULL;
	int e = 0;
	rpc_t *r = rpc_connect_addr(nd->auth_conf, nd->conf_server, nd->conf_port, &e);
	if (!r) {
		*err = xasprintf("cannot reach the controller at %s:%u: %s", nd->conf_server,
				 (unsigned)nd->conf_port, slurm_strerror(e));
		return -1;
	}
	msg_empty_t req = { 0 };
	enum msg_type t = MSG_NONE;
	void *reply = NULL;
	int rc = rpc_send(r, MSG_CONFIG_FILES_REQ, &req);
	if (!rc)
		rc = rpc_recv(r, &t, &reply, FETCH_TIMEOUT_MS);
	rpc_close(r);
	if (rc) {
		*err = xasprintf("no config from the controller at %s:%u: %s", nd->conf_server,
				 (unsigned)nd->conf_port, slurm_strerror(rc));
		return -1;
	}
	if (t == MSG_RC) {
		msg_rc_t *m = reply;
		*err = xasprintf("the controller at %s:%u refused the config files: %s",
				 nd->conf_server, (unsigned)nd->conf_port,
				 m->msg ? m->msg : slurm_strerror(m->rc));
		proto_msg_destroy(t, reply);
		return -2;
	}
	if (t != MSG_CONFIG_FILES) {
		*err = xasprintf("unexpected %s from the controller at %s:%u", proto_name(t),
				 nd->conf_server, (unsigned)nd->conf_port);
		proto_msg_destroy(t, reply);
		return -1;
	}
	const msg_config_files_t *m = reply;
	rc = conf_cache_write(nd->conf_cache, m, err);
	if (rc == 0) {
		strbuf_t sb = STRBUF_INIT;
		for (uint32_t i = 0; i < m->names.n; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "", m->names.v[i]);
		info("configless: %s from %s:%u cached in %s", sb.buf, nd->conf_server,
		     (unsigned)nd->conf_port, nd->conf_cache);
		strbuf_release(&sb);
	}
	proto_msg_destroy(t, reply);
	return rc < 0 ? -2 : 0;
}

int configless_auth_fix(const noded_t *nd, conf_t *conf, char **err)
{
	*err = NULL;
	const char *want = nd->auth_conf->auth_type;
	if (!conf->auth_type || strcmp(conf->auth_type, want)) {
		*err = xasprintf("the controller's slurm.conf has AuthType=%s, this node daemon signs "
				 "with %s (--authinfo)", conf->auth_type ? conf->auth_type : "auth/munge",
				 want);
		return -1;
	}
	free(conf->auth_info);
	conf->auth_info = nd->auth_conf->auth_info ? xstrdup(nd->auth_conf->auth_info) : NULL;
	return 0;
}
