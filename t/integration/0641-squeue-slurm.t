#!/bin/bash
test_description='squeue as Slurm 22.05: -t states, the default filter with -j, -O fields, --json fields'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

GOLDEN=$SHARNESS_TEST_DIRECTORY/golden

test_expect_success 'cluster starts; a running, a held, a failed and a completed job' '
	cluster_start 2 &&
	cd "$CL/work" &&
	run=$(sbatch --parsable -J run -t 10 -o /dev/null --wrap="sleep 300") &&
	held=$(sbatch --parsable -J held -H -t 5 -o /dev/null --wrap=true) &&
	fail=$(sbatch --parsable -J fail -o /dev/null --wrap="exit 3") &&
	done=$(sbatch --parsable -J done -o /dev/null --wrap=true) &&
	echo "$run $held $fail $done" >ids &&
	wait_job_state $run RUNNING &&
	wait_job_state $fail FAILED &&
	wait_job_state $done COMPLETED
'

test_expect_success 'squeue -t takes every state name and code of Slurm 22.05' '
	for s in PD R CG CD CF CA F TO NF PR S OOM BF DL RS SI SO ST RF RH SE RD RV RQ \
		pending running suspended completed cancelled failed timeout node_fail \
		preempted boot_fail deadline out_of_memory completing configuring resizing \
		resv_del_hold requeued requeue_fed requeue_hold revoked signaling \
		special_exit stage_out stopped all ALL; do
		squeue -h -t $s >/dev/null 2>err && test_must_be_empty err || return 1
	done
'

test_expect_success 'squeue -t: "all" only alone; a bad state as Slurm says it' '
	test_expect_code 1 squeue -t all,pd 2>err &&
	cat >expect <<-\EOF &&
	squeue: error: Invalid job state specified: all
	squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED

	EOF
	test_cmp expect err &&
	test_expect_code 1 squeue -t "pd r" 2>err &&
	grep -q "^squeue: error: Invalid job state specified: pd r\$" err
'

test_expect_success 'squeue -t selects by base state and by flag' '
	cd "$CL/work" && read run held fail done <ids &&
	test "$(squeue -h -t R -o %i)" = $run &&
	test "$(squeue -h -t pd -o %i)" = $held &&
	test "$(squeue -h -t F -o %i)" = $fail &&
	test "$(squeue -h -t CD,F -o %i | sort -n | tr "\n" " ")" = "$fail $done " &&
	test -z "$(squeue -h -t CG,RS,SE)"
'

test_expect_success 'squeue -j of a finished job: hidden by the default filter, as Slurm 22.05' '
	cd "$CL/work" && read run held fail done <ids &&
	squeue -j $done >out 2>err &&
	test_must_be_empty err &&
	echo "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)" >expect &&
	test_cmp expect out &&
	test "$(squeue -h -j $done,$run -o %i)" = $run &&
	test "$(squeue -h -j $done -t CD -o %i)" = $done &&
	test "$(squeue -h -j $fail -t all -o "%i %t %r")" = "$fail F NonZeroExitCode"
'

# Captured on Slurm 22.05 (tools/realslurm) for a held job: every -O
# field Sluice has no data for prints Slurm'"'"'s text for none.
test_expect_success 'squeue -O: the fields of man squeue, with Slurm'"'"'s text when empty' '
	cd "$CL/work" && read run held fail done <ids &&
	squeue -j $held -O "admin_comment:0|,BoardsPerNode:0|,BurstBuffer:0|,BurstBufferState:0|,ClusterFeature:0|,Container:0|,cpus-per-tres:0|,Deadline:0|,DelayBoot:0|,DerivedEC:0|,HetJobID:0|,HetJobIDSet:0|,HetJobOffset:0|,MaxCPUs:0|,MaxNodes:0|,MCSLabel:0|,mem-per-tres:0|,Network:0|,NTPerBoard:0|,NTPerCore:0|,NTPerNode:0|,NTPerSocket:0|,Origin:0|,OriginRaw:0|,PreemptTime:0|,Prefer:0|,Profile:0|,Reboot:0|,ReqSwitch:0|,ResizeTime:0|,SiblingsActive:0|,SiblingsActiveRaw:0|,SiblingsViable:0|,SiblingsViableRaw:0|,SPerBoard:0|,system_comment:0|,tres-bind:0|,tres-freq:0|,tres-per-socket:0|,tres-per-task:0|,Wait4Switch:0|,MinTime:0|,SelectJobInfo:0|,CoreSpec:0|,Reservation:0|,tres-per-job:0|,exit_code:0|" >out 2>err &&
	test_must_be_empty err &&
	cat >expect <<-\EOF &&
	ADMIN_COMMENT|BOARDS_PER_NODE|BURST_BUFFER|BURST_BUFFER_STATE|CLUSTER_FEATURES|CONTAINER|CPUS_PER_TRES|DEADLINE|DELAY_BOOT|DERIVED_EC|HET_JOB_ID|HET_JOB_ID_SET|HET_JOB_OFFSET|MAX_CPUS|MAX_NODES|MCSLABEL|MEM_PER_TRES|NETWORK|NTASKS_PER_BOARD|NTASKS_PER_CORE|NTASKS_PER_NODE|NTASKS_PER_SOCKET|ORIGIN|ORIGIN_RAW|PREEMPT_TIME|PREFER|PROFILE|REBOOT|REQ_SWITCH|RESIZE_TIME|ACTIVE_SIBLINGS|ACTIVE_SIBLINGS_RAW|VIABLE_SIBLINGS|VIALBLE_SIBLINGS_RAW|SOCKETS_PER_BOARD|SYSTEM_COMMENT|TRES_BIND|TRES_FREQ|TRES_PER_SOCKET|TRES_PER_TASK|WAIT4SWITCH|TIME_MIN||CORE_SPEC|RESERVATION|TRES_PER_JOB|EXIT_CODE|
	(null)|0|(null)|(null)|(null)|(null)|N/A|N/A|0:00|0|N/A|N/A|N/A|1|1|(null)|N/A|(null)|0|N/A|0|N/A|NA|NA|N/A|(null)|NotSet|0|0|N/A|NA|NA|NA|NA|0|(null)|N/A|N/A|N/A|N/A|0:00|0:00||N/A|(null)|N/A|0|
	EOF
	test_cmp expect out &&
	test "$(squeue -h -j $fail -t all -O exit_code:0)" = 768 &&
	test "$(squeue -h -j $held -O Cluster:0)" = "$(scontrol show config | sed -n "s/^ClusterName *= //p")" &&
	test "$(squeue -h -j $run -O AssocID:0)" -ge 0
'

test_expect_success 'squeue -O: step-only fields are refused for jobs, as Slurm' '
	squeue -h -O StepID,CPUFreq 2>err &&
	printf "squeue: error: Invalid job format specification: StepID\nsqueue: error: Invalid job format specification: CPUFreq\n" >expect &&
	test_cmp expect err
'

# Slurm 22.05, -o %all for a held job (tools/realslurm; id, submit time,
# user and directory replaced by placeholders).
test_expect_success 'squeue -o %all: every letter, Slurm'"'"'s headers and empty values' '
	cd "$CL/work" && read run held fail done <ids &&
	squeue -j $held -o %all >out &&
	cat >expect.in <<-\EOF &&
	ACCOUNT|TRES_PER_NODE|MIN_CPUS|MIN_TMP_DISK|END_TIME|FEATURES|GROUP|OVER_SUBSCRIBE|JOBID|NAME|COMMENT|TIME_LIMIT|MIN_MEMORY|REQ_NODES|COMMAND|PRIORITY|QOS|REASON||ST|USER|RESERVATION|WCKEY|EXC_NODES|NICE|S:C:T|JOBID|EXEC_HOST|CPUS|NODES|DEPENDENCY|ARRAY_JOB_ID|GROUP|SOCKETS_PER_NODE|CORES_PER_SOCKET|THREADS_PER_CORE|ARRAY_TASK_ID|TIME_LEFT|TIME|NODELIST|CONTIGUOUS|PARTITION|PRIORITY|NODELIST(REASON)|START_TIME|STATE|UID|SUBMIT_TIME|LICENSES|CORE_SPEC|SCHEDNODES|WORK_DIR
	@ACCT@|N/A|1|0|N/A|(null)|root|OK|@ID@|held|(null)|5:00|@MEM@||(null)|0.00000000000000|@QOS@|JobHeldUser||PD|root|(null)|(null)||0|*:*:*|@ID@|n/a|1|1|(null)|@ID@|0|*|*|*|N/A|5:00|0:00||0|defq|0|(JobHeldUser)|N/A|PENDING|0|@SUBMIT@|(null)|N/A|(null)|@DIR@
	EOF
	sed -e "s/@ID@/$held/g" -e "s/@SUBMIT@/$(squeue -h -j $held -o %V)/" \
	    -e "s|@DIR@|$(squeue -h -j $held -o %Z)|" -e "s/@ACCT@/$(squeue -h -j $held -o %a)/" \
	    -e "s/@QOS@/$(squeue -h -j $held -o %q)/" -e "s/@MEM@/$(squeue -h -j $held -o %m)/" expect.in >expect &&
	test_cmp expect out
'

# The key order, types and nesting of every job field, against a capture
# of squeue --json on Slurm 22.05 (a running, a held and a failed job).
test_expect_success 'squeue --json: all 111 job fields of Slurm 22.05, finished jobs too' '
	cd "$CL/work" && read run held fail done <ids &&
	squeue --json >all.json &&
	squeue --json -t R >r.json &&
	python3 - "$GOLDEN/squeue_--json_realslurm.json" all.json r.json $run $held $fail $done <<-\EOF
	import json, sys
	gold = json.loads(open(sys.argv[1]).read().split("\n", 1)[1])
	ours = json.load(open(sys.argv[2]))
	allr = json.load(open(sys.argv[3]))
	run, held, fail, done = (int(x) for x in sys.argv[4:8])
	assert list(ours) == list(gold), list(ours)
	assert ours["meta"] == gold["meta"], ours["meta"]
	js = {j["job_id"]: j for j in ours["jobs"]}
	assert set(js) >= {run, held, fail, done}, sorted(js)
	# --json shows every state whatever -t says (Slurm 22.05)
	assert {j["job_id"] for j in allr["jobs"]} == set(js)
	def shape(v):
	    if isinstance(v, dict):
	        return {k: shape(x) for k, x in v.items()}
	    if isinstance(v, list):
	        return [shape(v[0])] if v else []
	    return type(v).__name__
	for g, mine in zip(gold["jobs"], (js[run], js[held], js[fail])):
	    assert list(mine) == list(g), (set(g) ^ set(mine), [k for k, k2 in zip(g, mine) if k != k2][:3])
	    assert len(mine) == (111 if "job_resources" in g else 110)
	    for k in g:
	        if k == "job_resources":
	            gs, ms = shape(g[k]), shape(mine[k])
	            assert list(ms) == list(gs), ms
	            assert list(ms["allocated_nodes"][0]) == list(gs["allocated_nodes"][0]), ms
	            continue
	        assert shape(mine[k]) == shape(g[k]), (mine["job_id"], k, mine[k], g[k])
	r, h, f = js[run], js[held], js[fail]
	assert r["job_state"] == "RUNNING" and r["flags"] == ["JOB_ACCRUE_OVER", "JOB_WAS_RUNNING"]
	assert h["job_state"] == "PENDING" and h["state_reason"] == "JobHeldUser" and h["flags"] == []
	assert f["job_state"] == "FAILED" and f["exit_code"] == 768 and f["state_reason"] == "NonZeroExitCode"
	assert h["time_limit"] == 5 and f["time_limit"] is None
	assert r["standard_output"] == "/dev/null" and r["standard_error"] == ""
	assert r["job_resources"]["allocated_nodes"][0]["nodename"] == r["nodes"]
	assert ours["errors"] == []
	EOF
'

test_expect_success 'squeue --json layout: Slurm'"'"'s pretty printing' '
	squeue --json >j &&
	sed -n "1,17p" j >head &&
	compat_stdout squeue_--json.txt | sed -n "1,17p" >expect &&
	test_cmp expect head &&
	grep -q "^  \"errors\": \[\$" j &&
	grep -q "\"type\": \"openapi\\\\/v0.0.38\"" j &&
	test "$(tail -c 2 j)" = "
}"
'

test_done
