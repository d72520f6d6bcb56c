#!/bin/bash
test_description='sluice sim: an SWF trace replayed on the scheduler core in virtual time'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# No daemons: the simulator is one process. fixtures/sim_small.swf is the
# 5-job trace whose schedules t/unit/test_sim.c works out by hand.
FX="$SHARNESS_TEST_DIRECTORY/fixtures/sim_small.swf"

test_expect_success 'FCFS (--backfill=none): the hand-computed waits and slowdown' '
	sluice sim --backfill=none --json "$FX" >fcfs.json 2>err &&
	test_must_be_empty err &&
	jq -e ".jobs == 5 and .nodes == 4 and .backfill == \"none\" and .never_started == 0" fcfs.json &&
	jq -e ".wait_mean_s == 96 and .wait_p95_s == 140 and .wait_max_s == 140 and .wait_median_s == 120" fcfs.json &&
	jq -e "(.bsld_mean - 2.7466666667 | fabs) < 1e-6 and (.utilization - 1120/1840 | fabs) < 1e-9" fcfs.json &&
	jq -e "[.by_size[] | {procs, jobs}] == [{procs:\"1\",jobs:2},{procs:\"2-4\",jobs:3},{procs:\"5-16\",jobs:0},{procs:\"17-64\",jobs:0},{procs:\">64\",jobs:0}]" fcfs.json &&
	jq -e "[.by_user[] | {user, jobs}] == [{user:1,jobs:3},{user:2,jobs:2}]" fcfs.json &&
	jq -e "has(\"by_queue\") | not" fcfs.json
'

test_expect_success 'EASY (the default): J3 and J5 backfill in front of the 4-node job; per-job CSV' '
	sluice sim --json --csv easy.csv "$FX" >easy.json &&
	jq -e ".backfill == \"easy\" and .wait_mean_s == 44 and .backfill_cycles > 0" easy.json &&
	cat >want.csv <<-\EOF &&
	id,submit,start,end,wait,procs,nodes,backfilled
	1,0,0,100,0,2,2,0
	2,10,100,160,90,4,4,0
	3,20,20,70,0,1,1,1
	4,30,160,460,130,2,2,0
	5,40,40,70,0,1,1,1
	EOF
	test_cmp want.csv easy.csv
'

test_expect_success 'a gzip-compressed trace gives the same answer' '
	gzip -c "$FX" >small.swf.gz &&
	sluice sim --json small.swf.gz >gz.json &&
	jq -S "del(.trace)" easy.json >a && jq -S "del(.trace)" gz.json >b && test_cmp a b
'

test_expect_success 'the text report names the metrics and the size classes' '
	sluice sim --backfill=none "$FX" >out &&
	grep -q "^Wait mean        96.0 s" out &&
	grep -q "^Bounded slowdown 2.75 (mean, tau 10 s)" out &&
	grep -Eq "^  procs +2-4 +3 " out
'

# 600 jobs from a fixed-seed generator on a 32 x 2-CPU machine.
test_expect_success 'deterministic: two runs give byte-identical JSON and CSV' '
	awk "BEGIN { x = 7; t = 0; print \"; MaxNodes: 32\"; print \"; MaxProcs: 64\";
		for (i = 1; i <= 600; i++) { x = (x * 1103515245 + 12345) % 2147483648;
			t += x % 401; p = 1 + x % 23; r = 1 + x % 1501; q = r + x % 777;
			printf \"%d %d -1 %d %d -1 -1 %d %d -1 1 %d -1 -1 %d -1 -1 -1\n\", i, t, r, p, p, q, 1 + x % 7, x % 2 } }" >gen.swf &&
	test $(grep -vc "^;" gen.swf) = 600 &&
	for bf in easy none; do
		sluice sim --backfill=$bf --json --csv 1.csv gen.swf >1.json &&
		sluice sim --backfill=$bf --json --csv 2.csv gen.swf >2.json &&
		cmp 1.json 2.json && cmp 1.csv 2.csv &&
		jq -e ".jobs == 600 and .never_started == 0 and .cpus_per_node == 2 and (.by_queue | length) == 2" 1.json ||
		return 1
	done
'

test_expect_success '-f slurm.conf: the cluster and SchedulerType of a config, jobs in its default partition' '
	cat >slurm.conf <<-\EOF &&
	ClusterName=simtest
	SlurmctldHost=localhost
	SchedulerType=sched/builtin
	SelectTypeParameters=CR_Core
	NodeName=c[1-4] CPUs=1 RealMemory=1000 State=UNKNOWN
	NodeName=c5 CPUs=64 RealMemory=1000 State=FUTURE
	PartitionName=debug Nodes=c[1-2] MaxTime=INFINITE
	PartitionName=work Nodes=c[1-5] Default=YES MaxTime=INFINITE
	EOF
	sluice sim -f slurm.conf --json "$FX" >f.json &&
	jq -e ".backfill == \"none\" and .partition == \"work\" and .cpus == 4 and .wait_mean_s == 96" f.json &&
	sed -i "s,sched/builtin,sched/backfill," slurm.conf &&
	sluice sim -f slurm.conf --json --csv f.csv "$FX" >f.json &&
	jq -e ".backfill == \"easy\" and .wait_mean_s == 44" f.json && test_cmp want.csv f.csv &&
	sluice sim -f slurm.conf --backfill=none --json "$FX" >f.json &&
	jq -e ".backfill == \"none\" and .wait_mean_s == 96" f.json &&
	test_expect_code 2 sluice sim -f slurm.conf --nodes 4 "$FX" 2>err && grep -q "two machines" err
'

test_expect_success 'a bad line is refused with its line number' '
	printf "; MaxNodes: 4\n1 0 -1 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n2 5 -1 10 1\n" >bad.swf &&
	test_must_fail sluice sim bad.swf >out 2>err &&
	grep -q "bad.swf: line 3: 5 fields, SWF has 18" err &&
	test_must_be_empty out
'

test_expect_success 'usage errors: no header and no --nodes; a bad --backfill' '
	grep -v "^;" "$FX" >nohdr.swf &&
	test_expect_code 2 sluice sim nohdr.swf 2>err && grep -q "give --nodes" err &&
	sluice sim --nodes 4 --cpus 1 --json nohdr.swf >n.json && jq -e ".jobs == 5" n.json &&
	test_expect_code 2 sluice sim --backfill=cons "$FX" 2>err && grep -q "easy or none" err
'

test_done
