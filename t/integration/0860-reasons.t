#!/bin/bash
test_description='pending and end reasons as Slurm 22.05 prints them (squeue %r and -l,
scontrol show job Reason=), one situation per row; the table of what Slurm shows is
docs/reasons.md'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }

# reason_is ID TEXT: squeue %r and scontrol's Reason= both say exactly TEXT
# (scontrol, as Slurm's, with its blanks as underscores).
reason_is() {
	[ "$(squeue -h -t all -j "$1" -o %r)" = "$2" ] &&
	scontrol show job "$1" | grep -qF " Reason=${2// /_} Dependency="
}
# wait_reason ID TEXT: within 10 s (a scheduling pass runs at each submit).
wait_reason() {
	wait_for 10 reason_is "$1" "$2" || {
		echo "job $1: wanted reason '$2', got '$(squeue -h -t all -j "$1" -o %r)'"
		return 1
	}
}

test_expect_success 'cluster: 4 nodes; partitions small (MaxNodes=2), pdown (DOWN), pinact' '
	cluster_start 4 "PartitionName=small Nodes=comp[001-004] MaxNodes=2" \
		"PartitionName=pdown Nodes=comp[001-002] State=DOWN" \
		"PartitionName=pinact Nodes=comp[001-002]" &&
	mkdir -p "$CL/work/alice" && chown alice "$CL/work/alice"
'

# name | sbatch options | the reason Slurm 22.05 shows once a pass ran
cat >table <<\EOF
time-over-maxtime|-p short -t 2:00:00|PartitionTimeLimit
nodes-over-maxnodes|-p small -N 3|PartitionNodeLimit
nodes-over-partition|-N 5|PartitionNodeLimit
partition-down|-p pdown|PartitionDown
held-at-submit|-H|JobHeldUser
begin-time|--begin=now+1hour|BeginTime
EOF

while IFS='|' read -r name opts want; do
	test_expect_success "$name: sbatch $opts pends with $want" '
		id=$(sbatch --parsable '"$opts"' -o /dev/null --wrap=true) &&
		wait_reason $id '"$want"' &&
		test "$(job_state $id)" = PENDING &&
		squeue -l -h -j $id >out &&
		grep -q " 0:00 .* ('"$want"')\$" out &&
		scancel $id
	'
done <table

test_expect_success 'refused at submit with Slurm'"'"'s message and status 1' '
	test_expect_code 1 sbatch -C nosuch -o /dev/null --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Invalid feature specification" >expect &&
	test_cmp expect err &&
	test_expect_code 1 sbatch -w comp999 -o /dev/null --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Invalid node name specified" >expect &&
	test_cmp expect err
'

test_expect_success 'PartitionInactive / PartitionDown: the partition changed under a pending job' '
	id=$(sbatch --parsable -p pinact -H -o /dev/null --wrap=true) &&
	scontrol update partitionname=pinact state=inactive &&
	scontrol release $id &&
	wait_reason $id PartitionInactive &&
	test_expect_code 1 sbatch -p pinact -o /dev/null --wrap=true 2>err &&
	echo "sbatch: error: Batch job submission failed: Required partition not available (inactive or drain)" >expect &&
	test_cmp expect err &&
	scontrol update partitionname=pinact state=down &&
	wait_reason $id PartitionDown &&
	scancel $id
'

test_expect_success 'holds: JobHeldUser, JobHeldAdmin (root), uhold and release by the user' '
	cd "$CL/work/alice" &&
	id=$(as alice sbatch --parsable -H -o /dev/null --wrap=true) &&
	wait_reason $id JobHeldUser &&
	scontrol hold $id &&
	wait_reason $id JobHeldAdmin &&
	test_expect_code 1 as alice scontrol release $id 2>err &&
	reason_is $id JobHeldAdmin &&
	as alice scontrol hold $id && as alice scontrol uhold $id &&
	reason_is $id JobHeldAdmin &&
	scancel $id &&
	wait_job_state $id CANCELLED &&
	reason_is $id JobHeldAdmin &&
	later=$(as alice sbatch --parsable --begin=now+1hour -o /dev/null --wrap=true) &&
	wait_reason $later BeginTime &&
	as alice scontrol uhold $later &&
	wait_reason $later JobHeldUser &&
	as alice scontrol release $later &&
	wait_reason $later BeginTime &&
	scancel $later
'

test_expect_success 'dependencies: Dependency, DependencyNeverSatisfied, --kill-on-invalid-dep' '
	cd "$CL/work" &&
	run=$(sbatch --parsable -o /dev/null --wrap="sleep 300") &&
	bad=$(sbatch --parsable -o /dev/null --wrap="exit 1") &&
	dep=$(sbatch --parsable -d afterok:$run -o /dev/null --wrap=true) &&
	never=$(sbatch --parsable -d afterok:$bad -o /dev/null --wrap=true) &&
	kill=$(sbatch --parsable -d afterok:$bad --kill-on-invalid-dep=yes -o /dev/null --wrap=true) &&
	wait_reason $dep Dependency &&
	wait_reason $never DependencyNeverSatisfied &&
	test "$(job_field $never Dependency)" = "afterok:$bad(failed)" &&
	wait_job_state $kill CANCELLED &&
	reason_is $kill DependencyNeverSatisfied &&
	scancel $run $dep $never
'

test_expect_success 'end reasons: NonZeroExitCode, JobLaunchFailure (a signal), None' '
	cd "$CL/work" &&
	f=$(sbatch --parsable -o /dev/null --wrap="exit 3") &&
	s=$(sbatch --parsable -o /dev/null --wrap="kill -9 \$\$") &&
	c=$(sbatch --parsable -o /dev/null --wrap=true) &&
	r=$(sbatch --parsable -o /dev/null --wrap="sleep 300") &&
	wait_job_state $f FAILED && reason_is $f NonZeroExitCode &&
	test "$(job_field $f ExitCode)" = 3:0 &&
	wait_job_state $s FAILED && reason_is $s JobLaunchFailure &&
	test "$(job_field $s ExitCode)" = 0:9 &&
	wait_job_state $c COMPLETED && reason_is $c None &&
	wait_job_state $r RUNNING && scancel $r &&
	wait_job_state $r CANCELLED && reason_is $r None
'

test_expect_success 'a drained node: ReqNodeNotAvail, UnavailableNodes:... and the partition stays open' '
	scontrol update nodename=comp004 state=drain reason=reasons-test &&
	all=$(sbatch --parsable -N 4 -o /dev/null --wrap=true) &&
	named=$(sbatch --parsable -w comp003,comp004 -o /dev/null --wrap=true) &&
	wait_reason $all "ReqNodeNotAvail, UnavailableNodes:comp004" &&
	wait_reason $named "ReqNodeNotAvail, UnavailableNodes:comp004" &&
	squeue -l -h -j $all >out &&
	grep -q " 4 (ReqNodeNotAvail, UnavailableNodes:comp004)\$" out &&
	sluice why $all >why.out &&
	grep -q "kept for a job ahead of it: comp004 (ReqNodeNotAvail)" why.out &&
	one=$(sbatch --parsable -o /dev/null --wrap=true) &&
	wait_job_state $one COMPLETED &&
	scontrol update nodename=comp004 state=resume &&
	wait_job_state $all COMPLETED && wait_job_state $named COMPLETED
'

test_expect_success 'busy nodes: Resources, Priority; a --nodelist job does not block its partition' '
	hog=$(sbatch --parsable -w comp001 --exclusive -o /dev/null --wrap="sleep 300") &&
	wait_job_state $hog RUNNING &&
	w1=$(sbatch --parsable -w comp001 -o /dev/null --wrap=true) &&
	w2=$(sbatch --parsable -w comp001 -o /dev/null --wrap=true) &&
	wait_reason $w1 Resources &&
	wait_reason $w2 "ReqNodeNotAvail, UnavailableNodes:comp001" &&
	free=$(sbatch --parsable -o /dev/null --wrap=true) &&
	wait_job_state $free COMPLETED &&
	scancel $w1 $w2 &&
	big1=$(sbatch --parsable -N 4 -o /dev/null --wrap=true) &&
	big2=$(sbatch --parsable -N 4 -o /dev/null --wrap=true) &&
	wait_reason $big1 Resources &&
	wait_reason $big2 Priority &&
	scancel $hog $big1 $big2
'

test_done
