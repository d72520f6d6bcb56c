#!/bin/bash
test_description='An account coordinator grants only what her account holds: QOS (named or inherited), DefaultQOS, limits and Priority within the parent, not her own account, no partial change; Operators and Administrators still may'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }
# every association and what a coordinator could grant on it
snap() {
	sacctmgr -n -P show assoc format=account,user,parentname,qos,defaultqos,maxjobs,grptres,priority,share >"$1"
}
denied() {
	cat >expect <<-\EOF &&
	sacctmgr: error: Your user doesn't have privilege to perform this action
	 Error with request: Access/permission denied
	EOF
	head -2 err >first2 && test_cmp expect first2
}

test_expect_success USERS 'theory (MaxJobs=10, GrpTRES=cpu=8) with sub1; alice coordinates theory; QOS high exists' '
	cluster_start 1 "AccountingStorageEnforce=associations,qos,limits" &&
	chmod 777 "$CL/work" &&
	sacctmgr -i add qos high >/dev/null &&
	sacctmgr -i add account theory maxjobs=10 grptres=cpu=8 >/dev/null &&
	sacctmgr -i add account sub1 parent=theory >/dev/null &&
	sacctmgr -i add account outside >/dev/null &&
	sacctmgr -i add user alice account=theory >/dev/null &&
	sacctmgr -i add user bob account=sub1 >/dev/null &&
	sacctmgr -i add coordinator account=theory names=alice >/dev/null &&
	sacctmgr -n -P show assoc where account=theory format=user,qos >out &&
	printf "|normal\nalice|normal\n" >expect && test_cmp expect out
'

test_expect_success USERS 'the three grants of the issue are refused, with why, and change nothing' '
	snap before &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=alice account=theory set qos+=high >out 2>err &&
	denied &&
	grep "^ Coordinator alice([0-9]*) does not have the access to all the qos requested (high), so they can.t modify account theory with it. The QOS of account theory: normal$" err &&
	test_expect_code 1 as alice sacctmgr -i add account sub5 parent=theory qos=high >out 2>err &&
	grep "^ Problem adding accounts: Access/permission denied$" err &&
	grep "qos requested (high), so they can.t add to account theory" err &&
	test_expect_code 1 as alice sacctmgr -i modify account where name=sub1 set qos=high,normal >out 2>err &&
	denied && grep "qos requested (high)" err &&
	test_expect_code 1 as alice sacctmgr -i add user bob account=theory qos=high >out 2>err &&
	grep "^ Problem adding users: Access/permission denied$" err &&
	snap after && test_cmp before after &&
	cat "$CL"/log/ctld.* | grep "refused: Coordinator alice"
'

test_expect_success USERS 'so a job of hers cannot run in QOS high' '
	cd "$CL/work" &&
	test_expect_code 1 as alice sbatch -A theory --qos=high -o /dev/null --wrap=true 2>err &&
	grep "Invalid qos specification" err
'

test_expect_success USERS 'grants within what theory holds are accepted' '
	as alice sacctmgr -i add account sub5 parent=theory qos=normal >/dev/null &&
	as alice sacctmgr -i modify account where name=sub1 set qos=normal >/dev/null &&
	as alice sacctmgr -i modify user where user=bob account=sub1 set qos+=normal maxjobs=5 grptres=cpu=4 fairshare=50 >/dev/null &&
	sacctmgr -n -P show assoc where user=bob account=sub1 format=qos,maxjobs,grptres,share >out &&
	echo "normal|5|cpu=4|50" >expect && test_cmp expect out &&
	as alice sacctmgr -i modify user where user=bob account=sub1 set qos-=normal >/dev/null
'

test_expect_success USERS 'a QOS the admin gave a sub-account is not hers to hand on, not even by clearing a list' '
	sacctmgr -i modify account where name=sub1 set qos=normal,high >/dev/null &&
	as alice sacctmgr -i modify user where user=bob account=sub1 set qos=normal >/dev/null &&
	snap before &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=bob account=sub1 set qos+=high 2>err &&
	denied && grep "qos requested (high)" err &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=bob account=sub1 set qos=-1 2>err &&
	denied && grep "qos requested (high)" err &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=bob account=sub1 set qos-=normal 2>err &&
	denied && grep "qos requested (high)" err &&
	snap after && test_cmp before after
'

test_expect_success USERS 'not her own account, not above the parent limits or Priority, no move' '
	snap before &&
	test_expect_code 1 as alice sacctmgr -i modify account where name=theory set maxjobs=100 2>err &&
	denied &&
	grep "^ Coordinator alice([0-9]*) can not modify account (theory) because they are not coordinators of parent account .root.\.$" err &&
	test_expect_code 1 as alice sacctmgr -i modify account where name=theory set qos=normal 2>err &&
	denied &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=bob account=sub1 set maxjobs=20 2>err &&
	denied && grep "^ Coordinator alice([0-9]*) can.t set MaxJobs=20 on user bob of account sub1: above what account sub1 allows (MaxJobs=10)$" err &&
	test_expect_code 1 as alice sacctmgr -i modify account where name=sub1 set grptres=cpu=16 2>err &&
	denied && grep "can.t set GrpTRES=cpu=16 on account sub1: above what account theory allows (GrpTRES=cpu=8)$" err &&
	test_expect_code 1 as alice sacctmgr -i add user alice account=sub1 maxjobs=11 2>err &&
	grep "Problem adding users" err &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=bob account=sub1 set priority=1000 2>err &&
	denied && grep "can.t set Priority=1000 on user bob of account sub1: above account sub1.s (0)$" err &&
	test_expect_code 1 as alice sacctmgr -i modify account where name=sub1 set parent=outside 2>err &&
	test_expect_code 1 as alice sacctmgr -i modify account where name=sub1 set parent=sub5 2>err &&
	test_expect_code 1 as alice sacctmgr -i add user bob account=outside 2>err &&
	grep "Problem adding users: Access/permission denied" err &&
	snap after && test_cmp before after &&
	as alice sacctmgr -i modify user where user=bob account=sub1 set maxjobs=-1 grptres=cpu=-1 >/dev/null
'

test_expect_success USERS 'one association over the line refuses the whole change: none is changed' '
	sacctmgr -i modify account where name=sub1 set maxjobs=3 >/dev/null &&
	snap before &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=alice,bob set maxjobs=5 2>err &&
	denied && grep "above what account sub1 allows (MaxJobs=3)" err &&
	snap after && test_cmp before after &&
	as alice sacctmgr -i modify user where user=alice,bob set maxjobs=3 >/dev/null &&
	sacctmgr -n -P show assoc where user=alice,bob format=user,maxjobs >out &&
	sort out >sorted &&
	printf "alice|3\nbob|3\n" >expect && test_cmp expect sorted
'

test_expect_success USERS 'DefaultQOS must be one the association may use (sacctmgr rule, everyone)' '
	snap before &&
	test_expect_code 1 as alice sacctmgr -i modify user where user=alice account=theory set defaultqos=high 2>err &&
	grep "^ These associations don.t have access to their default qos.$" err &&
	grep "^  DefQOS = high       C = test       A = theory               U = alice" err &&
	test_expect_code 1 sacctmgr -i modify user where user=alice account=theory set defaultqos=high 2>err &&
	grep "have access to their default qos" err &&
	snap after && test_cmp before after &&
	as alice sacctmgr -i modify user where user=bob account=sub1 set defaultqos=normal >/dev/null &&
	snap before &&
	test_expect_code 1 sacctmgr -i modify user where user=bob account=sub1 set qos=high 2>err &&
	grep "^  DefQOS = normal     C = test       A = sub1                 U = bob" err &&
	snap after && test_cmp before after
'

test_expect_success USERS 'an Administrator and an Operator still grant anything' '
	sacctmgr -i modify user where user=alice account=theory set qos+=high defaultqos=high >/dev/null &&
	cd "$CL/work" &&
	id=$(as alice sbatch --parsable -H -A theory --qos=high -o /dev/null --wrap=true) &&
	test "$(job_field $id QOS)" = high && scancel $id &&
	sacctmgr -i modify user bob set adminlevel=operator >/dev/null &&
	as bob sacctmgr -i modify account where name=theory set maxjobs=100 qos+=high >/dev/null &&
	as bob sacctmgr -i add account sub6 parent=theory qos=high maxjobs=500 >/dev/null &&
	sacctmgr -n -P show assoc where account=sub6 user= format=qos,maxjobs >out &&
	echo "high|500" >expect && test_cmp expect out
'

test_done
