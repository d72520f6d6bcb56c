#!/bin/bash
test_description='sacctmgr: accounts, users, associations, QOS, coordinators; output as Slurm 22.05; who may change what; dump/load; durability'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

export CTLD_DAEMON=1

# as USER: sacctmgr with the cluster's config
as() { local u=$1; shift; runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@"; }

test_expect_success 'cluster starts' '
	cluster_start 1
'

test_expect_success 'a new cluster has what slurmdbd creates: root account, root user, QOS normal' '
	sacctmgr show assoc format=cluster,account,user,share,qos,defaultqos >out &&
	cat >expect <<-\EOF &&
	   Cluster    Account       User     Share                  QOS   Def QOS 
	---------- ---------- ---------- --------- -------------------- --------- 
	      test       root                    1               normal           
	      test       root       root         1               normal           
	EOF
	test_cmp expect out &&
	sacctmgr show user >out &&
	cat >expect <<-\EOF &&
	      User   Def Acct     Admin 
	---------- ---------- --------- 
	      root       root Administ+ 
	EOF
	test_cmp expect out &&
	sacctmgr show qos >out &&
	compat_stdout sacctmgr_show_qos.txt | head -3 >expect &&
	test_cmp expect out
'

test_expect_success 'add account: the report of Slurm 22.05 (golden), lower-cased settings' '
	sacctmgr -i add account mlteam Description="LLM Pretraining" Organization="ADNOC" >out 2>err &&
	test_must_be_empty err &&
	compat_stdout sacctmgr_add_account.txt | sed "s/C = cluster   /C = test      /" >expect &&
	test_cmp expect out &&
	sacctmgr -i add account research Description="research group" Organization=lab >/dev/null
'

test_expect_success 'adding what exists: " Nothing new added." and exit 1' '
	test_expect_code 1 sacctmgr -i add account mlteam >out &&
	echo " Nothing new added." >expect &&
	test_cmp expect out
'

test_expect_success 'add user: golden report, partition associations and limits' '
	sacctmgr -i add user jdoe Account=mlteam >out &&
	compat_stdout sacctmgr_add_user_jdoe.txt | sed "s/C = cluster   /C = test      /" >expect &&
	test_cmp expect out &&
	sacctmgr -i add user alice,bob account=research >/dev/null &&
	sacctmgr -i add user bob account=research partition=short maxjobs=1 >out &&
	cat >expect <<-\EOF &&
	 Associations =
	  U = bob       A = research   C = test       P = short     
	 Non Default Settings
	  MaxJobs       = 1
	EOF
	test_cmp expect out
'

test_expect_success 'list accounts and the association tree' '
	sacctmgr list accounts >out &&
	cat >expect <<-\EOF &&
	   Account                Descr                  Org 
	---------- -------------------- -------------------- 
	    mlteam      llm pretraining                adnoc 
	  research       research group                  lab 
	      root default root account                 root 
	EOF
	test_cmp expect out &&
	sacctmgr show assoc tree format=account,user,partition,maxjobs >out &&
	cat >expect <<-\EOF &&
	Account                    User  Partition MaxJobs 
	-------------------- ---------- ---------- ------- 
	root                                               
	 root                      root                    
	 mlteam                                            
	  mlteam                   jdoe                    
	 research                                          
	  research                alice                    
	  research                  bob                    
	  research                  bob      short       1 
	EOF
	test_cmp expect out
'

test_expect_success 'the lines programs rely on (CLIENTS.md)' '
	sacctmgr -n -s list user alice format=account%20 >out &&
	echo "            research " >expect &&
	test_cmp expect out &&
	sacctmgr -nP show users withassoc format=account,qos where user=alice >out &&
	echo "research|normal" >expect &&
	test_cmp expect out
'

test_expect_success 'QOS: add, modify, show format with widths (golden), unknown QOS' '
	sacctmgr -i add qos gpu_high >out &&
	compat_stdout sacctmgr_add_qos_gpu_high.txt >expect &&
	test_cmp expect out &&
	sacctmgr -i modify qos gpu_high set MaxTRESPerUser=gres/gpu=32 >out &&
	compat_stdout sacctmgr_modify_qos_gpu_high.txt >expect &&
	test_cmp expect out &&
	sacctmgr show qos format=Name,Priority,MaxTRESPU%30 >out &&
	compat_stdout sacctmgr_show_qos_format.txt >expect &&
	test_cmp expect out &&
	test_expect_code 1 sacctmgr -i modify qos nosuchqos set MaxTRESPerUser=gres/gpu=32 >out 2>err &&
	compat_stdout err_sacctmgr_modify_unknown_qos.txt >expect &&
	test_cmp expect out && test_must_be_empty err &&
	sacctmgr -i modify qos gpu_high set priority=10 preempt=normal preemptmode=requeue flags=denyonlimit gracetime=60 usagefactor=2 maxwall=2:00:00 >/dev/null &&
	sacctmgr show qos gpu_high format=name,priority,gracetime,preempt,preemptmode,flags,usagefactor,maxwall >out &&
	cat >expect <<-\EOF &&
	      Name   Priority  GraceTime    Preempt PreemptMode                                    Flags UsageFactor     MaxWall 
	---------- ---------- ---------- ---------- ----------- ---------------------------------------- ----------- ----------- 
	  gpu_high         10   00:01:00     normal     requeue                              DenyOnLimit    2.000000    02:00:00 
	EOF
	test_cmp expect out
'

test_expect_success 'limits on associations: TRES, time, inheritance of Max* and QOS, -1 clears; -p and -P' '
	sacctmgr -i modify account research set grptres=cpu=8,gres/gpu=4,mem=4G maxwall=1:00:00 maxjobs=5 qos+=gpu_high defaultqos=normal >out &&
	cat >expect <<-\EOF &&
	 Modified account associations...
	  C = test       A = research of root
	  C = test       A = research             U = alice    
	  C = test       A = research             U = bob      
	  C = test       A = research             U = bob       P = short
	EOF
	test_cmp expect out &&
	sacctmgr -P show assoc where account=research format=account,user,partition,grptres,maxjobs,maxwall,qos,defaultqos >out &&
	cat >expect <<-\EOF &&
	Account|User|Partition|GrpTRES|MaxJobs|MaxWall|QOS|Def QOS
	research||||5|01:00:00|gpu_high,normal|normal
	research|alice|||5|01:00:00|gpu_high,normal|normal
	research|bob|||5|01:00:00|gpu_high,normal|normal
	research|bob|short||1|01:00:00|gpu_high,normal|normal
	EOF
	sed -i "s/^research|||/research|||cpu=8,mem=4G,gres\/gpu=4/" expect &&
	test_cmp expect out &&
	sacctmgr -i modify user alice set qos-=gpu_high maxjobs=-1 >/dev/null &&
	sacctmgr -i modify account research set maxjobs=-1 >/dev/null &&
	sacctmgr -p show assoc where user=alice format=user,maxjobs,qos >out &&
	printf "User|MaxJobs|QOS|\nalice||normal|\n" >expect &&
	test_cmp expect out &&
	test_expect_code 1 sacctmgr -i modify user alice set grptres=bogus=3 >out 2>err &&
	grep "Unknown TRES" err
'

test_expect_success 'a plain user may show but not change; the refusal as Slurm words it' '
	as alice sacctmgr -n list account research format=account >out &&
	echo "  research " >expect && test_cmp expect out &&
	test_expect_code 1 as alice sacctmgr -i add account evil >out 2>err &&
	echo " Problem adding accounts: Access/permission denied" >expect &&
	test_cmp expect err &&
	test_expect_code 1 as alice sacctmgr -i modify user bob set maxjobs=3 >out 2>err &&
	cat >expect <<-\EOF &&
	sacctmgr: error: Your user doesn'"'"'t have privilege to perform this action
	 Error with request: Access/permission denied
	EOF
	test_cmp expect err &&
	test_expect_code 1 as alice sacctmgr -i delete account mlteam 2>err &&
	test_cmp expect err &&
	sacctmgr -n list account evil >out && test_must_be_empty out
'

test_expect_success 'an Operator changes accounts but cannot make an Administrator' '
	sacctmgr -i modify user alice set adminlevel=operator >out &&
	printf " Modified users...\n  alice\n" >expect && test_cmp expect out &&
	as alice sacctmgr -i add account opsacct parent=research >/dev/null &&
	sacctmgr -n -P list assoc where account=opsacct format=account,parentname >out &&
	echo "opsacct|research" >expect && test_cmp expect out &&
	test_expect_code 1 as alice sacctmgr -i modify user bob set adminlevel=admin 2>err &&
	grep "Access/permission denied" err &&
	sacctmgr -n -P show user bob format=admin >out && echo None >expect && test_cmp expect out
'

test_expect_success 'a coordinator manages the users of its accounts, not others' '
	sacctmgr -i add coordinator account=mlteam names=bob >out &&
	cat >expect <<-\EOF &&
	 Adding Coordinator User(s)
	  bob
	 To Account(s) and all sub-accounts
	  mlteam
	EOF
	test_cmp expect out &&
	sacctmgr -n -P show user bob withcoord format=user,coord >out &&
	echo "bob|mlteam" >expect && test_cmp expect out &&
	as bob sacctmgr -i add user alice account=mlteam >/dev/null &&
	as bob sacctmgr -i modify user where user=alice account=mlteam set maxjobs=2 >/dev/null &&
	sacctmgr -n -P show assoc where user=alice account=mlteam format=maxjobs >out &&
	echo 2 >expect && test_cmp expect out &&
	test_expect_code 1 as bob sacctmgr -i add user jdoe account=root 2>err &&
	grep "Access/permission denied" err &&
	test_expect_code 1 as bob sacctmgr -i modify user where user=alice account=research set maxjobs=9 2>err &&
	grep "Access/permission denied" err &&
	as bob sacctmgr -i delete user alice account=mlteam >out &&
	cat >expect <<-\EOF &&
	 Deleting user associations...
	  C = test       A = mlteam     U = alice    
	EOF
	test_cmp expect out
'

test_expect_success 'without -i: the question; no keeps nothing, yes commits' '
	echo n | sacctmgr add account asked >out &&
	cat >expect <<-\EOF &&
	 Adding Account(s)
	  asked
	 Settings
	  Description     = Account Name
	  Organization    = Parent/Account Name
	 Associations
	  A = asked      C = test      
	Would you like to commit changes? (You have 30 seconds to decide)
	(N/y): 
	 Changes Discarded
	EOF
	test_cmp expect out &&
	sacctmgr -n list account asked >out && test_must_be_empty out &&
	echo y | sacctmgr add account asked >/dev/null &&
	sacctmgr -n -P list account asked format=account,descr,org >out &&
	echo "asked|asked|asked" >expect && test_cmp expect out
'

test_expect_success 'delete: users, default-account guard, accounts, QOS, "Nothing deleted"' '
	test_expect_code 1 sacctmgr -i delete account research 2>err &&
	grep "You can not remove the default account of a user" err &&
	sacctmgr -i delete account asked >out &&
	printf " Deleting accounts...\n  asked\n" >expect && test_cmp expect out &&
	test_expect_code 1 sacctmgr -i delete account asked >out &&
	echo " Nothing deleted" >expect && test_cmp expect out &&
	sacctmgr -i add qos tmpq >/dev/null &&
	sacctmgr -i delete qos tmpq >out &&
	printf " Deleting QOS(s)...\n  tmpq\n" >expect && test_cmp expect out
'

test_expect_success 'dump and load: the same tree back after removing part of it' '
	sacctmgr dump test file=dump1.cfg &&
	grep "^Cluster - '"'"'test'"'"'" dump1.cfg &&
	grep "^User - '"'"'bob'"'"'.*Partition='"'"'short'"'"'.*MaxJobs=1" dump1.cfg &&
	sacctmgr show assoc format=account,user,partition,share,grptres,maxjobs,maxwall,qos,defaultqos >before &&
	sacctmgr -i delete user jdoe >/dev/null &&
	sacctmgr -i delete account opsacct >/dev/null &&
	sacctmgr -i modify account research set grptres=cpu=-1 >/dev/null &&
	! test_cmp before after_del 2>/dev/null &&
	sacctmgr -i load file=dump1.cfg >out &&
	sacctmgr show assoc format=account,user,partition,share,grptres,maxjobs,maxwall,qos,defaultqos >after &&
	test_cmp before after &&
	sacctmgr dump test file=dump2.cfg &&
	test_cmp dump1.cfg dump2.cfg
'

test_expect_success 'load clean: the tree is what the file says' '
	sacctmgr -i add account extra >/dev/null &&
	sacctmgr -i load file=dump1.cfg clean >/dev/null &&
	sacctmgr -n list account extra >out && test_must_be_empty out &&
	sacctmgr dump test file=dump3.cfg &&
	test_cmp dump1.cfg dump3.cfg
'

test_expect_success 'a change that was answered survives kill -9 right after; restarts keep everything' '
	sacctmgr show assoc >before &&
	sacctmgr -i add account durable >/dev/null &&
	ctld_kill9 && ctld_start && wait_for 20 scontrol ping &&
	sacctmgr -n -P list account durable format=account >out &&
	echo durable >expect && test_cmp expect out &&
	sacctmgr -i delete account durable >/dev/null &&
	sacctmgr show assoc >after &&
	test_cmp before after &&
	sacctmgr show qos gpu_high format=name,maxtrespu,flags >out &&
	grep "gres/gpu=32" out && grep DenyOnLimit out
'

test_expect_success 'bad input: unknown entity, unknown option, bad value' '
	test_expect_code 1 sacctmgr list nosuch 2>err &&
	grep "No valid entity in list command" err &&
	test_expect_code 1 sacctmgr -i modify qos normal set nosuch=1 2>err &&
	grep "Unknown option: nosuch=1" err &&
	test_expect_code 1 sacctmgr -i modify user bob set maxwall=soon 2>err &&
	grep "Bad value" err &&
	test_expect_code 1 sacctmgr -i add user zed account=nosuch 2>err &&
	grep "This account '"'"'nosuch'"'"' doesn'"'"'t exist." err
'

test_done
