#!/bin/bash
# The sreport benchmark of bench/acct_reports.sh on real Slurm 22.05
# (slurmdbd + MariaDB of ../shared/tools/realslurm) with the same data:
# 1,000 user associations (accounts acct0..acct49, users user1..user1000,
# user N in acct(N % 50)), and for a year before this month's first day
# a month row (24 CPU-seconds x its days) and a day row (24) per
# association, and the cluster's month and day rows, loaded with SQL into
# cluster_assoc_usage_{month,day}_table and cluster_usage_{month,day}_table.
#
# It does not touch the shared accounting DB: a private slurmdbd (port
# 16839, database rr_acct_db, MariaDB user rruser, made with the MariaDB
# root socket of realslurm) and a private slurm.conf pointing sreport at
# it. `bench/acct_reports_slurm.sh clean` stops it and drops both.
#
# The range is whole months (start=first of the month a year ago,
# end=first of this month): slurmdbd then reads its month table, as
# Sluice reads its month rows. Run bench/acct_reports.sh's Sluice side on
# the same range for the ratio (docs/benchmarks.md "sreport over a year").
#
# Usage: bench/acct_reports_slurm.sh [clean]   (key=value lines on stdout)
set -uo pipefail
RS=${RS:-/tmp/realslurm}
D=${RRRS:-/tmp/rrrs}
root_sql() { mysql -S "$RS/mysql/mysqld.sock" -uroot "$@"; }
my_sql() { mysql -h127.0.0.1 -P16306 -urruser -prrpw rr_acct_db "$@" 2>/dev/null; }
export SLURM_CONF=$D/slurm.conf MUNGE_SOCKET=$RS/munge/munge.socket

if [ "${1:-}" = clean ]; then
	[ -f "$D/slurmdbd.pid" ] && kill "$(cat "$D/slurmdbd.pid")" 2>/dev/null
	sleep 2
	root_sql -e "DROP DATABASE IF EXISTS rr_acct_db; DROP USER IF EXISTS 'rruser'@'127.0.0.1';"
	rm -rf "$D"
	exit 0
fi

. "$(dirname "$0")/median.sh"

if ! [ -f "$D/slurmdbd.pid" ] || ! kill -0 "$(cat "$D/slurmdbd.pid")" 2>/dev/null; then
	mkdir -p "$D"
	sed -e 's/^DbdPort=.*/DbdPort=16839/' -e "s#^LogFile=.*#LogFile=$D/slurmdbd.log#" \
	    -e "s#^PidFile=.*#PidFile=$D/slurmdbd.pid#" -e 's/^StorageLoc=.*/StorageLoc=rr_acct_db/' \
	    -e 's/^StorageUser=.*/StorageUser=rruser/' -e 's/^StoragePass=.*/StoragePass=rrpw/' \
	    "$RS/etc/slurmdbd.conf" >"$D/slurmdbd.conf"
	chmod 600 "$D/slurmdbd.conf"
	sed -e 's/^AccountingStoragePort=.*/AccountingStoragePort=16839/' "$RS/etc/slurm.conf" >"$D/slurm.conf"
	cp "$RS"/etc/{gres.conf,topology.conf,cgroup.conf} "$D/"
	root_sql -e "CREATE USER IF NOT EXISTS 'rruser'@'127.0.0.1' IDENTIFIED BY 'rrpw';
		GRANT ALL PRIVILEGES ON rr_acct_db.* TO 'rruser'@'127.0.0.1';" || exit 1
	/usr/sbin/slurmdbd || exit 1
	for _ in $(seq 1 50); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
	sacctmgr -i add cluster cluster >/dev/null
	for a in $(seq 0 49); do sacctmgr -i add account "acct$a" >/dev/null; done
	for a in $(seq 0 49); do
		users=$(seq 1 1000 | awk -v a="$a" '$1 % 50 == a { printf "%suser%d", n++ ? "," : "", $1 }')
		sacctmgr -i add user "$users" account="acct$a" >/dev/null 2>&1
	done
fi

Y0=$(date -d "$(date +%Y-%m-01) -12 months" +%s)
Y1=$(date -d "$(date +%Y-%m-01)" +%s)
M=""
for m in $(seq 0 11); do
	ms=$(date -d "$(date -d @"$Y0" +%Y-%m-01) +$m months" +%s)
	me=$(date -d "$(date -d @"$Y0" +%Y-%m-01) +$((m + 1)) months" +%s)
	M="$M${M:+ UNION ALL }SELECT $ms AS t, $(( (me - ms) / 86400 )) AS d"
done
ND=$(( (Y1 - Y0) / 86400 ))
my_sql -e "DELETE FROM cluster_assoc_usage_month_table; DELETE FROM cluster_usage_month_table;
DELETE FROM cluster_assoc_usage_day_table; DELETE FROM cluster_usage_day_table;
INSERT INTO cluster_assoc_usage_month_table(creation_time, mod_time, id, id_tres, time_start, alloc_secs)
  SELECT $Y0, $Y0, a.id_assoc, 1, m.t, 24 * m.d FROM cluster_assoc_table a, ($M) m WHERE a.user LIKE 'user%';
INSERT INTO cluster_usage_month_table(creation_time, mod_time, id_tres, time_start, count, alloc_secs,
  down_secs, idle_secs, plan_secs) SELECT $Y0, $Y0, 1, m.t, 16, 24000 * m.d, 240 * m.d, 138000 * m.d, 0 FROM ($M) m;
INSERT INTO cluster_assoc_usage_day_table(creation_time, mod_time, id, id_tres, time_start, alloc_secs)
  SELECT $Y0, $Y0, a.id_assoc, 1, $Y0 + (s.seq - 1) * 86400, 24 FROM cluster_assoc_table a, seq_1_to_$ND s
  WHERE a.user LIKE 'user%';
INSERT INTO cluster_usage_day_table(creation_time, mod_time, id_tres, time_start, count, alloc_secs,
  down_secs, idle_secs, plan_secs) SELECT $Y0, $Y0, 1, $Y0 + (s.seq - 1) * 86400, 16, 24000, 240, 138000, 0
  FROM seq_1_to_$ND s;" || exit 1
echo "slurm_assocs=$(my_sql -N -e "SELECT COUNT(*) FROM cluster_assoc_table WHERE user LIKE 'user%'")"
echo "slurm_assoc_month_rows=$(my_sql -N -e "SELECT COUNT(*) FROM cluster_assoc_usage_month_table")"
R="start=$(date -d @"$Y0" +%Y-%m-%dT00:00) end=$(date -d @"$Y1" +%Y-%m-%dT00:00)"
cd /tmp || exit 1
echo "slurm_sreport_util_months_ms=$(median5 sreport cluster Utilization $R)"
echo "slurm_sreport_acct_by_user_months_ms=$(median5 sreport cluster AccountUtilizationByUser $R)"
echo "slurm_sreport_user_by_acct_months_ms=$(median5 sreport cluster UserUtilizationByAccount $R)"
echo "slurm_sreport_top_months_ms=$(median5 sreport user TopUsage $R)"
echo "slurm_sreport_acct_by_user_lines=$(sreport cluster AccountUtilizationByUser $R | wc -l)"
