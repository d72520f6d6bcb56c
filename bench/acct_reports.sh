#!/bin/bash
# acct_reports.sh: sreport over a year of rollups and sshare -a with 1,000
# users, Sluice beside the real Slurm 22.05 of ../shared/tools/realslurm
# (when /tmp/realslurm/env.sh exists), as medians of 5 runs (sshare: 21)
# after 1 warm-up, one process per command as a user types them.
#
# Sluice: a 2-node cluster (t/cluster.sh); the controller is stopped, a
# year of rollups is loaded into its state DB with SQL (8,760 hour rows,
# 365 day rows and 12 month rows per TRES for the cluster, and day/month
# rows of 1,000 associations: what a year of rolling leaves behind), and it
# is started again. sshare's side is timed in process (bench/sshare_tree.c:
# the tree of 1,000 users needs sacctmgr to be built end to end).
#
# Slurm: `sreport cluster Utilization` over the same year on its own
# database (whatever rollups it has; bench/acct_reports_slurm.sh loads the
# same year into a private slurmdbd instead), and `sshare -a` after
# adding an account a5bench with 1,000 users a5u0001.. (removed at the end).
#
# Usage: SLUICE_BUILD=$PWD/build bench/acct_reports.sh
# Prints key=value lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${SLUICE_BUILD:=$here/../build}"
export PATH="$SLUICE_BUILD/bin:$PATH"
SHARNESS_TEST_DIRECTORY=$here/../t/integration
. "$here/../t/cluster.sh"

. "$here/median.sh"

Y0=$(date -d "$(date +%Y-%m-01) -12 months" +%s)
NOW=$(date +%s)
START=$(date -d @"$Y0" +%Y-%m-%dT00:00)

cluster_start 2 >/dev/null || exit 1
kill "$CTLD_PID"; wait_gone "$CTLD_PID"
db=$CL/state/sluice.db
H=$(( (NOW - Y0) / 3600 ))
sqlite3 "$db" <<EOF
BEGIN;
WITH RECURSIVE h(t) AS (SELECT $Y0 UNION ALL SELECT t + 3600 FROM h WHERE t + 3600 < $Y0 + $H * 3600),
  k(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM k WHERE x < 4)
INSERT OR REPLACE INTO acct_rollup_cluster(period, time, tres, alloc, down, pdown, idle, planned, reported)
  SELECT 0, t, x, 1000, 10, 0, 5750, 0, 57600 FROM h, k;
WITH RECURSIVE d(t) AS (SELECT $Y0 UNION ALL SELECT t + 86400 FROM d WHERE t + 86400 < $NOW - 86400),
  k(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM k WHERE x < 4)
INSERT OR REPLACE INTO acct_rollup_cluster(period, time, tres, alloc, down, pdown, idle, planned, reported)
  SELECT 1, t, x, 24000, 240, 0, 138000, 0, 1382400 FROM d, k;
WITH RECURSIVE d(t) AS (SELECT $Y0 UNION ALL SELECT t + 86400 FROM d WHERE t + 86400 < $NOW - 86400),
  a(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM a WHERE id < 1000)
INSERT OR REPLACE INTO acct_rollup_assoc(period, time, assoc_id, tres, account, user, lineage, alloc)
  SELECT 1, t, id, 0, 'acct' || (id % 50), 'user' || id, 'root/acct' || (id % 50), 24 FROM d, a;
INSERT OR REPLACE INTO meta(key, value) VALUES('rollup_hour', $((Y0 + H * 3600)));
COMMIT;
EOF
# month rows from the day rows, as the controller makes them
for m in $(seq 0 11); do
	ms=$(date -d "$(date -d @"$Y0" +%Y-%m-01) +$m months" +%s)
	me=$(date -d "$(date -d @"$Y0" +%Y-%m-01) +$((m + 1)) months" +%s)
	sqlite3 "$db" "INSERT OR REPLACE INTO acct_rollup_cluster SELECT 2, $ms, tres, SUM(alloc), SUM(down),
		SUM(pdown), SUM(idle), SUM(planned), SUM(reported) FROM acct_rollup_cluster WHERE period = 1
		AND time >= $ms AND time < $me GROUP BY tres;
		INSERT OR REPLACE INTO acct_rollup_assoc SELECT 2, $ms, assoc_id, tres, MAX(account), MAX(user),
		MAX(lineage), SUM(alloc) FROM acct_rollup_assoc WHERE period = 1 AND time >= $ms AND time < $me
		GROUP BY assoc_id, tres"
done
rows=$(sqlite3 "$db" "SELECT (SELECT COUNT(*) FROM acct_rollup_cluster) + (SELECT COUNT(*) FROM acct_rollup_assoc)")
ctld_start >/dev/null || exit 1
echo "sluice_rollup_rows=$rows"
echo "sluice_sreport_util_year_ms=$(median5 sreport cluster Utilization start=$START end=now)"
echo "sluice_sreport_acct_by_user_year_ms=$(median5 sreport cluster AccountUtilizationByUser start=$START end=now)"
echo "sluice_sreport_top_year_ms=$(median5 sreport user TopUsage start=$START end=now)"
# whole months (a year to this month's first day), the range of
# bench/acct_reports_slurm.sh: Slurm 22.05 at the same data
MR="start=$START end=$(date +%Y-%m-01T00:00)"
echo "sluice_sreport_util_months_ms=$(median5 sreport cluster Utilization $MR)"
echo "sluice_sreport_acct_by_user_months_ms=$(median5 sreport cluster AccountUtilizationByUser $MR)"
echo "sluice_sreport_user_by_acct_months_ms=$(median5 sreport cluster UserUtilizationByAccount $MR)"
# sshare -a end to end (median of 21) on the tree Slurm gets below: an account with
# 1,000 users, made with sacctmgr as an admin would
users=$(seq -f 'a5u%04g' 1 1000 | paste -sd,)
sacctmgr -i add account a5bench >/dev/null 2>&1
sacctmgr -i add user "$users" account=a5bench >/dev/null 2>&1
echo "sluice_sshare_users=$(sshare -a -n -P | grep -c '|a5u')"
echo "sluice_sshare_a_ms=$(median_of 21 sshare -a)"
echo "sluice_sshare_al_ms=$(median_of 21 sshare -a -l)"
echo "sluice_sreport_top_months_ms=$(median5 sreport user TopUsage $MR)"
cluster_stop >/dev/null 2>&1

make -s -C "$here/.." BUILD="$SLUICE_BUILD" "$SLUICE_BUILD/bench/sshare_tree" >/dev/null 2>&1 &&
	"$SLUICE_BUILD/bench/sshare_tree" 1000 2>/dev/null | tr ' ' '\n' | grep = | sed 's/^/sluice_/'

if [ -r /tmp/realslurm/env.sh ]; then
	(
	# Slurm's commands, not this build's (which come first on PATH above)
	PATH=$(echo "$PATH" | tr : '\n' | grep -vxF "$SLUICE_BUILD/bin" | paste -sd:)
	. /tmp/realslurm/env.sh
	cd /tmp || exit 1
	echo "slurm_sreport_util_year_ms=$(median5 sreport cluster Utilization start=$START end=now)"
	echo "slurm_sreport_acct_by_user_year_ms=$(median5 sreport cluster AccountUtilizationByUser start=$START end=now)"
	users=$(seq -f 'a5u%04g' 1 1000 | paste -sd,)
	sacctmgr -i add account a5bench >/dev/null 2>&1
	sacctmgr -i add user "$users" account=a5bench >/dev/null 2>&1
	# the controller learns the new associations from slurmdbd: wait
	for i in $(seq 1 60); do
		[ "$(sshare -a -n -P 2>/dev/null | grep -c '|a5u')" -ge 1000 ] && break
		sleep 1
	done
	echo "slurm_sshare_users=$(sshare -a -n -P | grep -c '|a5u')"
	echo "slurm_sshare_a_ms=$(median_of 21 sshare -a)"
	echo "slurm_sshare_al_ms=$(median_of 21 sshare -a -l)"
	sacctmgr -i delete user "$users" account=a5bench >/dev/null 2>&1
	sacctmgr -i delete user "$users" >/dev/null 2>&1
	sacctmgr -i delete account a5bench >/dev/null 2>&1
	)
fi
