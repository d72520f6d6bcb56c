#!/bin/bash
# Advance reservation benchmarks: what reservations cost the controller's
# RPCs and the commands that show them.
#
# Usage: bench/resv_ops.sh [NRESV] [NJOBS]   (defaults 200 and 500;
# key=value lines to stdout). Builds nothing: run `make all` first. On a
# cluster of 4 node daemons on loopback:
#   create_total_s      NRESV scontrol create reservation (one node each,
#                       different days), client wall time in all
#   create_ctld_us      the controller's average per create (sdiag)
#   sinfo_T_ms          sinfo -T with NRESV reservations (mean of 20)
#   show_res_ms         scontrol show reservation, all (mean of 20)
#   squeue_R_ms         squeue -R NAME with NJOBS held jobs spread over the
#                       reservations (mean of 20)
#   pass_us             the last scheduling pass with those jobs (sdiag)
set -e
NRESV=${1:-200}
NJOBS=${2:-500}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SLUICE_BUILD=${SLUICE_BUILD:-$ROOT/build}
SHARNESS_TEST_DIRECTORY=$ROOT/t/integration
. "$ROOT/t/cluster.sh"
trap cluster_stop EXIT
cluster_start 4 >/dev/null
now() { date +%s.%N; }
mean_ms() { # mean_ms N CMD...: mean wall ms of N runs
	local n=$1 t0 t1; shift
	t0=$(now); for _ in $(seq 1 "$n"); do "$@" >/dev/null; done; t1=$(now)
	echo "($t1 - $t0) * 1000 / $n" | bc -l | xargs printf '%.2f'
}
t0=$(now)
for i in $(seq 1 "$NRESV"); do
	scontrol create reservation ReservationName=b$i StartTime=now+${i}days Duration=60 \
		Nodes=comp00$((i % 4 + 1)) Users=root >/dev/null
done
t1=$(now)
echo "create_total_s=$(echo "$t1 - $t0" | bc -l | xargs printf '%.3f')"
echo "create_ctld_us=$(sdiag | sed -n 's/.*REQUEST_CREATE_RESERVATION *( 3006) count:[0-9]* *ave_time:\([0-9]*\).*/\1/p')"
echo "sinfo_T_ms=$(mean_ms 20 sinfo -T)"
echo "show_res_ms=$(mean_ms 20 scontrol show reservation)"
for i in $(seq 1 "$NJOBS"); do
	sbatch -H --reservation=b$((i % NRESV + 1)) -o /dev/null --wrap=true >/dev/null
done
echo "squeue_R_ms=$(mean_ms 20 squeue -h -R b7)"
scontrol release $(squeue -h -o %i | head -50 | tr '\n' ',' | sed 's/,$//') >/dev/null 2>&1 || true
sleep 2
echo "pass_us=$(sdiag | sed -n 's/^\tLast cycle: *\([0-9]*\)$/\1/p' | head -1)"
