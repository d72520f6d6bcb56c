#!/bin/bash
test_description='squeue options as Slurm 22.05: -i, -M, -w, -L, -R, -S keys, --start order'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

test_expect_success 'cluster starts; three held jobs' '
	cluster_start 2 &&
	a=$(sbatch --parsable -H -J aa -t 30 -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable -H -J bb -t 10 -o /dev/null --wrap=true) &&
	c=$(sbatch --parsable -H -J cc -t 20 -N 2 -o /dev/null --wrap=true) &&
	echo "$a $b $c" >ids
'

test_expect_success 'squeue -i N: a date line, the header, the rows and a blank line each time' '
	timeout 6 squeue -i 1 -n aa >out ;
	sed -n 1p out | grep -Eq "^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [0-9]{2} [0-9:]{8} [0-9]{4}\$" &&
	sed -n 2p out | grep -q "^ *JOBID PARTITION" &&
	sed -n 3p out | grep -q " aa " &&
	test -z "$(sed -n 4p out)" &&
	sed -n 5p out | grep -Eq "^[A-Z][a-z]{2} " &&
	timeout 2 squeue -h -i 1 -n nosuch >out ;
	test -s out && test -z "$(tr -d "\n" <out)"
'

test_expect_success 'squeue -i takes only a positive number (Slurm'"'"'s message)' '
	test_expect_code 1 squeue -i 0 2>err &&
	printf "squeue: error: --iterate=0\n\n" >expect &&
	test_cmp expect err &&
	test_expect_code 1 squeue -i x 2>err &&
	printf "squeue: error: --iterate=x\n\n" >expect &&
	test_cmp expect err
'

test_expect_success 'squeue -M: our cluster prints a CLUSTER line; another is refused' '
	name=$(scontrol show config | sed -n "s/^ClusterName *= //p") &&
	squeue -M "$name" -n nosuch >out &&
	printf "CLUSTER: %s\n             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n" "$name" >expect &&
	test_cmp expect out &&
	squeue -M all -h -n nosuch >out && test_must_be_empty out &&
	test_expect_code 1 squeue -M other 2>err &&
	cat >expect <<-\EOF &&
	squeue: error: No cluster '"'"'other'"'"' known by database.
	squeue: error: '"'"'other'"'"' can'"'"'t be reached now, or it is an invalid entry for --cluster.  Use '"'"'sacctmgr list clusters'"'"' to see available clusters.
	EOF
	test_cmp expect err
'

test_expect_success 'squeue -w: an unknown node is an error; -L and -R match no Sluice job' '
	test_expect_code 1 squeue -w comp001,nosuch 2>err &&
	echo "squeue: error: Invalid node name nosuch" >expect &&
	test_cmp expect err &&
	squeue -h -w comp001 && 
	test -z "$(squeue -h -L lic1)" &&
	test -z "$(squeue -h -R resv1)" &&
	test -n "$(squeue -h)"
'

test_expect_success 'squeue -S: every key Slurm takes, none it refuses' '
	for k in b B c C d D e f g G h H i I j J l L m M n N O p P Q S t T u U v V z; do
		squeue -h -S $k >/dev/null 2>err && test_must_be_empty err || return 1
	done &&
	for k in a A E F k K o q r R s w W x X y Y Z; do
		test_expect_code 1 squeue -h -S $k 2>err &&
		test "$(cat err)" = "squeue: error: Invalid sort specification: $k" || return 1
	done
'

test_expect_success 'squeue -S sorts by each key, + and - as Slurm' '
	read a b c <ids &&
	test "$(squeue -h -S l -o %i | tr "\n" " ")" = "$b $c $a " &&
	test "$(squeue -h -S -l -o %i | tr "\n" " ")" = "$a $c $b " &&
	test "$(squeue -h -S +L -o %i | tr "\n" " ")" = "$b $c $a " &&
	test "$(squeue -h -S -D,i -o %i | tr "\n" " ")" = "$c $a $b " &&
	test "$(squeue -h -S -j -o %j | tr "\n" " ")" = "cc bb aa "
'

test_expect_success 'squeue --start: pending jobs, Slurm'"'"'s columns, the ones without a start last' '
	squeue --start >out &&
	head -1 out >h &&
	echo "             JOBID PARTITION     NAME     USER ST          START_TIME  NODES SCHEDNODES           NODELIST(REASON)" >expect &&
	test_cmp expect h &&
	test $(wc -l <out) = 4 &&
	grep -q " PD                 N/A      2 (null)               (JobHeldUser)\$" out
'

test_expect_success 'squeue -s lists steps, not jobs (0801 covers it)' '
	squeue -s -t all >out 2>err &&
	head -1 out >actual &&
	echo "         STEPID     NAME PARTITION     USER      TIME NODELIST" >expect &&
	test_cmp expect actual && test_must_be_empty err
'

# A name of 2-byte characters in columns whose width in bytes falls inside
# one: Slurm cuts by bytes and prints half a character; Sluice cuts before
# it and pads the column to its width (in bytes, as Slurm's).
test_expect_success 'a column never cuts a UTF-8 character in two (squeue, sacct)' '
	id=$(sbatch --parsable -H -J "éééééé" -o /dev/null --wrap=true) &&
	squeue -h -j $id -o "%.8j|%.7j|%7j|%.3j|%j" >out &&
	iconv -f UTF-8 -t UTF-8 out >/dev/null &&
	echo "éééé| ééé|ééé | é|éééééé" >expect &&
	test_cmp expect out &&
	wait_for 10 sh -c "sacct -n -X -j $id -o JobName%8 | grep -q ." &&
	sacct -n -X -j $id -o JobName%8,JobName%9,JobName%-8 >out &&
	iconv -f UTF-8 -t UTF-8 out >/dev/null &&
	echo " ééé+ éééé+ ééé+  " >expect &&
	test_cmp expect out &&
	scancel $id
'

test_done
