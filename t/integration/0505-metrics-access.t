#!/bin/bash
test_description='metrics port access control (bearer token, allow-list) and hostile HTTP clients'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v curl >/dev/null && command -v python3 >/dev/null && test_set_prereq CURL
# Memory growth means nothing under ASan (quarantine, shadow) or valgrind.
ldd "$SLUICE_BUILD/sluice" 2>/dev/null | grep -q libasan || [ -n "${SLUICE_VALGRIND:-}" ] ||
	test_set_prereq NATIVE

MPORT=$(pick_ports 1)
url() { echo "http://127.0.0.1:$MPORT$1"; }
# code SRC [curl args...]: the status of GET /metrics from source address SRC
code() { local src=$1; shift; curl -s -o /dev/null -w %{http_code} --interface "$src" "$@" "$(url /metrics)"; }
value() { awk -v s="$2" 'index($0, s " ") == 1 { print $NF; found = 1; exit } END { if (!found) print "missing" }' "$1"; }
TOKEN=tok-$$-$RANDOM
# Outside the trash directory (its name has a space).
TOKDIR=$(mktemp -d /tmp/sluice-tok.XXXXXX)
TOKFILE=$TOKDIR/metrics.token

test_expect_success CURL 'a token file readable by others is refused at start, naming the fix' '
	cluster_write_conf 1 "MetricsType=metrics/openmetrics" "MetricsPort=$MPORT" \
		"MetricsTokenFile=$TOKFILE" "MetricsAllowFrom=127.0.0.2,127.0.0.3/32" &&
	echo "$TOKEN" >"$TOKFILE" && chmod 644 "$TOKFILE" &&
	test_must_fail sluice ctld 2>err &&
	grep -q "token file .*metrics.token.* is mode 0644, readable by group or others: chmod 600" err
'

test_expect_success CURL 'with a 0600 token file the cluster starts' '
	chmod 600 "$TOKFILE" &&
	ctld_start && noded_start comp001 && wait_for 30 nodes_idle
'

test_expect_success CURL 'an address outside the allow-list gets 403, token or not' '
	test "$(code 127.0.0.1 -H "Authorization: Bearer $TOKEN")" = 403 &&
	test "$(code 127.0.0.4)" = 403
'

test_expect_success CURL 'an allowed address without the right token gets 401' '
	test "$(code 127.0.0.2)" = 401 &&
	test "$(code 127.0.0.2 -H "Authorization: Bearer wrong")" = 401 &&
	test "$(code 127.0.0.2 -H "Authorization: Bearer ${TOKEN}x")" = 401 &&
	curl -s -D hdr -o /dev/null --interface 127.0.0.2 "$(url /metrics)" &&
	grep -qi "^WWW-Authenticate: Bearer" hdr
'

test_expect_success CURL 'an allowed address with the token gets the metrics; refusals are counted' '
	curl -sf --interface 127.0.0.3 -H "Authorization: Bearer $TOKEN" "$(url /metrics)" >m.txt &&
	test "$(value m.txt slurm_nodes)" = 1 &&
	test "$(value m.txt "sluice_metrics_refused_total{reason=\"address\"}")" = 2 &&
	test "$(value m.txt "sluice_metrics_refused_total{reason=\"token\"}")" = 4
'

test_expect_success CURL 'idle connections are capped per address and cut at the deadline; others are served meanwhile' '
	rss0=$(awk "/^VmRSS/ {print \$2}" /proc/$CTLD_PID/status) &&
	{ python3 "$SHARNESS_TEST_DIRECTORY/../http_dos.py" idle $MPORT 127.0.0.2 200 ready >closed & } &&
	dos=$! &&
	wait_for 20 test -e ready &&
	test "$(code 127.0.0.3 -H "Authorization: Bearer $TOKEN")" = 200 &&
	scontrol ping >/dev/null && squeue >/dev/null &&
	curl -sf --interface 127.0.0.3 -H "Authorization: Bearer $TOKEN" "$(url /metrics)" >m.txt &&
	test "$(value m.txt sluice_metrics_connections)" -le 17 &&
	wait_for 30 sh -c "curl -sf --interface 127.0.0.3 -H \"Authorization: Bearer $TOKEN\" \"$(url /metrics)\" |
		awk \"/^sluice_metrics_refused_total.reason=.timeout/ { exit !(\\\$2 >= 8) }\"" &&
	kill $dos && wait $dos; true &&
	rss1=$(awk "/^VmRSS/ {print \$2}" /proc/$CTLD_PID/status) &&
	echo "# controller RSS $rss0 -> $rss1 kB" &&
	echo $((rss1 - rss0)) >rss_growth
'

test_expect_success CURL,NATIVE 'the idle connections cost the controller under 20 MB' '
	test "$(cat rss_growth)" -lt 20000
'

test_expect_success CURL 'a trickled request is cut within the deadline (10 s)' '
	t=$(python3 "$SHARNESS_TEST_DIRECTORY/../http_dos.py" slowloris $MPORT 127.0.0.2 30) &&
	echo "# cut after $t s" &&
	test "$t" != open && test "$t" -le 13
'

test_expect_success CURL 'an oversized request is refused, the controller serves on' '
	r=$(python3 "$SHARNESS_TEST_DIRECTORY/../http_dos.py" huge $MPORT 127.0.0.2 64) &&
	echo "# huge request: $r" &&
	case "$r" in 431|414|400|closed) ;; *) false ;; esac &&
	test "$(code 127.0.0.3 -H "Authorization: Bearer $TOKEN")" = 200 &&
	scontrol ping >/dev/null
'

rm -rf "$TOKDIR"
test_done
