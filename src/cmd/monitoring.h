/*
 * monitoring: what `sluice monitoring init` writes, split by file:
 * monitoring.c the command, prometheus.yml and the Alertmanager example;
 * monitoring_rules.c the alert rules and their promtool unit tests;
 * monitoring_dash.c the Grafana dashboard.
 */
#ifndef SLUICE_CMD_MONITORING_H
#define SLUICE_CMD_MONITORING_H

#include <stdint.h>

#include "conf.h"
#include "strbuf.h"

/* What the rules and dashboard take from the cluster's config. */
typedef struct mon_site {
	const conf_t *conf;
	int ctld_metrics;          /* slurm.conf enables the controller's /metrics */
	char *ctld_target;         /* "host:port" of the primary controller's metrics */
	char *ctld_node_exporter;  /* "host:9100": the node exporter beside it */
	char *state_mount;         /* mount point holding StateSaveLocation */
	uint32_t drain_spike;      /* drains within 15 minutes that page */
	uint64_t bf_limit_us;      /* backfill cycle time that warns: 80% of bf_interval */
	unsigned gpu_temp_max;     /* degrees C */
} mon_site_t;

/* Append the alert rules file (Prometheus rule group YAML). */
void mon_rules_write(const mon_site_t *s, strbuf_t *out);
/* Append the `promtool test rules` file for rules_file (its name, as the
 * tests refer to it). Each alert has a firing and a not-firing case. */
void mon_rules_tests_write(const mon_site_t *s, const char *rules_file, strbuf_t *out);
/* Append the Grafana dashboard (JSON). */
void mon_dashboard_write(const mon_site_t *s, strbuf_t *out);

/* A YAML single-quoted scalar of s ('' for '). */
void yaml_quote(strbuf_t *out, const char *s);

#endif
