#!/bin/bash
test_description='hot reconfigure: scontrol reconfigure and SIGHUP re-read the config without losing a job'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# conf_edit SED-SCRIPT: edit slurm.conf in place.
conf_edit() { sed -i "$1" "$CL/etc/slurm.conf"; }
part_field() { scontrol show partition "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
gres_nodes() { printf "AutoDetect=off\nNodeName=%s Name=gpu Type=h100 Count=8\n" "$1" >"$CL/etc/gres.conf"; }
in_sinfo() { sinfo -h -N -o '%N' | grep -qx "$1"; }
node_registered() { test_node_state "$1" idle || test_node_state "$1" mixed; }

test_expect_success 'cluster starts' '
	cluster_start 3 &&
	cp "$CL/etc/topology.conf" "$CL/topology.orig" &&
	cp "$CL/etc/gres.conf" "$CL/gres.orig"
'

test_expect_success 'a running and a held job before the changes' '
	run=$(sbatch --parsable -w comp001 -n 2 -o "$CL/work/run.out" --wrap="sleep 300") &&
	wait_job_state $run RUNNING &&
	held=$(sbatch --parsable -H -o /dev/null --wrap=true) &&
	wait_for 5 test_reason $held JobHeldUser
'

test_expect_success 'reconfigure with an unchanged config succeeds quietly' '
	scontrol reconfigure >out 2>err &&
	test_must_be_empty out && test_must_be_empty err &&
	test_job_state $run RUNNING
'

test_expect_success 'an invalid config is refused with every file:line error, nothing changes' '
	cp "$CL/etc/slurm.conf" "$CL/good.conf" &&
	echo "PartitionName=bad Nodes=comp001 MaxNode=3" >>"$CL/etc/slurm.conf" &&
	echo "NodeName=comp009 CPUs=banana" >>"$CL/etc/slurm.conf" &&
	test_expect_code 1 scontrol reconfigure >out 2>err &&
	test_must_be_empty out &&
	grep -q "^slurm_reconfigure error: .*slurm.conf:[0-9][0-9]*: .*MaxNode" err &&
	grep -q "^slurm_reconfigure error: .*slurm.conf:[0-9][0-9]*: .*CPUs" err &&
	test_must_fail scontrol show partition bad &&
	test_job_state $run RUNNING &&
	cp "$CL/good.conf" "$CL/etc/slurm.conf"
'

test_expect_success 'removing the node a job runs on is refused, naming node and job' '
	conf_edit "/^NodeName=comp001 /d; s/comp\[001-003\]/comp[002-003]/g" &&
	printf "SwitchName=leaf1 Nodes=comp[002-003]\n" >"$CL/etc/topology.conf" &&
	gres_nodes "comp[002-003]" &&
	test_expect_code 1 scontrol reconfigure 2>err &&
	grep -q "node comp001 removed but job $run is running there" err &&
	in_sinfo comp001 &&
	cp "$CL/good.conf" "$CL/etc/slurm.conf" &&
	cp "$CL/topology.orig" "$CL/etc/topology.conf" &&
	cp "$CL/gres.orig" "$CL/etc/gres.conf"
'

test_expect_success 'an idle node is removed and its daemon disconnected' '
	conf_edit "/^NodeName=comp003 /d; s/comp\[001-003\]/comp[001-002]/g" &&
	printf "SwitchName=leaf1 Nodes=comp[001-002]\n" >"$CL/etc/topology.conf" &&
	gres_nodes "comp[001-002]" &&
	scontrol reconfigure &&
	! in_sinfo comp003 &&
	test_must_fail scontrol show node comp003 &&
	wait_for 10 grep -q "registration refused" "$CL"/log/noded-comp003.* &&
	test_job_state $run RUNNING &&
	test "$(job_field $run NodeList)" = comp001
'

test_expect_success 'the node is added back with a new partition and topology; its daemon registers' '
	cp "$CL/good.conf" "$CL/etc/slurm.conf" &&
	cp "$CL/gres.orig" "$CL/etc/gres.conf" &&
	echo "PartitionName=gpu Nodes=comp[002-003] MaxTime=2:00:00 PriorityJobFactor=10 State=UP" >>"$CL/etc/slurm.conf" &&
	printf "SwitchName=leafA Nodes=comp[001-002]\nSwitchName=leafB Nodes=comp003\nSwitchName=top Switches=leafA,leafB\n" >"$CL/etc/topology.conf" &&
	scontrol reconfigure &&
	in_sinfo comp003 &&
	wait_for 20 node_registered comp003 &&
	test "$(part_field gpu MaxTime)" = 02:00:00 &&
	scontrol show topology | grep -q "SwitchName=leafB" &&
	id=$(sbatch --parsable -p gpu -w comp003 -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED &&
	test_job_state $run RUNNING
'

test_expect_success 'a partition limit changed in slurm.conf takes effect; the running job is untouched' '
	conf_edit "s/^\(PartitionName=short .*\)MaxTime=1:00:00/\1MaxTime=30/" &&
	scontrol reconfigure &&
	test "$(part_field short MaxTime)" = 00:30:00 &&
	test_job_state $run RUNNING &&
	test "$(job_field $run NodeList)" = comp001 &&
	test "$(job_field $run NumCPUs)" = 2
'

test_expect_success 'resizing a node below what a running job holds is refused' '
	cp "$CL/etc/slurm.conf" "$CL/now.conf" &&
	conf_edit "s/^NodeName=comp001 /NodeName=comp001 CPUs=1 CoresPerSocket=1 /" &&
	test_expect_code 1 scontrol reconfigure 2>err &&
	grep -q "node comp001: job $run holds 2 CPUs" err &&
	cp "$CL/now.conf" "$CL/etc/slurm.conf"
'

test_expect_success 'SIGHUP re-reads the config too' '
	conf_edit "s/^\(PartitionName=short .*\)MaxTime=30/\1MaxTime=45/" &&
	kill -HUP $(cat "$CL/ctld.pid") &&
	wait_for 10 test "$(part_field short MaxTime)" = 00:45:00
'

test_expect_success 'only admins may reconfigure' '
	if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 &&
	   su -s /bin/sh nobody -c "test -x $SLUICE_BUILD/sluice && test -r $SLURM_CONF"; then
		test_expect_code 1 su -s /bin/sh nobody -c "SLURM_CONF=$SLURM_CONF $SLUICE_BUILD/bin/scontrol reconfigure" 2>err &&
		grep -q "Access/permission denied" err
	fi
'

test_expect_success 'jobs survive: the held job is still held, the running one runs and can be cancelled' '
	test_reason $held JobHeldUser &&
	test_job_state $run RUNNING &&
	scancel $run && wait_job_state $run CANCELLED &&
	scancel $held
'

test_expect_success 'after a restart the controller agrees with the reconfigured files' '
	ctld_kill9 && ctld_start &&
	test "$(part_field short MaxTime)" = 00:45:00 &&
	scontrol show partition gpu >/dev/null
'

test_done
