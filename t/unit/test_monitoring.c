/* Unit tests for what `sluice monitoring init` generates (src/cmd/
 * monitoring_rules.c, monitoring_dash.c): YAML quoting, the cluster's
 * values substituted into rules and tests alike, annotations expanded in
 * the expected alerts as Prometheus will expand them, and a dashboard that
 * parses as JSON with one id per panel. promtool's own checks of the files
 * are in t/integration/0520-monitoring-init.t. */
#include "tap.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/monitoring.h"
#include "xalloc.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

int main(void)
{
	strbuf_t sb = STRBUF_INIT;
	yaml_quote(&sb, "it's {{ $labels.x }}");
	is_str(sb.buf, "'it''s {{ $labels.x }}'", "YAML single quotes doubled");
	strbuf_release(&sb);

	conf_t conf = { .path = "/etc/slurm/slurm.conf", .state_save_location = "/var/spool/slurmctld",
			.cluster_name = "c1" };
	mon_site_t s = { .conf = &conf, .ctld_target = "ctl:9817", .ctld_node_exporter = "ctl:9100",
			 .state_mount = "/var", .drain_spike = 7, .bf_limit_us = 24000000, .gpu_temp_max = 88 };
	strbuf_t rules = STRBUF_INIT, tests = STRBUF_INIT, dash = STRBUF_INIT;
	mon_rules_write(&s, &rules);
	mon_rules_tests_write(&s, "sluice-alerts.yml", &tests);
	mon_dashboard_write(&s, &dash);

	size_t n = count(rules.buf, "      - alert: ");
	ok(n >= 14, "%zu alert rules", n);
	is_int(count(rules.buf, "          summary: "), n, "each rule has a summary");
	is_int(count(rules.buf, "          runbook: "), n, "each rule has a runbook line");
	is_int(count(tests.buf, " fires\n"), n, "a firing case per rule");
	is_int(count(tests.buf, " stays quiet\n"), n, "a quiet case per rule");
	static const char *const ph[] = { "@CTLD@", "@CTLD_NE@", "@STATE_MOUNT@", "@STATE_DIR@", "@DRAIN@",
		"@DRAIN_FIRE@", "@BF_LIMIT@", "@BF_FIRE@", "@GPU_TEMP@" };
	int left = 0;
	for (size_t i = 0; i < sizeof(ph) / sizeof(ph[0]); i++)
		left += strstr(rules.buf, ph[i]) != NULL || strstr(tests.buf, ph[i]) != NULL;
	is_int(left, 0, "no placeholder left in the rules or tests");
	ok(strstr(rules.buf, "delta(slurm_nodes_drain[15m]) >= 7") != NULL, "drain spike from the site");
	ok(strstr(rules.buf, "slurm_bf_cycle_last > 24000000") != NULL, "backfill limit from the site");
	ok(strstr(rules.buf, "DCGM_FI_DEV_GPU_TEMP > 88") != NULL, "GPU temperature from the site");
	ok(strstr(rules.buf, "node_filesystem_avail_bytes{instance=\"ctl:9100\",mountpoint=\"/var\"}") != NULL,
	   "state disk on the controller's node exporter");
	ok(strstr(rules.buf, "`df -h /var/spool/slurmctld`") != NULL, "runbook names the state directory");
	/* The tests use the same values, and the annotations expanded. */
	ok(strstr(tests.buf, "values: '0x5 9x10'") != NULL, "drain test above the site's threshold");
	ok(strstr(tests.buf, "summary: 'Controller ctl:9817 does not answer'") != NULL,
	   "expected summary expanded with the alert's labels");
	ok(strstr(tests.buf, "runbook: 'Run `scontrol show node gpu01` (State, Reason)") != NULL,
	   "expected runbook expanded");
	ok(!strstr(tests.buf, "{{"), "no template left in the expected annotations");

	json_error_t jerr;
	json_t *d = json_loads(dash.buf, 0, &jerr);
	ok(d != NULL, "dashboard parses: %s", d ? "" : jerr.text);
	json_t *panels = json_object_get(d, "panels");
	ok(json_array_size(panels) >= 15, "%zu panels", json_array_size(panels));
	int ids_ok = 1;
	for (size_t i = 0; i < json_array_size(panels); i++) {
		json_t *p = json_array_get(panels, i);
		ids_ok &= json_integer_value(json_object_get(p, "id")) == (json_int_t)i + 1;
		json_t *gp = json_object_get(p, "gridPos");
		ids_ok &= json_integer_value(json_object_get(gp, "x")) + json_integer_value(json_object_get(gp, "w")) <= 24;
	}
	ok(ids_ok, "panel ids 1..n, every panel within the 24-column grid");
	is_str(json_string_value(json_object_get(d, "title")), "Sluice cluster c1", "title names the cluster");
	json_decref(d);

	strbuf_release(&rules);
	strbuf_release(&tests);
	strbuf_release(&dash);
	return done_testing();
}
