#!/bin/bash
# The sacct benchmark of bench/acct.sh on real Slurm 22.05 (slurmdbd +
# MariaDB of ../shared/tools/realslurm), with the same records: N finished
# jobs, 10,000 a day ending at today's midnight, loaded with SQL straight
# into cluster_job_table (not by running jobs).
#
# It does not touch the shared accounting DB: it starts a private slurmdbd
# (port 16829, its own database a1_acct_db and MariaDB user a1user, made
# here with the MariaDB root socket of realslurm) and a private slurm.conf
# that points sacct at it. `bench/acct_slurm.sh clean` stops it and drops
# the database and the user.
#
# Usage: bench/acct_slurm.sh [N | clean]   (key=value lines on stdout)
set -uo pipefail
RS=${RS:-/tmp/realslurm}
D=${A1RS:-/tmp/a1rs}
N=${1:-1000000}
PER_DAY=10000
root_sql() { mysql -S "$RS/mysql/mysqld.sock" -uroot "$@"; }
my_sql() { mysql -h127.0.0.1 -P16306 -ua1user -pa1pw a1_acct_db "$@"; }
export SLURM_CONF=$D/slurm.conf MUNGE_SOCKET=$RS/munge/munge.socket

if [ "$N" = clean ]; then
	[ -f "$D/slurmdbd.pid" ] && kill "$(cat "$D/slurmdbd.pid")" 2>/dev/null
	sleep 2
	root_sql -e "DROP DATABASE IF EXISTS a1_acct_db; DROP USER IF EXISTS 'a1user'@'127.0.0.1';"
	rm -rf "$D"
	exit 0
fi

now() { date +%s.%N; }
calc() { echo "scale=${2:-2}; $1" | bc; }
latency_ms() {
	"$@" >/dev/null 2>&1
	for _ in 1 2 3 4 5; do
		local t0 t1
		t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
		calc "($t1 - $t0) * 1000 / 1" 1
	done | sort -n | sed -n 3p
}

if ! [ -f "$D/slurmdbd.pid" ] || ! kill -0 "$(cat "$D/slurmdbd.pid")" 2>/dev/null; then
	mkdir -p "$D"
	sed -e 's/^DbdPort=.*/DbdPort=16829/' -e "s#^LogFile=.*#LogFile=$D/slurmdbd.log#" \
	    -e "s#^PidFile=.*#PidFile=$D/slurmdbd.pid#" -e 's/^StorageLoc=.*/StorageLoc=a1_acct_db/' \
	    -e 's/^StorageUser=.*/StorageUser=a1user/' -e 's/^StoragePass=.*/StoragePass=a1pw/' \
	    "$RS/etc/slurmdbd.conf" >"$D/slurmdbd.conf"
	chmod 600 "$D/slurmdbd.conf"
	sed -e 's/^AccountingStoragePort=.*/AccountingStoragePort=16829/' "$RS/etc/slurm.conf" >"$D/slurm.conf"
	cp "$RS"/etc/{gres.conf,topology.conf,cgroup.conf} "$D/"
	root_sql -e "CREATE USER IF NOT EXISTS 'a1user'@'127.0.0.1' IDENTIFIED BY 'a1pw';
		GRANT ALL PRIVILEGES ON a1_acct_db.* TO 'a1user'@'127.0.0.1';" || exit 1
	/usr/sbin/slurmdbd || exit 1
	for _ in $(seq 1 50); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.2; done
	sacctmgr -i add cluster cluster >/dev/null
fi

midnight=$(date -d "today 00:00" +%s)
days=$(( (N + PER_DAY - 1) / PER_DAY ))
t0=$(( midnight - days * 86400 ))
assoc=$(my_sql -N -e "SELECT id_assoc FROM cluster_assoc_table WHERE acct='root' AND user='' LIMIT 1")
load0=$(now)
my_sql -e "DELETE FROM cluster_job_table;
INSERT INTO cluster_job_table(mod_time, deleted, account, cpus_req, exit_code, job_name, id_assoc,
  id_array_job, id_array_task, id_job, id_qos, id_resv, id_wckey, id_user, id_group, het_job_id,
  het_job_offset, kill_requid, state_reason_prev, mem_req, nodelist, nodes_alloc, node_inx, \`partition\`,
  priority, state, timelimit, time_submit, time_eligible, time_start, time_end, time_suspended,
  gres_used, wckey, work_dir, tres_alloc, tres_req)
SELECT $t0, 0, 'root', 4, IF(seq % 10 = 0, 256, 0), CONCAT('job', seq), ${assoc:-1}, 0, 4294967294,
  seq, 1, 0, 0, 0, 0, 0, 4294967294, 4294967295, 0, 4096, 'comp001', 1, '0', 'defq', 1000,
  IF(seq % 10 = 0, 5, 3), 60, $t0 + seq * 864 DIV 100, $t0 + seq * 864 DIV 100,
  $t0 + seq * 864 DIV 100 + 10, $t0 + seq * 864 DIV 100 + 70 + seq % 540, 0, '', '', '/home/u',
  '1=4,2=4096,4=1,5=4', '1=4,2=4096,4=1,5=4'
FROM seq_1_to_$N;" || exit 1
load1=$(now)
echo "slurm_records=$N"
echo "slurm_load_s=$(calc "$load1 - $load0" 1)"
echo "slurm_sacct_j_ms=$(latency_ms sacct -j $(( N / 2 )))"
sacct -n -X -P -j $(( N / 2 )) -o JobID,State | grep -q "^$(( N / 2 ))|" || echo "slurm sacct -j: wrong answer" >&2
d0=$(date -d "@$(( midnight - 2 * 86400 ))" +%Y-%m-%dT%H:%M:%S)
d1=$(date -d "@$(( midnight - 86400 ))" +%Y-%m-%dT%H:%M:%S)
echo "slurm_sacct_day_ms=$(latency_ms sacct -a -S "$d0" -E "$d1")"
echo "slurm_sacct_day_rows=$(sacct -a -n -S "$d0" -E "$d1" | wc -l)"
