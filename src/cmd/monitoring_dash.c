/*
 * monitoring_dash: the Grafana dashboard `sluice monitoring init` writes.
 * One table of panels (title, kind, queries); each query is plain PromQL
 * without Grafana variables, so the integration test can evaluate every
 * one of them against a real Prometheus. The datasource is a dashboard
 * variable, so the file imports into any Grafana with a Prometheus source.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/monitoring.h"
#include "xalloc.h"

struct query { const char *expr, *legend; };
struct panel {
	const char *title, *type, *unit, *description;
	int w, h;
	int instant;               /* table of the current values */
	struct query q[4];
};

static const struct panel panels[] = {
	{ "GPU utilization per node and GPU", "status-history", "percent",
	  "Every GPU's utilization over time, one row per node and GPU; rows labelled with a job that stay dark are "
	  "allocations burning idle GPUs.", 24, 10, 0,
	  { { "DCGM_FI_DEV_GPU_UTIL", "{{Hostname}} gpu{{gpu}} {{job_id}}" } } },
	{ "Allocated GPUs idle (util < 5%)", "stat", "none",
	  "GPUs held by a job that do nothing.", 6, 5, 0,
	  { { "count(DCGM_FI_DEV_GPU_UTIL{job_id!=\"\"} < 5) or vector(0)", "idle allocated" } } },
	{ "Mean GPU utilization by node", "timeseries", "percent", NULL, 18, 5, 0,
	  { { "avg by (instance) (DCGM_FI_DEV_GPU_UTIL)", "{{instance}}" } } },
	{ "GPU temperature", "timeseries", "celsius", NULL, 12, 8, 0,
	  { { "max by (Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP)", "{{Hostname}} gpu{{gpu}}" } } },
	{ "GPU power", "timeseries", "watt", NULL, 12, 8, 0,
	  { { "sum by (Hostname) (DCGM_FI_DEV_POWER_USAGE)", "{{Hostname}}" } } },
	{ "GPU errors (ECC uncorrectable, XID)", "timeseries", "none", NULL, 12, 8, 0,
	  { { "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0", "{{Hostname}} gpu{{gpu}} DBE" },
	    { "increase(sluice_gpu_xid_errors_total[10m]) > 0", "{{Hostname}} gpu{{gpu}} XID" } } },
	{ "InfiniBand port errors and drops", "timeseries", "ops", NULL, 12, 8, 0,
	  { { "rate(infiniband_port_errors_total[5m]) > 0", "{{instance}} {{device}}/{{port}} {{error}}" },
	    { "rate(infiniband_port_dropped_total[5m]) > 0", "{{instance}} {{device}}/{{port}} {{counter}}" } } },
	{ "InfiniBand traffic", "timeseries", "Bps", NULL, 12, 8, 0,
	  { { "sum by (instance) (rate(infiniband_port_data_received_bytes_total[5m]))", "{{instance}} in" },
	    { "sum by (instance) (rate(infiniband_port_data_transmitted_bytes_total[5m]))", "{{instance}} out" } } },
	{ "InfiniBand ports not active", "table", "none", NULL, 12, 8, 1,
	  { { "infiniband_port_state_id != 4", "" } } },
	{ "Queue depth by partition", "timeseries", "none", NULL, 12, 8, 0,
	  { { "sum by (partition) (slurm_partition_jobs_pending)", "{{partition}} pending" },
	    { "sum by (partition) (slurm_partition_jobs_running)", "{{partition}} running" } } },
	{ "Job wait time by partition (p50, p90)", "timeseries", "s", NULL, 12, 8, 0,
	  { { "histogram_quantile(0.5, sum by (partition, le) (rate(sluice_job_wait_seconds_bucket[30m])))",
	      "{{partition}} p50" },
	    { "histogram_quantile(0.9, sum by (partition, le) (rate(sluice_job_wait_seconds_bucket[30m])))",
	      "{{partition}} p90" } } },
	{ "Pending jobs by reason", "timeseries", "none", NULL, 12, 8, 0,
	  { { "sum by (reason) (slurm_jobs_pending_reason)", "{{reason}}" } } },
	{ "Node states", "timeseries", "none", NULL, 12, 8, 0,
	  { { "count by (state) (slurm_node_state)", "{{state}}" } } },
	{ "Drained nodes and their reasons", "table", "none", NULL, 12, 8, 1,
	  { { "slurm_node_reason", "" } } },
	{ "Node drains", "timeseries", "none", NULL, 12, 8, 0,
	  { { "slurm_nodes_drain", "draining or drained" }, { "slurm_nodes_down", "down" } } },
	{ "Usage by account (CPU cores, GPUs)", "timeseries", "none",
	  "What each account uses now, from the node daemons: the input of fair share.", 12, 8, 0,
	  { { "sum by (account) (rate(sluice_job_cpu_seconds_total[5m]))", "{{account}} cores" },
	    { "sum by (account) (sluice_job_gpus)", "{{account}} GPUs" } } },
	{ "Scheduler cycles", "timeseries", "µs", NULL, 12, 8, 0,
	  { { "slurm_schedule_cycle_last", "main, last" }, { "slurm_bf_cycle_last", "backfill, last" } } },
	{ "Top users by GPUs held", "bargauge", "none", NULL, 6, 8, 1,
	  { { "topk(10, sum by (user) (sluice_job_gpus))", "{{user}}" } } },
	{ "Top accounts by GPUs held", "bargauge", "none", NULL, 6, 8, 1,
	  { { "topk(10, sum by (account) (sluice_job_gpus))", "{{account}}" } } },
	{ "Active alerts", "table", "none", NULL, 24, 8, 1,
	  { { "ALERTS{alertstate=\"firing\"}", "" } } },
};

void mon_dashboard_write(const mon_site_t *s, strbuf_t *out)
{
	json_t *ps = json_array();
	int x = 0, y = 0, rowh = 0;
	for (size_t i = 0; i < sizeof(panels) / sizeof(panels[0]); i++) {
		const struct panel *p = &panels[i];
		if (x + p->w > 24) {
			x = 0;
			y += rowh;
			rowh = 0;
		}
		json_t *targets = json_array();
		for (int k = 0; k < 4 && p->q[k].expr; k++) {
			char ref[2] = { (char)('A' + k), 0 };
			json_t *t = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "refId", ref, "expr", p->q[k].expr,
					      "legendFormat", p->q[k].legend, "datasource", "type", "prometheus",
					      "uid", "${datasource}");
			if (p->instant) {
				json_object_set_new(t, "instant", json_true());
				json_object_set_new(t, "format", json_string("table"));
			}
			json_array_append_new(targets, t);
		}
		json_t *panel = json_pack("{s:i, s:s, s:s, s:{s:s, s:s}, s:{s:i, s:i, s:i, s:i}, s:o,"
					  " s:{s:{s:s}, s:[]}}",
					  "id", (int)i + 1, "type", p->type, "title", p->title,
					  "datasource", "type", "prometheus", "uid", "${datasource}",
					  "gridPos", "x", x, "y", y, "w", p->w, "h", p->h,
					  "targets", targets,
					  "fieldConfig", "defaults", "unit", p->unit, "overrides");
		if (p->description)
			json_object_set_new(panel, "description", json_string(p->description));
		json_array_append_new(ps, panel);
		x += p->w;
		if (p->h > rowh)
			rowh = p->h;
	}
	char *title = xasprintf("Sluice cluster %s",
				s->conf && s->conf->cluster_name ? s->conf->cluster_name : "");
	json_t *dash = json_pack("{s:s, s:s, s:[s], s:i, s:s, s:{s:s, s:s}, s:s, s:b,"
				 " s:{s:[{s:s, s:s, s:s, s:s}]}, s:o}",
				 "title", title, "uid", "sluice-cluster", "tags", "sluice", "schemaVersion", 38,
				 "refresh", "30s", "time", "from", "now-6h", "to", "now", "timezone", "browser",
				 "editable", 1,
				 "templating", "list", "name", "datasource", "label", "Prometheus", "type",
				 "datasource", "query", "prometheus",
				 "panels", ps);
	free(title);
	char *text = json_dumps(dash, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	strbuf_addstr(out, text);
	strbuf_addch(out, '\n');
	free(text);
	json_decref(dash);
}
