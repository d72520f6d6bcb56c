/*
 * monitoring: `sluice monitoring init [-f slurm.conf] [--force] DIR` writes,
 * from the cluster's own slurm.conf, what a site needs to watch it:
 *
 *   prometheus.yml           the controller (MetricsPort), every node daemon
 *                            (SlurmdMetricsPort) and the node exporter on
 *                            every host, with the rule file
 *   sluice-alerts.yml        alert rules, each with a summary and a runbook
 *                            line naming the command that shows the cause
 *   sluice-alerts.test.yml   their `promtool test rules` unit tests
 *   alertmanager.yml         an example route: critical alerts page, the
 *                            rest go to a team channel, grouped by node
 *   sluice-dashboard.json    the Grafana dashboard
 *
 * It never overwrites a file without --force, and writes nothing when any
 * of them exists. Rules and tests come from one table (monitoring_rules.c),
 * so each alert is tested with the thresholds written for this cluster.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/monitoring.h"
#include "sched/sched.h"
#include "xalloc.h"

#define NODE_EXPORTER_PORT 9100

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: sluice monitoring init [OPTIONS] DIR\n"
		"  Write prometheus.yml, alert rules with their promtool tests, an Alertmanager\n"
		"  route example and a Grafana dashboard for the cluster of slurm.conf into DIR.\n"
		"  -f, --conf FILE       slurm.conf to read (default: $SLURM_CONF, else /etc/slurm/slurm.conf)\n"
		"      --force           overwrite files that exist\n"
		"      --interval SECS   scrape and evaluation interval (default 15)\n"
		"      --gpu-temp C      GPU temperature that alerts (default 85)\n"
		"  -h, --help            show this help\n");
}

/* Decode the octal escapes of /proc/self/mountinfo ("\040" for a space). */
static void unescape(char *s)
{
	char *o = s;
	for (char *p = s; *p; ) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 4;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
}

/* The mount point holding path on this host (its longest mounted prefix;
 * path need not exist yet). malloc'd; "/" when nothing better is known. */
static char *mount_of(const char *path)
{
	char *best = xstrdup("/");
	char resolved[PATH_MAX];
	char *p = xstrdup(path);
	/* Resolve the deepest existing ancestor (symlinks to another disk). */
	while (!realpath(p, resolved)) {
		char *slash = strrchr(p, '/');
		if (!slash || slash == p) {
			snprintf(resolved, sizeof(resolved), "%s", path);
			break;
		}
		*slash = '\0';
	}
	free(p);
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		unescape(mp);
		size_t l = strlen(mp);
		int under = !strcmp(mp, "/") ||
			(!strncmp(resolved, mp, l) && (resolved[l] == '/' || resolved[l] == '\0'));
		if (under && l >= strlen(best)) {
			free(best);
			best = xstrdup(mp);
		}
	}
	if (f)
		fclose(f);
	return best;
}

/* Where node n is reached: NodeAddr, else NodeHostname, else its name. */
static const char *node_host(const conf_node_t *n)
{
	return n->addr ? n->addr : n->hostname ? n->hostname : n->name;
}

static int str_seen(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static void write_prometheus(const mon_site_t *s, unsigned interval, strbuf_t *o)
{
	const conf_t *c = s->conf;
	strbuf_addf(o, "# Prometheus configuration for Sluice cluster %s, written by `sluice monitoring init`\n"
		    "# from %s. Check it with `promtool check config prometheus.yml`.\n"
		    "global:\n  scrape_interval: %us\n  evaluation_interval: %us\n", c->cluster_name ? c->cluster_name : "",
		    c->path, interval, interval);
	if (c->cluster_name)
		strbuf_addf(o, "  external_labels:\n    cluster: '%s'\n", c->cluster_name);
	strbuf_addstr(o, "rule_files:\n  - sluice-alerts.yml\n"
		      "alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['localhost:9093']\n"
		      "scrape_configs:\n");
	const char *token = conf_get(c, "MetricsTokenFile");
	const char *auth_lines = "    authorization:\n      type: Bearer\n      credentials_file: ";
	if (s->ctld_metrics) {
		strbuf_addstr(o, "  - job_name: sluice-ctld\n");
		if (token) {
			strbuf_addstr(o, auth_lines);
			yaml_quote(o, token);
			strbuf_addch(o, '\n');
		}
		strbuf_addstr(o, "    static_configs:\n      - targets:\n");
		strbuf_addf(o, "          - '%s'\n", s->ctld_target);
		/* Backup controllers serve metrics once they take over. */
		for (size_t i = 1; i < c->nctld_hosts; i++)
			strbuf_addf(o, "          - '%s:%s'\n", c->ctld_addrs[i], conf_get(c, "MetricsPort"));
	} else {
		strbuf_addstr(o, "  # No controller job: slurm.conf sets no MetricsType=metrics/openmetrics with MetricsPort.\n");
	}
	int any_node = 0;
	for (size_t i = 0; i < c->nnodes && !any_node; i++)
		any_node = conf_node_metrics_port(c, &c->nodes[i]) != 0;
	if (any_node) {
		strbuf_addstr(o, "  - job_name: sluice-nodes\n");
		if (token) {
			strbuf_addstr(o, auth_lines);
			yaml_quote(o, token);
			strbuf_addch(o, '\n');
		}
		strbuf_addstr(o, "    static_configs:\n");
		for (size_t i = 0; i < c->nnodes; i++) {
			uint16_t port = conf_node_metrics_port(c, &c->nodes[i]);
			if (!port)
				continue;
			strbuf_addf(o, "      - targets: ['%s:%u']\n        labels:\n          node: '%s'\n",
				    node_host(&c->nodes[i]), port, c->nodes[i].name);
		}
	} else {
		strbuf_addstr(o, "  # No node job: slurm.conf sets no SlurmdMetricsPort.\n");
	}
	/* The node exporter (host CPU, memory, disks) on every host once. */
	strbuf_addstr(o, "  - job_name: node\n    static_configs:\n      - targets:\n");
	char **hosts = xcalloc(c->nnodes + c->nctld_hosts + 1, sizeof(*hosts));
	size_t nh = 0;
	for (size_t i = 0; i < c->nctld_hosts; i++)
		if (!str_seen(hosts, nh, c->ctld_addrs[i]))
			hosts[nh++] = c->ctld_addrs[i];
	/* Hosts are few next to nodes (virtual nodes share one): the check
	 * is against those seen so far, a hash would not pay. */
	for (size_t i = 0; i < c->nnodes; i++) {
		const char *h = node_host(&c->nodes[i]);
		if (!str_seen(hosts, nh, h))
			hosts[nh++] = (char *)h;
	}
	for (size_t i = 0; i < nh; i++)
		strbuf_addf(o, "          - '%s:%d'\n", hosts[i], NODE_EXPORTER_PORT);
	free(hosts);
}

static void write_alertmanager(const mon_site_t *s, strbuf_t *o)
{
	strbuf_addf(o,
		"# Alertmanager route example for the Sluice alert rules (sluice-alerts.yml):\n"
		"# critical alerts page the on-call, the rest go to the team's channel, grouped\n"
		"# so that one broken node or switch sends one notification. Fill in the\n"
		"# receivers; check with `amtool check-config alertmanager.yml`.\n"
		"route:\n"
		"  receiver: cluster-team\n"
		"  group_by: ['alertname', 'cluster', 'node', 'Hostname', 'instance']\n"
		"  group_wait: 30s\n"
		"  group_interval: 5m\n"
		"  repeat_interval: 4h\n"
		"  routes:\n"
		"    - receiver: on-call\n"
		"      matchers: ['severity=\"critical\"']\n"
		"      repeat_interval: 1h\n"
		"inhibit_rules:\n"
		"  # A node whose daemon is down makes every other alert about it noise.\n"
		"  - source_matchers: ['alertname=\"SluiceNodeDaemonDown\"']\n"
		"    target_matchers: ['severity=\"warning\"']\n"
		"    equal: ['instance']\n"
		"receivers:\n"
		"  - name: cluster-team\n"
		"    # slack_configs: [{api_url: 'https://hooks.slack.com/...', channel: '#%s-alerts'}]\n"
		"  - name: on-call\n"
		"    # pagerduty_configs: [{routing_key: '...'}]\n",
		s->conf->cluster_name ? s->conf->cluster_name : "cluster");
}

static int write_file(const char *dir, const char *name, const strbuf_t *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f || fwrite(sb->buf, 1, sb->len, f) != sb->len || fclose(f) != 0 || rename(tmp, path) < 0) {
		fprintf(stderr, "sluice monitoring init: cannot write '%s': %s\n", path, strerror(errno));
		unlink(tmp);
		rc = -1;
	}
	free(tmp);
	free(path);
	return rc;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *v)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(s, &end, 10);
	if (!*s || *end || errno || n < lo || n > hi)
		return -1;
	*v = (unsigned)n;
	return 0;
}

static int monitoring_init(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "conf", required_argument, NULL, 'f' },
		{ "force", no_argument, NULL, 'F' },
		{ "interval", required_argument, NULL, 'i' },
		{ "gpu-temp", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = NULL;
	int force = 0, c;
	unsigned interval = 15, gpu_temp = 85;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'f': conf_path = optarg; break;
		case 'F': force = 1; break;
		case 'i':
			if (parse_uint(optarg, 1, 3600, &interval) < 0) {
				fprintf(stderr, "sluice monitoring init: --interval '%s': expected seconds (1-3600)\n", optarg);
				return 1;
			}
			break;
		case 't':
			if (parse_uint(optarg, 30, 150, &gpu_temp) < 0) {
				fprintf(stderr, "sluice monitoring init: --gpu-temp '%s': expected degrees C (30-150)\n", optarg);
				return 1;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sluice monitoring init: %s\n", optind >= argc ? "missing DIR" : "too many arguments");
		usage(stderr);
		return 1;
	}
	const char *dir = argv[optind];
	conf_t *conf = conf_load(conf_path, CONF_FULL);
	if (conf->nerrors) {
		for (size_t i = 0; i < conf->nerrors; i++)
			fprintf(stderr, "%s\n", conf->errors[i]);
		conf_destroy(conf);
		return 1;
	}
	static const char *const files[] = { "prometheus.yml", "sluice-alerts.yml", "sluice-alerts.test.yml",
		"alertmanager.yml", "sluice-dashboard.json" };
	const size_t nfiles = sizeof(files) / sizeof(files[0]);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "sluice monitoring init: cannot create '%s': %s\n", dir, strerror(errno));
		conf_destroy(conf);
		return 1;
	}
	for (size_t i = 0; i < nfiles && !force; i++) {
		char *path = xasprintf("%s/%s", dir, files[i]);
		int exists = access(path, F_OK) == 0;
		if (exists)
			fprintf(stderr, "sluice monitoring init: '%s' exists; use --force to overwrite\n", path);
		free(path);
		if (exists) {
			conf_destroy(conf);
			return 1;
		}
	}

	mon_site_t s = { .conf = conf, .gpu_temp_max = gpu_temp };
	const char *mt = conf_get(conf, "MetricsType");
	const char *mp = conf_get(conf, "MetricsPort");
	s.ctld_metrics = mt && !strcasecmp(mt, "metrics/openmetrics") && mp && conf->nctld_hosts;
	/* The primary is scraped where it binds: MetricsAddress when it
	 * names one address, else its ControlAddr. */
	const char *maddr = conf_get(conf, "MetricsAddress");
	if (maddr && (!*maddr || !strcmp(maddr, "0.0.0.0") || !strcmp(maddr, "::")))
		maddr = NULL;
	if (s.ctld_metrics)
		s.ctld_target = xasprintf(maddr && strchr(maddr, ':') ? "[%s]:%s" : "%s:%s",
					  maddr ? maddr : conf->ctld_addrs[0], mp);
	else
		printf("note: slurm.conf enables no controller metrics (MetricsType=metrics/openmetrics "
		       "and MetricsPort): prometheus.yml has no controller job\n");
	if (!conf_get(conf, "SlurmdMetricsPort"))
		printf("note: slurm.conf sets no SlurmdMetricsPort: prometheus.yml has no node daemon job\n");
	s.ctld_node_exporter = xasprintf("%s:%d", conf->nctld_hosts ? conf->ctld_addrs[0] : "localhost",
					 NODE_EXPORTER_PORT);
	s.state_mount = mount_of(conf->state_save_location);
	/* A drain spike: 5% of the nodes within 15 minutes, at least 3. */
	s.drain_spike = (uint32_t)(conf->nnodes / 20);
	if (s.drain_spike < 3)
		s.drain_spike = 3;
	sched_params_t sp;
	sched_params_parse(&sp, conf->scheduler_type, conf->scheduler_parameters);
	s.bf_limit_us = (uint64_t)(sp.bf_interval ? sp.bf_interval : 30) * 800000u;
	if (!s.ctld_target)
		s.ctld_target = xasprintf("%s:%u", conf->nctld_hosts ? conf->ctld_addrs[0] : "localhost",
					  conf->ctld_port);

	strbuf_t out[5];
	for (size_t i = 0; i < nfiles; i++)
		strbuf_init(&out[i]);
	write_prometheus(&s, interval, &out[0]);
	mon_rules_write(&s, &out[1]);
	mon_rules_tests_write(&s, files[1], &out[2]);
	write_alertmanager(&s, &out[3]);
	mon_dashboard_write(&s, &out[4]);
	int rc = 0;
	for (size_t i = 0; i < nfiles && rc == 0; i++)
		rc = write_file(dir, files[i], &out[i]);
	if (rc == 0)
		printf("wrote %s/{prometheus.yml,sluice-alerts.yml,sluice-alerts.test.yml,alertmanager.yml,"
		       "sluice-dashboard.json}\n", dir);
	for (size_t i = 0; i < nfiles; i++)
		strbuf_release(&out[i]);
	free(s.ctld_target);
	free(s.ctld_node_exporter);
	free(s.state_mount);
	conf_destroy(conf);
	return rc ? 1 : 0;
}

int cmd_monitoring(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout, "Usage: sluice monitoring init [OPTIONS] DIR\n");
		return argc < 2 ? 1 : 0;
	}
	if (!strcmp(argv[1], "init"))
		return monitoring_init(argc - 1, argv + 1);
	fprintf(stderr, "sluice monitoring: unknown subcommand '%s' (expected: init)\n", argv[1]);
	return 1;
}
