#!/bin/bash
test_description='srun --pty: task 0 on a pseudo terminal, as Slurm 22.05'
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
	cluster_start 2 &&
	chmod 777 "$CL/work"
'

test_expect_success PTY 'task 0 runs on a /dev/pts terminal of the node, its own controlling one' '
	cd "$CL/work" &&
	python3 "$PTYRUN" -- srun --pty sh -c "tty; ps -o sid=,pgid=,tpgid= -p \$\$; echo pid \$\$" >out 2>&1 &&
	unterm out &&
	grep -Eq "^/dev/pts/[0-9]+$" out.txt &&
	pid=$(sed -n "s/^pid //p" out.txt) &&
	echo "$pid $pid $pid" >expect &&
	grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+$" out.txt | tr -s " " | sed "s/^ //" >got &&
	test_cmp expect got
'

test_expect_success PTY 'stty size inside is the size srun'"'"'s terminal had' '
	python3 "$PTYRUN" --size 33 101 -- srun --pty stty size >out 2>&1 &&
	unterm out &&
	echo "33 101" >expect && test_cmp expect out.txt
'

test_expect_success PTY 'a window size change (SIGWINCH) follows to the task'"'"'s terminal' '
	python3 "$PTYRUN" --size 30 90 --expect "ready" --resize 41 123 --expect "41 123" \
		--send "\\x03" -- \
		srun --pty sh -c "trap \"stty size\" WINCH; trap \"exit 0\" INT; stty size; echo ready; while :; do sleep 0.1; done" \
		>out 2>&1 &&
	unterm out &&
	printf "30 90\nready\n41 123\n" >expect &&
	grep -v "^\^C$" out.txt >got && test_cmp expect got
'

test_expect_success PTY 'the exit status of the command is srun'"'"'s, with Slurm'"'"'s line' '
	test_expect_code 7 python3 "$PTYRUN" -- srun --pty sh -c "exit 7" >out 2>&1 &&
	unterm out &&
	echo "srun: error: comp001: task 0: Exited with exit code 7" >expect &&
	test_cmp expect out.txt
'

test_expect_success PTY 'typed input goes to task 0, echoed by its terminal' '
	python3 "$PTYRUN" --expect "name\\?" --send "sluice\\r" -- \
		srun --pty sh -c "echo name?; read n; echo hello \$n" >out 2>&1 &&
	unterm out &&
	printf "name?\nsluice\nhello sluice\n" >expect && test_cmp expect out.txt
'

test_expect_success PTY '-n2: task 0 on the terminal, the others'"'"' output to /dev/null, as Slurm' '
	python3 "$PTYRUN" -- srun --pty -N2 -n2 sh -c "echo out\$SLURM_PROCID; echo err\$SLURM_PROCID >&2; test -t 0" \
		>out 2>&1; rc=$? &&
	test $rc = 1 &&
	unterm out &&
	printf "out0\nerr0\nsrun: error: comp002: task 1: Exited with exit code 1\n" >expect &&
	test_cmp expect out.txt
'

test_expect_success PTY,USERS 'the terminal is the user'"'"'s, mode 0600, as Slurm'"'"'s' '
	python3 "$PTYRUN" -- runuser -u alice -- srun --pty sh -c "stat -c \"%U %G %a\" \$(tty); id -un" >out 2>&1 &&
	unterm out &&
	printf "alice $(id -gn alice) 600\nalice\n" >expect && test_cmp expect out.txt
'

test_expect_success 'stdout no terminal: Slurm'"'"'s two lines, and the step runs without one' '
	test_expect_code 1 srun --pty tty </dev/null >out 2>err &&
	echo "not a tty" >expect && test_cmp expect out &&
	printf "srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\nsrun: error: Not using a pseudo-terminal, disregarding --pty option\nsrun: error: comp001: task 0: Exited with exit code 1\n" >expect &&
	test_cmp expect err
'

test_expect_success PTY 'inside an allocation (salloc + srun --pty)' '
	python3 "$PTYRUN" -- salloc -N1 srun --pty sh -c "tty; echo step \$SLURM_STEP_ID" >out 2>&1 &&
	unterm out &&
	grep -Eq "^/dev/pts/[0-9]+$" out.txt &&
	grep -q "^step 0$" out.txt
'

test_done
