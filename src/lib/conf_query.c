/*
 * conf_query.c: questions asked of a loaded config (conf.c loads it): a
 * node or partition by name, paths derived from it (%n/%h templates, the
 * controller's run directory and socket), a node's metrics port, lease and
 * GPU count.
 */
#include <ctype.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_int.h"
#include "xalloc.h"

long conf_node_find(const conf_t *conf, const char *name)
{
	if (!conf || !name)
		return -1;
	return strmap_get(&((const struct conf_priv *)conf)->node_map, name);
}

long conf_part_find(const conf_t *conf, const char *name)
{
	if (!conf || !name)
		return -1;
	return strmap_get(&((const struct conf_priv *)conf)->part_map, name);
}

char *conf_expand_path(const char *tmpl, const char *node, const char *host)
{
	strbuf_t sb = STRBUF_INIT;
	if (!tmpl)
		return NULL;
	for (const char *s = tmpl; *s; s++) {
		if (*s == '%' && s[1] == 'n') {
			strbuf_addstr(&sb, node ? node : "");
			s++;
		} else if (*s == '%' && s[1] == 'h') {
			strbuf_addstr(&sb, host ? host : (node ? node : ""));
			s++;
		} else if (*s == '%' && s[1] == '%') {
			strbuf_addch(&sb, '%');
			s++;
		} else {
			strbuf_addch(&sb, *s);
		}
	}
	return strbuf_detach(&sb);
}

char *conf_ctld_run_dir(const conf_t *conf)
{
	const char *pid = conf && conf->slurmctld_pid_file && *conf->slurmctld_pid_file
		? conf->slurmctld_pid_file : "/var/run/slurmctld.pid";
	const char *slash = strrchr(pid, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == pid)
		return xstrdup("/");
	return xstrndup(pid, (size_t)(slash - pid));
}

char *conf_ctld_socket(const conf_t *conf)
{
	char *dir = conf_ctld_run_dir(conf);
	char *path = xasprintf("%s/sluice-ctld.sock", dir);
	free(dir);
	return path;
}

/* SlurmdMetricsPort: "N" (every node daemon on port N) or "+N" (each on
 * its node's Port plus N, for several virtual nodes on one host). Returns
 * the port or offset with *offset set, or -1 when malformed. */
long conf_metrics_port_parse(const char *v, int *offset)
{
	int off = *v == '+';
	const char *s = v + off;
	char *end;
	if (!isdigit((unsigned char)*s))
		return -1;
	long n = strtol(s, &end, 10);
	if (*end || n < (off ? 0 : 1) || n > 65535)
		return -1;
	if (offset)
		*offset = off;
	return n;
}

uint16_t conf_node_metrics_port(const conf_t *conf, const conf_node_t *n)
{
	const char *v = conf_get(conf, "SlurmdMetricsPort");
	int off = 0;
	long p = v ? conf_metrics_port_parse(v, &off) : -1;
	if (p < 0)
		return 0;
	if (off) {
		long port = (long)(n && n->port ? n->port : conf->slurmd_port) + p;
		return port > 65535 ? 0 : (uint16_t)port;
	}
	return (uint16_t)p;
}

uint32_t conf_node_lease(const conf_t *conf)
{
	uint32_t t = conf->slurmd_timeout;
	return t > UINT32_MAX / 2 ? UINT32_MAX : 2 * t;
}

uint32_t conf_node_gpus(const conf_node_t *n)
{
	uint32_t total = 0;
	for (size_t i = 0; n && i < n->ngres; i++)
		if (!strcmp(n->gres[i].name, "gpu"))
			total += n->gres[i].count;
	return total;
}

int conf_prolog_flag(const conf_t *conf, const char *flag)
{
	const char *v = conf_get(conf, "PrologFlags");
	size_t n = strlen(flag);
	for (const char *p = v; p && *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && !strncasecmp(p, flag, n))
			return 1;
		p += len + (c ? 1 : 0);
	}
	return 0;
}

int conf_prolog_contain(const conf_t *conf)
{
	return conf_prolog_flag(conf, "Contain") || conf_prolog_flag(conf, "X11");
}
