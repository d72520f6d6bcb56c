#!/bin/bash
test_description='sreport over reservations made with scontrol: reservation Utilization of jobs run in one, PLND Down of a MAINT one'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# End to end once reservations exist (scontrol create reservation and
# sbatch --reservation, the resv branch): the controller writes the
# acct_resv records and the jobs' records, sreport reads them. Skipped
# while scontrol cannot create a reservation. An "hour" of the rollups
# lasts 4 s (SLUICE_ROLLUP_HOUR_S, as 0480) for PLND Down.
export SLUICE_ROLLUP_HOUR_S=4
m=$(date +%-M)
[ "$m" -lt 57 ] || sleep $(( (60 - m) * 60 - $(date +%-S) + 1 ))
START=$(date +%Y-%m-%dT%H:00)

test_expect_success 'cluster of 2 nodes' '
	cluster_start 2
'

if scontrol create reservation ReservationName=rr_probe StartTime=now+1day Duration=1 \
	Nodes=comp001 Users=root >/dev/null 2>&1; then
	scontrol delete ReservationName=rr_probe >/dev/null 2>&1
	test_set_prereq RESV
fi

test_expect_success RESV 'two jobs in a reservation: Allocated is their CPU time, Idle the rest' '
	scontrol create reservation ReservationName=rr_t StartTime=now Duration=10 \
		Nodes=comp[001-002] Users=root &&
	cpus=$(scontrol show reservation rr_t | tr " " "\n" | sed -n "s/^TRES=cpu=\([0-9]*\).*/\1/p") &&
	test "$cpus" -gt 0 &&
	a=$(sbatch --parsable --reservation=rr_t -n 1 -o /dev/null --wrap="sleep 3") &&
	b=$(sbatch --parsable --reservation=rr_t -n 2 -o /dev/null --wrap="sleep 2") &&
	wait_job_state $a COMPLETED 30 && wait_job_state $b COMPLETED 30 &&
	el() { sacct -n -X -P -j $1 -o ElapsedRaw,AllocCPUS | awk -F"|" "{ print \$1 * \$2 }"; } &&
	used=$(( $(el $a) + $(el $b) )) &&
	test "$used" -gt 0 &&
	sreport -n -P -t seconds reservation Utilization Names=rr_t start=$START end=now >rows &&
	IFS="|" read -r cl name s e tres alloc idle <rows &&
	test "$name" = rr_t && test "$tres" = cpu &&
	test "$alloc" = "$used" &&
	test $((alloc + idle)) = $((cpus * 600)) &&
	scontrol delete ReservationName=rr_t
'

test_expect_success RESV 'a MAINT reservation: PLND Down in cluster Utilization' '
	scontrol create reservation ReservationName=rr_m StartTime=now Duration=1 \
		Nodes=comp001 Users=root Flags=MAINT &&
	wait_for 30 sh -c "test \$(sreport -n -P -t seconds cluster Utilization start=$START end=now | cut -d\"|\" -f4) -gt 0" &&
	sreport -n -P -t seconds cluster Utilization start=$START end=now >rows &&
	IFS="|" read -r cl alloc down pdown idle planned rep <rows &&
	test $((alloc + down + pdown + idle + planned)) = "$rep" &&
	scontrol delete ReservationName=rr_m
'

test_expect_success 'stop' '
	cluster_stop
'

test_done
