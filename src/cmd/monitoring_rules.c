/*
 * monitoring_rules: the alert rules `sluice monitoring init` writes, and
 * their `promtool test rules` unit tests, from one table: each alert with
 * its expression, summary and runbook line (the Sluice or Slurm command
 * that shows the cause), and the input series of a case where it fires and
 * one where it must not. Values that depend on the cluster (how many
 * drains page, the backfill interval, where the state lives) come from
 * slurm.conf as @NAME@ placeholders, substituted in the rules and the
 * tests alike, so the tests check the rules as written for this cluster.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/monitoring.h"
#include "xalloc.h"

/* One alert. Series are "SERIES VALUES" lines (promtool's expanding
 * notation, 1m apart); labels "k=v,k=v" are those the firing alert carries
 * besides severity. */
struct alert {
	const char *name, *severity, *for_;
	const char *expr;
	const char *summary, *runbook;     /* may use {{ $labels.NAME }} */
	const char *fire_series, *fire_at, *fire_labels;
	const char *quiet_series;
};

static const struct alert alerts[] = {
	{ "SluiceControllerDown", "critical", "1m",
	  "up{job=\"sluice-ctld\"} == 0",
	  "Controller {{ $labels.instance }} does not answer",
	  "Run `scontrol ping`; then read SlurmctldLogFile on the controller host and restart `sluice ctld` there.",
	  "up{job=\"sluice-ctld\",instance=\"@CTLD@\"} 0x10", "5m", "job=sluice-ctld,instance=@CTLD@",
	  "up{job=\"sluice-ctld\",instance=\"@CTLD@\"} 1x10" },
	{ "SluiceNodeDaemonDown", "warning", "2m",
	  "up{job=\"sluice-nodes\"} == 0",
	  "Node daemon of {{ $labels.node }} does not answer",
	  "Run `scontrol show node {{ $labels.node }}` (State, Reason) and `sinfo -R`; restart `sluice noded` on the host.",
	  "up{job=\"sluice-nodes\",instance=\"gpu01:9818\",node=\"gpu01\"} 0x10", "5m",
	  "job=sluice-nodes,instance=gpu01:9818,node=gpu01",
	  "up{job=\"sluice-nodes\",instance=\"gpu01:9818\",node=\"gpu01\"} 1x10" },
	{ "SluiceNodeDown", "warning", "5m",
	  "slurm_node_state{state=~\"down.*|fail.*\"} > 0",
	  "Node {{ $labels.node }} is {{ $labels.state }} for the controller",
	  "Run `sinfo -R` and `scontrol show node {{ $labels.node }}`; once fixed, `scontrol update nodename={{ $labels.node }} state=resume`.",
	  "slurm_node_state{node=\"gpu01\",state=\"down\"} 1x10", "6m", "node=gpu01,state=down",
	  "slurm_node_state{node=\"gpu01\",state=\"down\"} 0x10\n"
	  "slurm_node_state{node=\"gpu01\",state=\"idle\"} 1x10" },
	{ "SluiceDrainSpike", "warning", "0m",
	  "delta(slurm_nodes_drain[15m]) >= @DRAIN@",
	  "Nodes are being drained fast",
	  "Run `sinfo -R` for each drained node's reason, who set it and when; `sluice why` explains the pending jobs it stalls.",
	  "slurm_nodes_drain 0x5 @DRAIN_FIRE@x10", "15m", "",
	  "slurm_nodes_drain 0x5 1x10" },
	{ "SluiceHealthCheckFailing", "warning", "1m",
	  "sluice_health_check_failing > 0",
	  "Health check {{ $labels.check }} fails on {{ $labels.node }}",
	  "Run `sinfo -R` for the reason the check set and `scontrol show node {{ $labels.node }}`; resume the node once healthy.",
	  "sluice_health_check_failing{node=\"gpu01\",check=\"gpu\"} 1x5", "3m", "node=gpu01,check=gpu",
	  "sluice_health_check_failing{node=\"gpu01\",check=\"gpu\"} 0x5" },
	{ "SluiceGpuEccUncorrectable", "critical", "0m",
	  "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0",
	  "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} has uncorrectable ECC errors",
	  "Drain it: `scontrol update nodename={{ $labels.Hostname }} state=drain reason=\"GPU {{ $labels.gpu }} ECC\"`; `sinfo -R` lists it; reset or replace the GPU.",
	  "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{Hostname=\"gpu01\",gpu=\"1\"} 0 0 2 2 2", "3m", "Hostname=gpu01,gpu=1",
	  "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{Hostname=\"gpu01\",gpu=\"1\"} 0x5" },
	{ "SluiceGpuXid", "warning", "0m",
	  "increase(sluice_gpu_xid_errors_total[10m]) > 0 or changes(DCGM_FI_DEV_XID_ERRORS[10m]) > 0",
	  "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} reported an XID error",
	  "See DCGM_FI_DEV_XID_ERRORS for the code and `scontrol show node {{ $labels.Hostname }}`; drain with `scontrol update nodename={{ $labels.Hostname }} state=drain reason=XID` if it repeats.",
	  "sluice_gpu_xid_errors_total{Hostname=\"gpu01\",gpu=\"2\"} 0 0 1 1 1", "4m", "Hostname=gpu01,gpu=2",
	  "sluice_gpu_xid_errors_total{Hostname=\"gpu01\",gpu=\"2\"} 1x5" },
	{ "SluiceGpuOverTemperature", "warning", "5m",
	  "DCGM_FI_DEV_GPU_TEMP > @GPU_TEMP@",
	  "GPU {{ $labels.gpu }} of {{ $labels.Hostname }} runs hot",
	  "Check the node's cooling; `squeue -w {{ $labels.Hostname }}` shows the jobs on it, `sinfo -R` any drain.",
	  "DCGM_FI_DEV_GPU_TEMP{Hostname=\"gpu01\",gpu=\"0\"} 95x10", "6m", "Hostname=gpu01,gpu=0",
	  "DCGM_FI_DEV_GPU_TEMP{Hostname=\"gpu01\",gpu=\"0\"} 60x10" },
	{ "SluiceIbPortDown", "warning", "5m",
	  "infiniband_port_state_id != 4 and on(instance, device, port) infiniband_port_physical_state_id != 3",
	  "InfiniBand port {{ $labels.device }}/{{ $labels.port }} on {{ $labels.instance }} is not active",
	  "Run `ibstat {{ $labels.device }}` on the host; `sinfo -R` and `scontrol show node` for the node; reseat or replace the cable.",
	  "infiniband_port_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 1x10\n"
	  "infiniband_port_physical_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 2x10",
	  "6m", "instance=gpu01:9818,device=mlx5_0,port=1",
	  "infiniband_port_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 4x10\n"
	  "infiniband_port_physical_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 5x10" },
	{ "SluiceIbPortSlow", "warning", "10m",
	  "infiniband_port_rate_bytes_per_second < scalar(quantile(0.5, infiniband_port_rate_bytes_per_second)) "
	  "and on(instance, device, port) infiniband_port_state_id == 4",
	  "InfiniBand port {{ $labels.device }}/{{ $labels.port }} on {{ $labels.instance }} runs below the cluster's usual rate",
	  "Run `ibstat {{ $labels.device }}` on the host (Rate); a degraded link needs its cable or transceiver replaced; `sinfo -R` for drains.",
	  "infiniband_port_rate_bytes_per_second{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 12500000000x15\n"
	  "infiniband_port_rate_bytes_per_second{instance=\"gpu02:9818\",device=\"mlx5_0\",port=\"1\"} 50000000000x15\n"
	  "infiniband_port_rate_bytes_per_second{instance=\"gpu03:9818\",device=\"mlx5_0\",port=\"1\"} 50000000000x15\n"
	  "infiniband_port_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 4x15\n"
	  "infiniband_port_state_id{instance=\"gpu02:9818\",device=\"mlx5_0\",port=\"1\"} 4x15\n"
	  "infiniband_port_state_id{instance=\"gpu03:9818\",device=\"mlx5_0\",port=\"1\"} 4x15",
	  "12m", "instance=gpu01:9818,device=mlx5_0,port=1",
	  "infiniband_port_rate_bytes_per_second{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 50000000000x15\n"
	  "infiniband_port_rate_bytes_per_second{instance=\"gpu02:9818\",device=\"mlx5_0\",port=\"1\"} 50000000000x15\n"
	  "infiniband_port_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 4x15\n"
	  "infiniband_port_state_id{instance=\"gpu02:9818\",device=\"mlx5_0\",port=\"1\"} 4x15" },
	{ "SluiceIbPortErrors", "warning", "5m",
	  "rate(infiniband_port_errors_total[5m]) > 0",
	  "InfiniBand port {{ $labels.device }}/{{ $labels.port }} on {{ $labels.instance }} counts {{ $labels.error }}",
	  "Run `perfquery` / `ibqueryerrors` for the port; `squeue -w` on the node shows whose jobs it slows; drain with `scontrol update` if it grows.",
	  "infiniband_port_errors_total{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\",error=\"symbol_error\"} 0+5x15",
	  "12m", "instance=gpu01:9818,device=mlx5_0,port=1,error=symbol_error",
	  "infiniband_port_errors_total{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\",error=\"symbol_error\"} 3x15" },
	{ "SluiceJobOnTcp", "warning", "10m",
	  "sluice_job_rdma_fds == 0 and on(instance, job_id) sluice_job_nodes > 1 "
	  "and on(instance) (count by (instance) (infiniband_port_state_id == 4) > 0)",
	  "Multi-node job {{ $labels.job_id }} of {{ $labels.user }} uses no RDMA device on {{ $labels.instance }}",
	  "Run `scontrol show job {{ $labels.job_id }}`; the job's collectives run over TCP: check NCCL_IB_DISABLE/NCCL_SOCKET_IFNAME in its environment and the node's IB ports (`ibstat`).",
	  "sluice_job_rdma_fds{instance=\"gpu01:9818\",job_id=\"42\",user=\"alice\",account=\"phys\"} 0x15\n"
	  "sluice_job_nodes{instance=\"gpu01:9818\",job_id=\"42\",user=\"alice\",account=\"phys\"} 2x15\n"
	  "infiniband_port_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 4x15",
	  "12m", "instance=gpu01:9818,job_id=42,user=alice,account=phys",
	  "sluice_job_rdma_fds{instance=\"gpu01:9818\",job_id=\"42\",user=\"alice\",account=\"phys\"} 4x15\n"
	  "sluice_job_nodes{instance=\"gpu01:9818\",job_id=\"42\",user=\"alice\",account=\"phys\"} 2x15\n"
	  "infiniband_port_state_id{instance=\"gpu01:9818\",device=\"mlx5_0\",port=\"1\"} 4x15" },
	{ "SluiceNcclSocketFallback", "warning", "0m",
	  "sluice_job_nccl_transport{transport=\"Socket\"} == 1",
	  "Job {{ $labels.job_id }} of {{ $labels.user }} runs its NCCL collectives over TCP sockets, not the fabric",
	  "Run `sluice why {{ $labels.job_id }}` for the evidence ({{ $labels.source }} on {{ $labels.node }}); check the fabric of its nodes (`scontrol show job {{ $labels.job_id }}`, `ibstat`) and NCCL_IB_HCA/NCCL_NET/NCCL_SOCKET_IFNAME in its environment.",
	  "sluice_job_nccl_transport{job_id=\"42\",user=\"alice\",transport=\"Socket\",source=\"log\",node=\"gpu01\"} 1x5",
	  "2m", "job_id=42,user=alice,transport=Socket,source=log,node=gpu01",
	  "sluice_job_nccl_transport{job_id=\"42\",user=\"alice\",transport=\"IB\",source=\"log\",node=\"gpu01\"} 1x5" },
	{ "SluiceSchedulerStuck", "critical", "10m",
	  "sum by (partition) (slurm_jobs_pending_reason{reason=\"Resources\"}) > 0 "
	  "and on(partition) slurm_partition_nodes_idle >= on(partition) slurm_partition_jobs_min_job_nodes_nohold "
	  "and on(partition) slurm_partition_nodes_idle > 0",
	  "Jobs of partition {{ $labels.partition }} wait on Resources while enough of its nodes sit idle",
	  "Run `sluice why` on a pending job of {{ $labels.partition }} and `sdiag` (scheduler cycles); `sinfo -p {{ $labels.partition }}` shows the idle nodes.",
	  "slurm_jobs_pending_reason{partition=\"gpu\",reason=\"Resources\"} 3x15\n"
	  "slurm_partition_nodes_idle{partition=\"gpu\"} 4x15\n"
	  "slurm_partition_jobs_min_job_nodes_nohold{partition=\"gpu\"} 2x15",
	  "12m", "partition=gpu",
	  "slurm_jobs_pending_reason{partition=\"gpu\",reason=\"Resources\"} 3x15\n"
	  "slurm_partition_nodes_idle{partition=\"gpu\"} 1x15\n"
	  "slurm_partition_jobs_min_job_nodes_nohold{partition=\"gpu\"} 2x15" },
	{ "SluiceBackfillSlow", "warning", "15m",
	  "slurm_bf_cycle_last > @BF_LIMIT@",
	  "Backfill cycles take close to their interval",
	  "Run `sdiag` (Backfilling stats: last and max cycle, depth); lower bf_max_job_test or raise bf_interval in SchedulerParameters.",
	  "slurm_bf_cycle_last{instance=\"@CTLD@\",job=\"sluice-ctld\"} @BF_FIRE@x20", "16m",
	  "instance=@CTLD@,job=sluice-ctld",
	  "slurm_bf_cycle_last{instance=\"@CTLD@\",job=\"sluice-ctld\"} 1000x20" },
	{ "SluiceStateCommitSlow", "warning", "10m",
	  "histogram_quantile(0.99, sum by (instance, le) (rate(sluice_state_commit_seconds_bucket[5m]))) > 0.5",
	  "State-save commits on {{ $labels.instance }} are slow",
	  "Run `sdiag` and check the disk under StateSaveLocation (`iostat -x`); every submission waits for its commit.",
	  "sluice_state_commit_seconds_bucket{instance=\"@CTLD@\",le=\"0.1\"} 0+0x20\n"
	  "sluice_state_commit_seconds_bucket{instance=\"@CTLD@\",le=\"1\"} 0+0x20\n"
	  "sluice_state_commit_seconds_bucket{instance=\"@CTLD@\",le=\"+Inf\"} 0+10x20",
	  "16m", "instance=@CTLD@",
	  "sluice_state_commit_seconds_bucket{instance=\"@CTLD@\",le=\"0.1\"} 0+10x20\n"
	  "sluice_state_commit_seconds_bucket{instance=\"@CTLD@\",le=\"1\"} 0+10x20\n"
	  "sluice_state_commit_seconds_bucket{instance=\"@CTLD@\",le=\"+Inf\"} 0+10x20" },
	{ "SluiceStateSaveDiskFull", "critical", "5m",
	  "node_filesystem_avail_bytes{instance=\"@CTLD_NE@\",mountpoint=\"@STATE_MOUNT@\"} "
	  "/ node_filesystem_size_bytes{instance=\"@CTLD_NE@\",mountpoint=\"@STATE_MOUNT@\"} < 0.1",
	  "The disk holding StateSaveLocation on {{ $labels.instance }} is nearly full",
	  "Run `df -h @STATE_DIR@` on the controller host and free space; while it is full the controller refuses changes (`sdiag`, the controller log).",
	  "node_filesystem_avail_bytes{instance=\"@CTLD_NE@\",mountpoint=\"@STATE_MOUNT@\",fstype=\"ext4\"} 5x10\n"
	  "node_filesystem_size_bytes{instance=\"@CTLD_NE@\",mountpoint=\"@STATE_MOUNT@\",fstype=\"ext4\"} 100x10",
	  "6m", "instance=@CTLD_NE@,mountpoint=@STATE_MOUNT@,fstype=ext4",
	  "node_filesystem_avail_bytes{instance=\"@CTLD_NE@\",mountpoint=\"@STATE_MOUNT@\",fstype=\"ext4\"} 50x10\n"
	  "node_filesystem_size_bytes{instance=\"@CTLD_NE@\",mountpoint=\"@STATE_MOUNT@\",fstype=\"ext4\"} 100x10" },
};

void yaml_quote(strbuf_t *out, const char *s)
{
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(out, '\'');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

/* tmpl with the site's @NAME@ values substituted. malloc'd. */
static char *subst(const mon_site_t *s, const char *tmpl)
{
	char drain[32], drain_fire[32], bf[32], bf_fire[32], temp[16];
	snprintf(drain, sizeof(drain), "%u", s->drain_spike);
	snprintf(drain_fire, sizeof(drain_fire), "%u", s->drain_spike + 2);
	snprintf(bf, sizeof(bf), "%" PRIu64, s->bf_limit_us);
	snprintf(bf_fire, sizeof(bf_fire), "%" PRIu64, s->bf_limit_us + s->bf_limit_us / 4 + 1);
	snprintf(temp, sizeof(temp), "%u", s->gpu_temp_max);
	const char *state_dir = s->conf && s->conf->state_save_location ? s->conf->state_save_location : "/";
	const struct { const char *k, *v; } vars[] = {
		{ "@CTLD@", s->ctld_target }, { "@CTLD_NE@", s->ctld_node_exporter },
		{ "@STATE_MOUNT@", s->state_mount }, { "@STATE_DIR@", state_dir },
		{ "@DRAIN@", drain }, { "@DRAIN_FIRE@", drain_fire }, { "@BF_LIMIT@", bf },
		{ "@BF_FIRE@", bf_fire }, { "@GPU_TEMP@", temp },
	};
	strbuf_t sb = STRBUF_INIT;
	for (const char *p = tmpl; *p; ) {
		size_t i = 0, n = sizeof(vars) / sizeof(vars[0]);
		if (*p == '@')
			for (; i < n && strncmp(p, vars[i].k, strlen(vars[i].k)); i++)
				;
		if (*p == '@' && i < n) {
			strbuf_addstr(&sb, vars[i].v);
			p += strlen(vars[i].k);
		} else {
			strbuf_addch(&sb, *p++);
		}
	}
	return strbuf_detach(&sb);
}

void mon_rules_write(const mon_site_t *s, strbuf_t *out)
{
	strbuf_addstr(out, "# Alert rules for Sluice, written by `sluice monitoring init` from ");
	strbuf_addstr(out, s->conf && s->conf->path ? s->conf->path : "slurm.conf");
	strbuf_addstr(out, ".\n# Each alert's runbook names the command that shows the cause; "
		      "docs/monitoring.md explains them.\n# Tested by `promtool test rules sluice-alerts.test.yml`.\n"
		      "groups:\n  - name: sluice\n    rules:\n");
	for (size_t i = 0; i < sizeof(alerts) / sizeof(alerts[0]); i++) {
		const struct alert *a = &alerts[i];
		char *expr = subst(s, a->expr), *sum = subst(s, a->summary), *rb = subst(s, a->runbook);
		strbuf_addf(out, "      - alert: %s\n        expr: ", a->name);
		yaml_quote(out, expr);
		strbuf_addf(out, "\n        for: %s\n        labels:\n          severity: %s\n"
			    "        annotations:\n          summary: ", a->for_, a->severity);
		yaml_quote(out, sum);
		strbuf_addstr(out, "\n          runbook: ");
		yaml_quote(out, rb);
		strbuf_addch(out, '\n');
		free(expr);
		free(sum);
		free(rb);
	}
}

/* The value of label k in "k=v,k=v", or NULL; *len its length. */
static const char *label_val(const char *labels, const char *k, size_t *len)
{
	size_t kl = strlen(k);
	for (const char *p = labels; p && *p; ) {
		size_t l = strcspn(p, ",");
		if (l > kl && !strncmp(p, k, kl) && p[kl] == '=') {
			*len = l - kl - 1;
			return p + kl + 1;
		}
		p += l;
		if (*p)
			p++;
	}
	return NULL;
}

/* An annotation as Prometheus will expand it for the alert's labels
 * (only {{ $labels.NAME }} is used in our templates). */
static char *expand(const char *tmpl, const char *labels)
{
	strbuf_t sb = STRBUF_INIT;
	for (const char *p = tmpl; *p; ) {
		if (!strncmp(p, "{{ $labels.", 11)) {
			const char *e = strstr(p, " }}");
			if (e) {
				char *k = xstrndup(p + 11, (size_t)(e - p - 11));
				size_t len = 0;
				const char *v = label_val(labels, k, &len);
				if (v)
					strbuf_add(&sb, v, len);
				free(k);
				p = e + 3;
				continue;
			}
		}
		strbuf_addch(&sb, *p++);
	}
	return strbuf_detach(&sb);
}

static void series_write(strbuf_t *out, const char *series)
{
	strbuf_addstr(out, "    input_series:\n");
	for (const char *p = series; *p; ) {
		size_t l = strcspn(p, "\n");
		char *line = xstrndup(p, l);
		char *sp = strrchr(line, '}');
		if (!sp)
			sp = strchr(line, ' ');
		else
			sp++;
		*sp = '\0';
		strbuf_addstr(out, "      - series: ");
		yaml_quote(out, line);
		strbuf_addstr(out, "\n        values: ");
		yaml_quote(out, sp + 1);
		strbuf_addch(out, '\n');
		free(line);
		p += l;
		if (*p)
			p++;
	}
}

void mon_rules_tests_write(const mon_site_t *s, const char *rules_file, strbuf_t *out)
{
	strbuf_addstr(out, "# promtool unit tests of the alert rules: `promtool test rules` on this file.\n"
		      "# Each alert has a case where it fires and one where it must not.\n"
		      "rule_files:\n  - ");
	yaml_quote(out, rules_file);
	strbuf_addstr(out, "\nevaluation_interval: 1m\ntests:\n");
	for (size_t i = 0; i < sizeof(alerts) / sizeof(alerts[0]); i++) {
		const struct alert *a = &alerts[i];
		char *fire = subst(s, a->fire_series), *quiet = subst(s, a->quiet_series);
		char *labels = subst(s, a->fire_labels);
		/* firing */
		strbuf_addf(out, "  # %s fires\n  - interval: 1m\n", a->name);
		series_write(out, fire);
		strbuf_addf(out, "    alert_rule_test:\n      - eval_time: %s\n        alertname: %s\n"
			    "        exp_alerts:\n          - exp_labels:\n              severity: %s\n",
			    a->fire_at, a->name, a->severity);
		for (const char *p = labels; *p; ) {
			size_t l = strcspn(p, ",");
			const char *eq = memchr(p, '=', l);
			if (eq) {
				char *k = xstrndup(p, (size_t)(eq - p)), *v = xstrndup(eq + 1, l - (size_t)(eq - p) - 1);
				strbuf_addf(out, "              %s: ", k);
				yaml_quote(out, v);
				strbuf_addch(out, '\n');
				free(k);
				free(v);
			}
			p += l;
			if (*p)
				p++;
		}
		char *sum_t = subst(s, a->summary), *rb_t = subst(s, a->runbook);
		char *sum = expand(sum_t, labels), *rb = expand(rb_t, labels);
		strbuf_addstr(out, "            exp_annotations:\n              summary: ");
		yaml_quote(out, sum);
		strbuf_addstr(out, "\n              runbook: ");
		yaml_quote(out, rb);
		strbuf_addch(out, '\n');
		/* not firing */
		strbuf_addf(out, "  # %s stays quiet\n  - interval: 1m\n", a->name);
		series_write(out, quiet);
		strbuf_addf(out, "    alert_rule_test:\n      - eval_time: %s\n        alertname: %s\n"
			    "        exp_alerts: []\n", a->fire_at, a->name);
		free(sum_t);
		free(rb_t);
		free(sum);
		free(rb);
		free(fire);
		free(quiet);
		free(labels);
	}
}
