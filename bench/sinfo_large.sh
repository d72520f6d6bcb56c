#!/bin/bash
# sinfo_large.sh: how fast the node views answer on a large cluster.
#
# A controller with 10,000 nodes (node[00001-10000], 64 CPUs, 8 GPUs each)
# in 20 partitions of 500 nodes, and no node daemons: the nodes stay
# UNKNOWN* until SlurmdTimeout, then DOWN* (set SlurmdTimeout=5 so the
# measurement covers DOWN nodes with a reason, the heavier case). A few
# nodes are drained with reasons so sinfo has several groups per partition.
# Times `sinfo`, `sinfo -N -l` and `scontrol show node` (one process per
# command, as an admin runs them) and prints the median of RUNS runs.
#
# Usage: bench/sinfo_large.sh [RUNS]   (key=value lines on stdout). Builds
# nothing: run `make` first (SLUICE_BUILD, default ./build). Every wait is
# bounded.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../t/cluster.sh"
RUNS=${1:-5}
NODES=${NODES:-10000}
NPARTS=${NPARTS:-20}
export PATH="${SLUICE_BUILD:-$here/../build}/bin:$PATH"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
time_cmd() { # time_cmd CMD...: median wall seconds of RUNS runs (output discarded)
	local i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo "scale=3; ($t1 - $t0) / 1000000000" | bc
	done | median
}

CL=$(mktemp -d /tmp/sluice-b.XXXXXX)
trap '[ -n "${SLUICE_KEEP:-}" ] || cluster_stop >/dev/null 2>&1' EXIT
mkdir -p "$CL/etc" "$CL/state" "$CL/spool" "$CL/log"
CTLD_PORT=$(pick_ports 2) || exit 1
per=$((NODES / NPARTS))
{
	echo "ClusterName=big"
	echo "SlurmctldHost=$(hostname -s)(127.0.0.1)"
	echo "SlurmctldPort=$CTLD_PORT"
	echo "AuthType=auth/slurm"
	echo "StateSaveLocation=$CL/state"
	echo "SlurmdSpoolDir=$CL/spool/%n"
	echo "SlurmctldLogFile=$CL/log/ctld.log"
	echo "SlurmctldPidFile=$CL/state/ctld.pid"
	echo "SelectType=select/cons_tres"
	echo "SelectTypeParameters=CR_Core_Memory"
	echo "GresTypes=gpu"
	echo "SlurmdTimeout=5"
	echo "NodeName=DEFAULT CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=1 RealMemory=512000 Gres=gpu:h100:8 Feature=h100,ib"
	printf 'NodeName=node[00001-%05d] Port=%d\n' "$NODES" $((CTLD_PORT + 1))
	for ((p = 0; p < NPARTS; p++)); do
		printf 'PartitionName=p%02d Nodes=node[%05d-%05d] MaxTime=INFINITE State=UP%s\n' \
			$((p + 1)) $((p * per + 1)) $(((p + 1) * per)) "$([ $p = 0 ] && echo ' Default=YES')"
	done
} >"$CL/etc/slurm.conf"
printf 'AutoDetect=off\nNodeName=node[00001-%05d] Name=gpu Type=h100 Count=8\n' "$NODES" >"$CL/etc/gres.conf"
sluice keygen "$CL/etc/slurm.key" 2>/dev/null ||
	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$CL/etc/slurm.key"
chmod 600 "$CL/etc/slurm.key"
export SLURM_CONF="$CL/etc/slurm.conf"
ctld_start || exit 1
# every node DOWN* with "Not responding", a few drained by hand
wait_for 30 sh -c "sinfo -h -t down -o %D | awk '{ s += \$1 } END { exit !(s == $NODES) }'"
for ((p = 0; p < NPARTS; p++)); do
	scontrol update nodename="$(printf 'node%05d' $((p * per + 7)))" state=drain reason="bad gpu $p" >/dev/null
done

echo "nodes=$NODES"
echo "partitions=$NPARTS"
echo "sinfo_lines=$(sinfo | wc -l)"
echo "sinfo_s=$(time_cmd sinfo)"
echo "sinfo_N_l_lines=$(sinfo -N -l | wc -l)"
echo "sinfo_N_l_s=$(time_cmd sinfo -N -l)"
echo "scontrol_show_node_s=$(time_cmd scontrol show node)"
echo "sinfo_json_s=$(time_cmd sinfo --json)"
echo "ctld_rss_kb=$(awk '/VmRSS/{print $2}' "/proc/$CTLD_PID/status")"
