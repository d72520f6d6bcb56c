#!/bin/bash
test_description='srun --pty: keys to the task'"'"'s terminal (Ctrl-C, job control), srun'"'"'s terminal raw and restored'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# Driven through a pseudo terminal of our own (fixtures/ptyrun.py), as a
# user at a terminal would; a machine without /dev/ptmx or python3 has
# none to give.
PTYRUN="$SHARNESS_TEST_DIRECTORY/fixtures/ptyrun.py"
python3 "$PTYRUN" -- true >/dev/null 2>&1 && test_set_prereq PTY
id alice >/dev/null 2>&1 && test_set_prereq USERS

# The terminal shows \r\n line ends: plain lines for test_cmp.
unterm() { tr -d '\r' <"$1" >"$1.txt"; }

test_expect_success 'cluster starts' '
	cluster_start 1 &&
	chmod 777 "$CL/work" &&
	cd "$CL/work"
'

test_expect_success PTY 'srun --pty bash: an interactive shell with job control; Ctrl-C ends its foreground job' '
	# the job says go once it is the foreground one (bash hands the
	# terminal over after the fork: a Ctrl-C before that is bash'"'"'s)
	cat >fg.sh <<-\EOF &&
	while [ "$(ps -o tpgid= -p $$ | tr -d " ")" != "$(ps -o pgid= -p $$ | tr -d " ")" ]; do
		sleep 0.05
	done
	echo go
	exec sleep 100
	EOF
	python3 "$PTYRUN" --expect "SH> " --send "sh fg.sh\\r" --expect "\ngo\r\n" \
		--send "\\x03" --expect "SH> " --send "echo rc=\$?\\r" --expect "rc=130" \
		--send "exit 4\\r" -- \
		env PS1="SH> " srun --pty bash --norc --noprofile -i >out 2>&1; rc=$? &&
	test $rc = 4 &&
	unterm out &&
	grep -q "SH> echo rc=\$?$" out.txt &&
	grep -q "rc=130$" out.txt &&
	! grep -qi "job control" out.txt &&
	! grep -q "interrupt (one more" out.txt &&
	tail -1 out.txt >last &&
	echo "srun: error: comp001: task 0: Exited with exit code 4" >expect && test_cmp expect last
'

test_expect_success PTY 'Ctrl-C reaches the foreground job on the node, not srun' '
	python3 "$PTYRUN" --expect "ready" --send "\\x03" -- \
		srun --pty sh -c "trap \"echo caught INT; exit 5\" INT; echo ready; while :; do sleep 0.1; done" \
		>out 2>&1; rc=$? &&
	test $rc = 5 &&
	unterm out &&
	printf "ready\n^Ccaught INT\nsrun: error: comp001: task 0: Exited with exit code 5\n" >expect &&
	test_cmp expect out.txt &&
	! grep -q "interrupt (one more" out.txt &&
	! grep -q "sending Ctrl-C" out.txt
'

test_expect_success PTY 'a process the task leaves holding its terminal does not hold srun' '
	start=$(date +%s) &&
	python3 "$PTYRUN" -- srun --pty sh -c "setsid sleep 30 & echo left" >out 2>&1 &&
	end=$(date +%s) &&
	unterm out &&
	echo left >expect && test_cmp expect out.txt &&
	test $((end - start)) -lt 20
'

test_expect_success PTY 'srun'"'"'s terminal is raw while the step runs and restored after' '
	python3 "$PTYRUN" --expect "^[0-9a-f:]+\r\n" --mode before --expect "ready" --mode during \
		--send "x\\r" -- \
		sh -c "stty -g; srun --pty sh -c \"echo ready; read x\"; stty -g" >out 2>&1 &&
	echo "icanon echo isig" >expect && test_cmp expect before &&
	echo "-icanon -echo -isig" >expect && test_cmp expect during &&
	unterm out &&
	head -1 out.txt >before.g && tail -1 out.txt >after.g &&
	grep -Eq "^[0-9a-f:]+$" before.g &&
	test_cmp before.g after.g
'

# srun in the background of a shell on the same terminal, signalled
# once its terminal is raw; the shell prints the settings after.
signalled_srun() {
	python3 "$PTYRUN" -- sh -c "stty -g; srun --pty sleep 60 </dev/tty & p=\$!; until stty -a </dev/tty | grep -q -- -icanon; do sleep 0.1; done; kill -$1 \$p; wait \$p; echo rc=\$?; stty -g" >out 2>&1 &&
	unterm out &&
	head -1 out.txt >before.g && tail -1 out.txt >after.g &&
	grep -Eq "^[0-9a-f:]+$" before.g &&
	test_cmp before.g after.g
}

test_expect_success PTY 'srun'"'"'s terminal is restored when a signal ends srun' '
	signalled_srun TERM &&
	grep -q "^rc=137$" out.txt &&
	grep -q "^srun: forcing job termination$" out.txt &&
	grep -q "^srun: Job step aborted: Waiting up to [0-9]* seconds for job step to finish.$" out.txt &&
	signalled_srun ALRM &&
	grep -q "^rc=142$" out.txt
'

test_done
