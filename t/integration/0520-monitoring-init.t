#!/bin/bash
test_description='sluice monitoring init: prometheus.yml, alert rules, their promtool
tests, an Alertmanager example and a Grafana dashboard from slurm.conf; promtool
accepts them, every alert has a firing and a quiet case, and the tests catch a
rule that never fires or always fires'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v promtool >/dev/null && test_set_prereq PROMTOOL

test_expect_success 'init writes the five files from slurm.conf' '
	cluster_write_conf 3 "SlurmdMetricsPort=+1000" "SchedulerParameters=bf_interval=60" &&
	sluice monitoring init -f "$CL/etc/slurm.conf" mon >out 2>err &&
	grep -q "^wrote mon/" out &&
	for f in prometheus.yml sluice-alerts.yml sluice-alerts.test.yml alertmanager.yml sluice-dashboard.json
	do test -s mon/$f || return 1; done &&
	test_must_be_empty err &&
	grep -q "^note: .*no controller job" out &&
	grep -q "^  # No controller job" mon/prometheus.yml
'

test_expect_success 'prometheus.yml: every node daemon with its node label, node exporters once per host' '
	for i in 1 2 3; do
		grep -q "targets: \[.127.0.0.1:$((CTLD_PORT + i + 1000)).\]" mon/prometheus.yml &&
		grep -q "node: .comp00$i." mon/prometheus.yml || return 1
	done &&
	test "$(grep -c "127.0.0.1:9100" mon/prometheus.yml)" = 1 &&
	grep -q "^  - sluice-alerts.yml" mon/prometheus.yml
'

test_expect_success 'the controller job: MetricsAddress when it names one address, with the token file' '
	mkdir c2 && cp "$CL/etc/"* c2/ &&
	printf "%s\n" MetricsType=metrics/openmetrics MetricsPort=9817 MetricsAddress=127.0.0.9 \
		MetricsTokenFile=/etc/slurm/metrics.token >>c2/slurm.conf &&
	sluice monitoring init -f c2/slurm.conf mon2 >out 2>err &&
	test_must_be_empty err &&
	! grep -q "^note:" out &&
	sed -n "/job_name: sluice-ctld/,/job_name: sluice-nodes/p" mon2/prometheus.yml >ctld.yml &&
	grep -q "^          - .127.0.0.9:9817.$" ctld.yml &&
	grep -q "credentials_file: ./etc/slurm/metrics.token.$" ctld.yml &&
	grep -q "instance=\"127.0.0.9:9817\"" mon2/sluice-alerts.test.yml &&
	(! command -v promtool >/dev/null || (cd mon2 && promtool test rules sluice-alerts.test.yml >/dev/null))
'

test_expect_success 'thresholds come from the config: bf_interval=60 -> 48 s, 3 drains' '
	grep -q "slurm_bf_cycle_last > 48000000" mon/sluice-alerts.yml &&
	grep -q "delta(slurm_nodes_drain\[15m\]) >= 3" mon/sluice-alerts.yml
'

test_expect_success 'an existing file is never overwritten without --force' '
	echo mine >mon/alertmanager.yml &&
	test_expect_code 1 sluice monitoring init -f "$CL/etc/slurm.conf" mon 2>err &&
	grep -q "mon/prometheus.yml. exists; use --force to overwrite" err &&
	test "$(cat mon/alertmanager.yml)" = mine &&
	sluice monitoring init --force -f "$CL/etc/slurm.conf" mon >/dev/null 2>&1 &&
	grep -q "^route:" mon/alertmanager.yml
'

test_expect_success 'bad usage and bad config are refused with the reason' '
	test_expect_code 1 sluice monitoring init -f "$CL/etc/slurm.conf" 2>err &&
	grep -q "missing DIR" err &&
	test_expect_code 1 sluice monitoring init --interval soon -f "$CL/etc/slurm.conf" x 2>err &&
	grep -q "interval .soon.: expected seconds" err &&
	test_expect_code 1 sluice monitoring frob 2>err &&
	grep -q "unknown subcommand .frob." err &&
	mkdir bad && cp "$CL/etc/"* bad/ &&
	echo "SlurmdMetricsPort=+x" >>bad/slurm.conf &&
	test_expect_code 1 sluice monitoring init -f bad/slurm.conf y 2>err &&
	grep -Eq "slurm.conf:[0-9]+: SlurmdMetricsPort .\+x.: expected a port" err &&
	! test -e y
'

test_expect_success PROMTOOL 'promtool: config and rules check, unit tests pass' '
	(cd mon && promtool check config prometheus.yml && promtool check rules sluice-alerts.yml &&
	 promtool test rules sluice-alerts.test.yml) >out 2>&1 ||
	{ cat out; false; }
'

test_expect_success PROMTOOL 'every alert has a firing and a quiet case' '
	grep "^      - alert: " mon/sluice-alerts.yml | sed "s/.*alert: //" >alerts &&
	test "$(wc -l <alerts)" -ge 14 &&
	while read a; do
		grep -q "^  # $a fires$" mon/sluice-alerts.test.yml &&
		grep -q "^  # $a stays quiet$" mon/sluice-alerts.test.yml || { echo "no cases for $a"; return 1; }
	done <alerts
'

# mutate N EXPR: in dir mut, the rules with alert N (1-based) given EXPR,
# and the tests of alert N alone (its firing and quiet cases), so each
# promtool run is short.
mutate() {
	rm -rf mut && mkdir mut &&
	awk -v n="$1" -v e="$2" '/^      - alert: /{k++} k==n && /^        expr: /{print "        expr: \x27" e "\x27"; next} {print}' \
		mon/sluice-alerts.yml >mut/sluice-alerts.yml &&
	awk -v n="$1" '/^  # .* fires$/{k++} k==0 || k==n' mon/sluice-alerts.test.yml >mut/sluice-alerts.test.yml
}

test_expect_success PROMTOOL 'the tests fail for a rule that never fires, and for one that always does' '
	n=$(wc -l <alerts) &&
	for i in $(seq 1 "$n"); do
		mutate "$i" "$(sed -n "/^      - alert: $(sed -n ${i}p alerts)\$/,/expr:/s/^        expr: .\(.*\).$/\1/p" mon/sluice-alerts.yml)" &&
		(cd mut && promtool test rules sluice-alerts.test.yml >/dev/null 2>&1) ||
			{ echo "alert $i: its own tests fail unchanged"; return 1; }
		mutate "$i" "sluice_no_such_series > 0" &&
		if (cd mut && promtool test rules sluice-alerts.test.yml >/dev/null 2>&1); then
			echo "alert $i: a rule that never fires passes its tests"; return 1
		fi &&
		mutate "$i" "vector(1)" &&
		if (cd mut && promtool test rules sluice-alerts.test.yml >/dev/null 2>&1); then
			echo "alert $i: a rule that always fires passes its tests"; return 1
		fi || return 1
	done
'

test_expect_success PYTHON 'the dashboard: valid JSON, the panels of issue 12, PromQL without Grafana variables' '
	python3 - mon/sluice-dashboard.json >exprs <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	titles = " ".join(p["title"] for p in d["panels"]).lower()
	for want in ["gpu utilization", "temperature", "power", "infiniband", "queue depth", "wait time",
	             "pending jobs by reason", "node states", "drain", "account", "scheduler",
	             "top users", "top accounts", "active alerts"]:
	    assert want in titles, want
	ids = [p["id"] for p in d["panels"]]
	assert len(ids) == len(set(ids))
	for p in d["panels"]:
	    for t in p["targets"]:
	        assert "$" not in t["expr"], t["expr"]
	        print(t["expr"])
	EOF
	grep -qx "avg by (instance) (DCGM_FI_DEV_GPU_UTIL)" exprs &&
	grep -qx "count by (state) (slurm_node_state)" exprs
'

test_done
