#!/bin/bash
test_description='fair share end to end: a tree built with sacctmgr, jobs of two users, sshare and sprio FAIRSHARE'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

if ! test_have_prereq USERS; then
	skip_all='needs root and the users alice and bob'
	test_done
fi

# Time is made testable with the controller's test-only knob: the fair-share
# factors are recomputed every 2 s instead of every PriorityCalcPeriod.
export SLUICE_PRIORITY_CALC_PERIOD_S=2

as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
sub() { local u=$1; shift; as "$u" sbatch --parsable -D /tmp -o /dev/null "$@"; }
raw() { sshare -a -n -P -o Account,User,RawUsage | awk -F"|" -v u="$1" "\$2 == u { print \$3 }"; }
fs() { sshare -a -n -P -o User,FairShare | awk -F"|" -v u="$1" "\$1 == u { print \$2 }"; }

test_expect_success 'cluster with multifactor priority; tree root > research > alice, bob' '
	cluster_start 2 "AccountingStorageEnforce=associations" "PriorityType=priority/multifactor" \
		"PriorityWeightFairshare=10000" &&
	sacctmgr -i add account research >/dev/null &&
	sacctmgr -i add user alice,bob account=research >/dev/null
'

test_expect_success 'sshare -a: Slurm header, the tree indented, no usage yet' '
	sshare -a >out &&
	compat_stdout sshare_-a.txt | head -2 >expect &&
	head -2 out >actual && test_cmp expect actual &&
	grep -q "^ research  *1  *0.500000  *0  *0.000000 *$" out &&
	grep -q "^  research  *alice  *1  *0.500000  *0  *0.000000  *1.000000 *$" out &&
	grep -q "^  research  *bob  *1  *0.500000  *0  *0.000000  *1.000000 *$" out
'

test_expect_success 'alice runs 4 CPUs for 3 s: her RawUsage is 12 CPU-seconds, bob has none' '
	j=$(sub alice -n 4 --wrap="sleep 3") &&
	wait_job_state $j COMPLETED 30 &&
	r=$(raw alice) && test "$r" -ge 11 && test "$r" -le 16 &&
	test "$(raw bob)" = 0 &&
	test "$(sshare -a -n -P -o Account,User,RawUsage | awk -F"|" "\$1 == \" research\" && \$2 == \"\" { print \$3 }")" = "$r"
'

# Users: root (root account, no usage), alice and bob (research, which has
# all the usage): Fair Tree ranks root (LevelFS inf at the top level), then
# research's users, bob (inf) before alice: 3/3, 2/3, 1/3.
test_expect_success 'Fair Tree: root 1, bob 2/3, alice 1/3' '
	wait_for 10 sh -c "sshare -a -n -P -o User,FairShare | grep -qx \"alice|0.333333\"" &&
	test "$(fs bob)" = 0.666667 && test "$(fs root)" = 1.000000 &&
	sshare -a -l -P >out &&
	grep -q "^  research|bob|1|0.500000|0|0.000000|0.000000|0.666667|inf|" out &&
	grep -q "^ research||1|0.500000|[0-9]*|1.000000|1.000000||0.500000|" out
'

# (root's running job now charges root too, so only the order is fixed)
test_expect_success 'sprio: FAIRSHARE of a pending job of bob above one of alice' '
	h=$(sub root -N 2 --exclusive --wrap="sleep 60") &&
	wait_job_state $h RUNNING &&
	ja=$(sub alice -n 1 --wrap=true) && jb=$(sub bob -n 1 --wrap=true) &&
	wait_for 10 sh -c "test \$(sprio -h -j$jb -o %F) -gt \$(sprio -h -j$ja -o %F)" &&
	test "$(sprio -h -j$jb -o %Y)" -gt "$(sprio -h -j$ja -o %Y)" &&
	scancel $h $ja $jb
'

test_expect_success 'sshare as alice: the accounts and her own row; -u, -A, -U' '
	as alice sshare -n -P >out &&
	! grep -q "|bob|" out && grep -q "|alice|" out && grep -q "^ research||" out &&
	sshare -n -P -u bob >out && ! grep -q "|alice|" out && grep -q "|bob|" out &&
	sshare -n -P -a -A research >out && head -1 out | grep -q "^research||" &&
	sshare -n -P -a -U >out && ! grep -q "^ *research||" out && grep -q "^research|alice|" out &&
	test_expect_code 1 sshare -o nosuch 2>err &&
	grep -qx "sshare: error: Invalid field requested: \"nosuch\"" err
'

test_expect_success 'the kept answer follows the tree: as bob, as alice, after a change of shares' '
	sshare -a -n -P >a1 && sshare -a -n -P >a2 && test_cmp a1 a2 &&
	as bob sshare -n -P >b && grep -q "|bob|" b && ! grep -q "|alice|" b &&
	as alice sshare -n -P >c && grep -q "|alice|" c && ! grep -q "|bob|" c &&
	sacctmgr -i modify user bob set fairshare=7 >/dev/null &&
	sshare -a -n -P -o User,RawShares >out && grep -qx "bob|7" out &&
	sacctmgr -i modify user bob set fairshare=1 >/dev/null &&
	sshare -a -n -P -o User,RawShares >out && grep -qx "bob|1" out
'

test_expect_success 'usage survives a restart' '
	before=$(raw alice) &&
	ctld_kill9 && ctld_start &&
	after=$(raw alice) &&
	test "$after" -ge $((before - 1)) && test "$after" -le "$before"
'

test_expect_success 'stop' '
	cluster_stop
'

test_done
