#!/bin/bash
test_description='Logs for shipping: SluiceLogFormat=json makes every daemon
line one JSON object (time, level, daemon, node, job_id, message) that jq
reads as is; scontrol setdebug (operators only) changes the controller level;
SIGUSR2 reopens the log files after a rotation'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

command -v jq >/dev/null && test_set_prereq JQ
export CTLD_DAEMON=1 NODED_DAEMON=1

test_expect_success 'cluster starts with JSON logs' '
	cluster_start 1 "SluiceLogFormat=json" "SlurmctldDebug=info" "SlurmdDebug=debug"
'

test_expect_success JQ 'a job: every line of every daemon log is a JSON object with the fields' '
	cd "$CL/work" &&
	id=$(sbatch --parsable -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED &&
	echo $id >id &&
	for f in "$CL/log/ctld.log" "$CL/log/noded-comp001.log"; do
		test -s "$f" &&
		jq -e -c "select((.time|type)==\"string\" and (.level|type)==\"string\" and
			(.daemon|type)==\"string\" and (.node|type)==\"string\" and
			(.message|type)==\"string\") | .level" "$f" >levels &&
		test "$(wc -l <levels)" = "$(wc -l <"$f")" || return 1
	done &&
	jq -r .time "$CL/log/ctld.log" | head -1 |
		grep -Eq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}$"
'

test_expect_success JQ 'the lines about the job carry its id as a number, from both daemons' '
	id=$(cat "$CL/work/id") &&
	jq -r "select(.job_id == $id) | .message" "$CL/log/ctld.log" >ctld_job &&
	grep -q "ended: COMPLETED" ctld_job &&
	jq -r "select(.job_id == $id) | [.daemon, .node] | join(\" \")" "$CL/log/noded-comp001.log" | sort -u >noded_job &&
	grep -qx "slurmstepd comp001" noded_job &&
	jq -r "select(.job_id == null) | .message" "$CL/log/ctld.log" | grep -q "slurmctld\|version\|listening\|reconfigure\|node" &&
	jq -r "select(.job_id == $id and .level == \"verbose\") | .message" "$CL/log/noded-comp001.log" |
		grep -q "job $id: launched"
'

test_expect_success USERS 'scontrol setdebug: a user is refused, as Slurm' '
	test_expect_code 1 runuser -u alice -- scontrol setdebug debug 2>err &&
	test "$(cat err)" = "slurm_set_debug_level error: Permission denied"
'

test_expect_success 'scontrol setdebug: bad levels and arguments' '
	test_expect_code 1 scontrol setdebug bogus 2>err &&
	test "$(cat err)" = "invalid debug level: bogus" &&
	test_expect_code 1 scontrol setdebug 2>err &&
	test "$(cat err)" = "too few arguments for keyword:setdebug"
'

test_expect_success JQ 'scontrol setdebug debug2 makes the controller log debug lines; info stops them' '
	test "$(jq -r "select(.level==\"debug\") | .level" "$CL/log/ctld.log" | wc -l)" = 0 &&
	scontrol setdebug debug2 &&
	sbatch --parsable -o /dev/null --wrap=true >id2 &&
	wait_job_state $(cat id2) COMPLETED &&
	wait_for 10 sh -c "jq -r \"select(.level==\\\"debug\\\") | .level\" \"$CL/log/ctld.log\" | grep -q debug" &&
	scontrol setdebug info &&
	n=$(jq -r "select(.level==\"debug\") | .level" "$CL/log/ctld.log" | wc -l) &&
	scontrol ping >/dev/null && sinfo >/dev/null &&
	sleep 1 &&
	test "$(jq -r "select(.level==\"debug\") | .level" "$CL/log/ctld.log" | wc -l)" = "$n"
'

test_expect_success JQ 'SIGUSR2 reopens the log files (logrotate)' '
	mv "$CL/log/ctld.log" "$CL/log/ctld.log.1" &&
	mv "$CL/log/noded-comp001.log" "$CL/log/noded-comp001.log.1" &&
	kill -USR2 $(cat "$CL/ctld.pid") $(cat "$CL/noded-comp001.pid") &&
	wait_for 10 test -s "$CL/log/ctld.log" &&
	wait_for 10 test -s "$CL/log/noded-comp001.log" &&
	jq -e "select(.message == \"log reopened\")" "$CL/log/ctld.log" >/dev/null &&
	jq -e "select(.message == \"log reopened\")" "$CL/log/noded-comp001.log" >/dev/null
'

test_done
