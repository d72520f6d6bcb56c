#!/bin/bash
test_description='advance reservations: scontrol create/update/delete/show reservation, sinfo -T, access, persistence'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts' '
	cluster_start 4
'

as() { local u=$1; shift; (cd "$CL/work" && runuser -u "$u" -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" "$@"); }

test_expect_success 'no reservations yet' '
	scontrol show reservation >out && echo "No reservations in the system" >expect &&
	test_cmp expect out
'

test_expect_success 'create: named nodes get SPEC_NODES, shown as Slurm shows them' '
	scontrol create reservation ReservationName=maint1 StartTime=now Duration=60 \
		Nodes=comp[003-004] Users=root,alice Flags=MAINT,IGNORE_JOBS >out 2>err &&
	test_must_be_empty err &&
	echo "Reservation created: maint1" >expect && test_cmp expect out &&
	scontrol show res maint1 >out &&
	grep -q "^ReservationName=maint1 StartTime=[0-9T:-]* EndTime=[0-9T:-]* Duration=01:00:00$" out &&
	grep -q "^   Nodes=comp\[003-004\] NodeCnt=2 CoreCnt=[0-9]* Features=(null) PartitionName=(null) Flags=MAINT,IGNORE_JOBS,SPEC_NODES$" out &&
	grep -q "^   TRES=cpu=[0-9]*$" out &&
	grep -q "^   Users=root,alice Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE BurstBuffer=(null) Watts=n/a$" out &&
	grep -q "^   MaxStartDelay=(null)$" out &&
	test "$(wc -l <out)" = 6 && test -z "$(tail -1 out)"
'

test_expect_success 'show -o is one line; show of an unknown one fails' '
	scontrol show res -o maint1 >out && test "$(wc -l <out)" = 1 &&
	grep -q "^ReservationName=maint1 .* Flags=MAINT,IGNORE_JOBS,SPEC_NODES TRES=cpu=[0-9]* Users=root,alice .* MaxStartDelay=(null)$" out &&
	test_expect_code 1 scontrol show reservation nosuch >out &&
	echo "Reservation nosuch not found" >expect && test_cmp expect out
'

test_expect_success 'nodes of an active MAINT reservation show maint / MAINTENANCE+RESERVED' '
	sinfo -h -N -p defq -n comp003 -o "%t %T" >out && echo "maint maint" >expect && test_cmp expect out &&
	scontrol show node comp003 | grep -q "State=IDLE+MAINTENANCE+RESERVED "
'

test_expect_success 'create by NodeCnt picks idle nodes; generated name <user>_<id>' '
	scontrol create reservation StartTime=now+1hour Duration=30 NodeCnt=1 Users=alice >out &&
	echo "Reservation created: alice_2" >expect && test_cmp expect out &&
	scontrol show res alice_2 | grep -q "Nodes=comp001 NodeCnt=1 .* Flags=$" &&
	scontrol show res alice_2 | grep -q "State=INACTIVE"
'

test_expect_success 'sinfo -T lists them with Slurm columns' '
	sinfo -T >out &&
	head -1 out >actual &&
	echo "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST" >expect &&
	test_cmp expect actual &&
	grep -q "^maint1       ACTIVE  [0-9T:-]\{19\}  [0-9T:-]\{19\}     01:00:00  comp\[003-004\]$" out &&
	grep -q "^alice_2    INACTIVE  .*     00:30:00  comp001$" out
'

test_expect_success 'client-side errors as Slurm prints them' '
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp001 Users=alice Flags=FOO 2>err &&
	echo "scontrol: error: Error parsing flags FOO.  No reservation created." >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp001 2>err &&
	echo "scontrol: error: Either Users/Groups and/or Accounts must be specified.  No reservation created." >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=garbage Duration=10 Nodes=comp001 Users=alice 2>err &&
	printf "Invalid time specification (pos=0): garbage\nscontrol: error: Invalid start time StartTime=garbage.  No reservation created.\n" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp001 Users=alice Foo=bar 2>err &&
	echo "scontrol: error: Unknown parameter Foo=bar.  No reservation created." >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x Duration=10 Nodes=comp001 Users=alice 2>err &&
	echo "scontrol: error: A start time must be given.  No reservation created." >expect && test_cmp expect err
'

test_expect_success 'controller errors as Slurm prints them' '
	test_expect_code 1 scontrol create reservation ReservationName=maint1 StartTime=now Duration=10 Nodes=comp001 Users=alice 2>err &&
	echo "Error creating the reservation: Duplicate reservation name" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp099 Users=alice 2>err &&
	echo "Error creating the reservation: Invalid node name specified" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp001 Users=nosuchuser 2>err &&
	echo "Error creating the reservation: Invalid user id" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now+1hour Duration=10 Nodes=comp001 Users=alice 2>err &&
	echo "Error creating the reservation: Requested reservation overlaps with another reservation" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol delete reservation nosuch 2>err &&
	echo "delete_reservation reservation: Requested reservation is invalid" >expect && test_cmp expect err &&
	test_expect_code 1 scontrol update ReservationName=nosuch Duration=5 2>err &&
	printf "Error updating the reservation: Requested reservation is invalid\nslurm_update error: Requested reservation is invalid\n" >expect && test_cmp expect err
'

test_expect_success 'a running job makes its nodes busy (no IGNORE_JOBS)' '
	id=$(sbatch --parsable -w comp002 -o /dev/null --wrap="sleep 300") &&
	wait_job_state $id RUNNING &&
	test_expect_code 1 scontrol create reservation ReservationName=x StartTime=now Duration=10 Nodes=comp002 Users=alice 2>err &&
	echo "Error creating the reservation: Requested nodes are busy" >expect && test_cmp expect err &&
	scancel $id
'

test_expect_success USERS 'only operators create, update, delete (Slurm: Invalid user id)' '
	test_expect_code 1 as alice scontrol create reservation ReservationName=a1 StartTime=now Duration=10 Nodes=comp002 Users=alice 2>err &&
	echo "Error creating the reservation: Invalid user id" >expect && test_cmp expect err &&
	test_expect_code 1 as alice scontrol delete reservation maint1 2>err &&
	echo "delete_reservation reservation: Invalid user id" >expect && test_cmp expect err &&
	as alice scontrol show res maint1 >out && grep -q "^ReservationName=maint1 " out
'

test_expect_success 'update: duration, users and flags; update of a bad flag' '
	scontrol update ReservationName=alice_2 Duration=45 Users=alice,bob Flags=OVERLAP,DAILY >out &&
	echo "Reservation updated." >expect && test_cmp expect out &&
	scontrol show res alice_2 | grep -q "Duration=00:45:00$" &&
	scontrol show res alice_2 | grep -q "Flags=OVERLAP,DAILY$" &&
	scontrol show res alice_2 | grep -q "Users=alice,bob " &&
	scontrol update reservation ReservationName=alice_2 Flags=-DAILY >out &&
	scontrol show res alice_2 | grep -q "Flags=OVERLAP$" &&
	test_expect_code 1 scontrol update ReservationName=alice_2 Flags=-OVERLAP 2>err &&
	printf "scontrol: error: Error parsing flags -OVERLAP.  No reservation update.\nslurm_update error: No error\n" >expect &&
	test_cmp expect err &&
	test_expect_code 1 scontrol update ReservationName=alice_2 Flags=BAD 2>err &&
	printf "scontrol: error: Error parsing flags BAD.  No reservation update.\nslurm_update error: No error\n" >expect &&
	test_cmp expect err
'

test_expect_success USERS 'submission: unknown reservation, user not admitted' '
	test_expect_code 1 as bob sbatch --reservation=nosuch -o /dev/null --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Requested reservation is invalid" >expect &&
	test_cmp expect err &&
	test_expect_code 1 as bob sbatch --reservation=maint1 -o /dev/null --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Access denied to requested reservation" >expect &&
	test_cmp expect err &&
	test_expect_code 1 as bob env SBATCH_RESERVATION=maint1 sbatch -o /dev/null --wrap=true 2>err &&
	test_cmp expect err &&
	test_expect_code 1 as bob srun --reservation=nosuch true 2>err &&
	echo "srun: error: Unable to allocate resources: Requested reservation is invalid" >expect &&
	test_cmp expect err &&
	test_expect_code 1 as bob salloc --reservation=maint1 true 2>err &&
	echo "salloc: error: Job submit/allocate failed: Access denied to requested reservation" >expect &&
	test_cmp expect err
'

test_expect_success USERS 'a job in a reservation shows it (scontrol Reservation=, squeue %v and -R)' '
	id=$(as alice sbatch --parsable -H --reservation=alice_2 -o /dev/null --wrap=true) &&
	test "$(job_field $id Reservation)" = alice_2 &&
	squeue -h -j $id -o "%i %v" >out && echo "$id alice_2" >expect && test_cmp expect out &&
	squeue -h -R alice_2 -o %i >out && echo "$id" >expect && test_cmp expect out &&
	squeue -h -R maint1 -o %i >out && test_must_be_empty out
'

test_expect_success USERS 'delete of a reservation a job asks for: in use' '
	test_expect_code 1 scontrol delete reservation alice_2 2>err &&
	echo "delete_reservation reservation: Requested reservation is in use" >expect && test_cmp expect err &&
	scancel $id && wait_job_state $id CANCELLED &&
	scontrol delete reservation alice_2 2>err && test_must_be_empty err &&
	test_expect_code 1 scontrol show res alice_2
'

test_expect_success 'reservations survive kill -9 of the controller' '
	scontrol create reservation ReservationName=keep StartTime=now+2hours EndTime=now+3hours Nodes=comp001 Accounts=root Flags=DAILY >out &&
	scontrol show res -o >before &&
	ctld_kill9 && ctld_start &&
	scontrol show res -o >after &&
	test_cmp before after &&
	scontrol create reservation StartTime=now+5hours Duration=10 Nodes=comp001 Users=bob >out &&
	echo "Reservation created: bob_4" >expect && test_cmp expect out
'

test_expect_success 'acct_resv holds one row per reservation period' '
	sqlite3 "$CL/state/sluice.db" "SELECT resv_id, name, nodelist, node_count, flags, deleted FROM acct_resv ORDER BY resv_id" >out &&
	cat >expect <<-\EOF &&
	1|maint1|comp[003-004]|2|MAINT,IGNORE_JOBS,SPEC_NODES|0
	2|alice_2|comp001|1|OVERLAP|1
	3|keep|comp001|1|DAILY,SPEC_NODES|0
	4|bob_4|comp001|1|SPEC_NODES|0
	EOF
	test_cmp expect out
'

test_expect_success 'cleanup' '
	scontrol delete reservation maint1 && scontrol delete res keep && scontrol delete res bob_4 &&
	scontrol show res >out && echo "No reservations in the system" >expect && test_cmp expect out
'

test_done
