#!/bin/bash
test_description='the real Prometheus scrapes a test cluster with the config
`sluice monitoring init` writes: controller and node daemons (fake NVML with 4
GPUs, a fake InfiniBand tree) are up, every PromQL expression of the rules
and the dashboard evaluates, the queries sites rely on return data, GPU series
carry the job holding the GPU, and the rules fire on a real scrape'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

SRC=$(cd "$SHARNESS_TEST_DIRECTORY/../.." && pwd)
command -v prometheus >/dev/null && command -v curl >/dev/null && command -v python3 >/dev/null &&
	test_set_prereq PROM

prom_stop() { [ -n "${PROM_PID:-}" ] && kill "$PROM_PID" 2>/dev/null; wait_gone "${PROM_PID:-0}"; return 0; }
trap 'sluice_rc=$?; prom_stop; cluster_stop || sluice_rc=1; (exit $sluice_rc); die' EXIT

# q EXPR: the instant query's JSON answer.
q() { curl -sfG "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"; }
# has_data EXPR: the query returns at least one series.
has_data() {
	q "$1" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"]=="success" and d["data"]["result"] else 1)'
}

# A fake InfiniBand tree: one active EDR port whose symbol errors grow.
ib_tree() {
	local p="$1/class/infiniband/mlx5_0/ports/1"
	mkdir -p "$p/counters" &&
	echo "4: ACTIVE" >"$p/state" && echo "5: LinkUp" >"$p/phys_state" &&
	echo "100 Gb/sec (4X EDR)" >"$p/rate" && echo InfiniBand >"$p/link_layer" &&
	for c in port_rcv_data port_xmit_data port_rcv_packets port_xmit_packets symbol_error \
		link_downed port_rcv_errors port_xmit_discards; do echo 0 >"$p/counters/$c"; done
}

test_expect_success PROM 'a cluster with controller and node metrics, fake GPUs and IB' '
	cc -shared -fPIC -o "$PWD/libfake-nvml.so" "$SRC/t/unit/fake_nvml.c" &&
	ib_tree "$PWD/sys" &&
	cluster_write_conf 2 &&
	until MP=$(pick_ports 3) && [ "$MP" -gt $((CTLD_PORT + 3)) ]; do :; done &&
	PROM_PORT=$(pick_ports 1) &&
	echo "s3cret-$RANDOM$RANDOM" >"$CL/etc/metrics.token" && chmod 600 "$CL/etc/metrics.token" &&
	printf "%s\n" "MetricsType=metrics/openmetrics" "MetricsPort=$MP" \
		"SlurmdMetricsPort=+$((MP - CTLD_PORT))" "MetricsTokenFile=$CL/etc/metrics.token" >>"$CL/etc/slurm.conf" &&
	ctld_start &&
	for n in comp001 comp002; do
		SLUICE_NVML_LIB="$PWD/libfake-nvml.so" FAKE_NVML_COUNT=4 FAKE_NVML_SET="1.dbe=2" \
			SLUICE_SYSFS_ROOT="$PWD/sys" noded_start $n || return 1
	done &&
	wait_for 30 nodes_idle &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$((MP + 1))/metrics")" = 401 &&
	wait_for 10 curl -sf -H "Authorization: Bearer $(cat "$CL/etc/metrics.token")" \
		"http://127.0.0.1:$((MP + 1))/metrics" -o node.prom &&
	grep -q "^DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"" node.prom &&
	grep -q "^infiniband_port_state_id{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 4" node.prom
'

test_expect_success PROM 'a job on GPUs of comp001' '
	JOB=$(sbatch --parsable -w comp001 --gres=gpu:2 -o /dev/null --wrap="sleep 120") &&
	wait_job_state "$JOB" RUNNING 20
'

test_expect_success PROM 'monitoring init for the cluster; Prometheus starts with it' '
	sluice monitoring init --interval 1 -f "$CL/etc/slurm.conf" mon >/dev/null 2>err &&
	test_must_be_empty err &&
	(cd mon && promtool check config prometheus.yml >/dev/null) &&
	{ prometheus --config.file=mon/prometheus.yml --storage.tsdb.path="$PWD/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >prom.log 2>&1 & } &&
	PROM_PID=$! &&
	wait_for 30 curl -sf "http://127.0.0.1:$PROM_PORT/-/ready"
'

test_expect_success PROM 'the controller and both node daemons are up (Prometheus sends the token)' '
	grep -q "credentials_file: .$CL/etc/metrics.token.$" mon/prometheus.yml &&
	wait_for 30 has_data "up{job=\"sluice-ctld\"} == 1" &&
	wait_for 30 sh -c "test \"\$(curl -sfG http://127.0.0.1:$PROM_PORT/api/v1/query --data-urlencode \"query=count(up{job=\\\"sluice-nodes\\\"} == 1)\" |
		python3 -c \"import json,sys; r=json.load(sys.stdin)[\\\"data\\\"][\\\"result\\\"]; print(r[0][\\\"value\\\"][1] if r else 0)\")\" = 2"
'

test_expect_success PROM 'the queries sites rely on return data' '
	wait_for 30 has_data "avg by (instance) (DCGM_FI_DEV_GPU_UTIL)" &&
	wait_for 30 has_data "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0" &&
	wait_for 30 has_data "count by (state) (slurm_node_state)" &&
	# the IB symbol errors grow between scrapes
	for i in 1 2 3 4 5 6; do
		echo $((i * 7)) >"$PWD/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error" &&
		sleep 1 || return 1
	done &&
	wait_for 30 has_data "rate(infiniband_port_errors_total[5m]) > 0"
'

test_expect_success PROM 'GPU series carry the job holding the GPU' '
	wait_for 30 has_data "DCGM_FI_DEV_GPU_UTIL{Hostname=\"comp001\",job_id=\"$JOB\",user=\"root\"}" &&
	test "$(q "count(DCGM_FI_DEV_GPU_UTIL{job_id=\"$JOB\"})" |
		python3 -c "import json,sys; print(json.load(sys.stdin)[\"data\"][\"result\"][0][\"value\"][1])")" = 2 &&
	has_data "sluice_job_gpus{job_id=\"$JOB\"} == 2"
'

test_expect_success PROM 'every expression of the rules and the dashboard evaluates without error' '
	python3 - mon/sluice-alerts.yml mon/sluice-dashboard.json >exprs <<-\EOF &&
	import json, sys, yaml
	for g in yaml.safe_load(open(sys.argv[1]))["groups"]:
	    for r in g["rules"]:
	        print(r["expr"])
	for p in json.load(open(sys.argv[2]))["panels"]:
	    for t in p["targets"]:
	        print(t["expr"])
	EOF
	test "$(wc -l <exprs)" -ge 30 &&
	while read -r e; do
		q "$e" >ans || { echo "query failed: $e"; return 1; }
		grep -q "\"status\":\"success\"" ans || { echo "error for: $e"; cat ans; return 1; }
	done <exprs
'

test_expect_success PROM 'the rules fire on what was scraped: ECC errors on comp001 and comp002' '
	wait_for 30 has_data "ALERTS{alertname=\"SluiceGpuEccUncorrectable\",Hostname=\"comp001\",gpu=\"1\"}" &&
	has_data "ALERTS{alertname=\"SluiceGpuEccUncorrectable\",Hostname=\"comp002\",gpu=\"1\"}" &&
	! has_data "ALERTS{alertname=\"SluiceGpuEccUncorrectable\",gpu=\"0\"}"
'

test_expect_success PROM 'SIGHUP with a changed SlurmdMetricsPort: said to need a restart, old port kept' '
	off=$(sed -n "s/^SlurmdMetricsPort=+//p" "$CL/etc/slurm.conf") &&
	sed -i "s/^SlurmdMetricsPort=.*/SlurmdMetricsPort=+$((off + 100))/" "$CL/etc/slurm.conf" &&
	kill -HUP "$(cat "$CL/noded-comp001.pid")" &&
	wait_for 10 grep -q "reconfigure: SlurmdMetricsPort changed (.*): needs a restart" "$CL/log/noded-comp001.stderr" &&
	curl -sf -H "Authorization: Bearer $(cat "$CL/etc/metrics.token")" "http://127.0.0.1:$((MP + 1))/livez"
'

test_expect_success PROM 'a stopped node daemon is down for Prometheus' '
	noded_kill comp002 &&
	wait_for 30 has_data "up{job=\"sluice-nodes\",node=\"comp002\"} == 0" &&
	scancel "$JOB"
'

test_done
