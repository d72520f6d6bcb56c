#!/bin/bash
test_description='--help, --usage and -V/--version of every command, laid out as Slurm 22.05 lays them out'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

ALL="sbatch srun squeue sinfo scontrol scancel sprio sdiag sacct sstat sacctmgr sreport sshare"
# The commands whose help is getopt-style in Slurm (the others describe
# their interactive commands: "scontrol [<OPTION>] [<COMMAND>]").
GETOPT="sbatch srun squeue sinfo scancel sprio sdiag"

test_expect_success 'every command: --help, --usage and -V on stdout, exit 0, stderr empty' '
	for c in $ALL; do
		$c --help >"$c.help" 2>err && test_must_be_empty err &&
		test -s "$c.help" &&
		$c --usage >"$c.usage" 2>err && test_must_be_empty err &&
		test -s "$c.usage" &&
		$c -V >v 2>err && test_must_be_empty err &&
		grep -Eqx "slurm 22\.05\.[0-9]+" v &&
		$c --version >v2 && test_cmp v v2 || { echo "FAILED: $c"; return 1; }
	done
'

test_expect_success 'getopt-style commands: Usage line first, a Help options section with --help and --usage' '
	for c in $GETOPT; do
		head -1 "$c.help" | grep -q "^Usage: $c \[OPTIONS" &&
		grep -qx "Help options:" "$c.help" &&
		sed -n "/^Help options:/,/^\$/p" "$c.help" >h &&
		grep -Eq "^  (-h, )?--help  +[a-z]" h &&
		grep -Eq "^ +--usage  +[a-z]" h &&
		head -1 "$c.usage" | grep -q "^Usage: $c " || { echo "FAILED: $c"; return 1; }
	done
'

test_expect_success 'sbatch and srun group their options under Slurm headings' '
	for c in sbatch srun; do
		for g in "Parallel run options:" "Constraint options:" \
			 "Consumable resources related options:" "GPU scheduling options:" \
			 "Help options:" "Other options:"; do
			grep -qx "$g" "$c.help" || { echo "$c: no $g"; return 1; }
		done
	done &&
	test "$(sed -n 2p sbatch.help)" = "" &&
	grep -q "^  -t, --time=minutes  *[a-z]" sbatch.help &&
	grep -q "^      --mem=MB  *[a-z]" sbatch.help
'

test_expect_success 'option text starts in one column; continuation lines align with it' '
	for c in sbatch srun; do
		grep "^  -[a-zA-Z], --[a-z-]*=[a-z]*  " "$c.help" | sed "s/\(^  -., --[^ ]*  *\).*/\1/" |
			awk "{ print length(\$0) }" | sort -u >cols &&
		test "$(cat cols)" = 30 || { echo "$c: columns $(cat cols)"; return 1; }
	done &&
	grep -A1 -- "--export\[=names\]" sbatch.help | tail -1 | grep -q "^                              (ALL"
'

# Every option a help text lists must be one the command accepts: give
# each to the command before --help and look for getopt complaints.
test_expect_success 'every option listed in sbatch, srun, squeue and sinfo --help is accepted' '
	for c in sbatch srun squeue sinfo; do
		sed -n "s/^ *\(-[a-zA-Z], \)\{0,1\}--\([A-Za-z0-9-]*\)\(\[\{0,1\}=\)\{0,1\}.*/\2 \3/p" \
			"$c.help" >opts &&
		test -s opts &&
		while read -r name eq; do
			case "$eq" in "=") arg="--$name=1" ;; *) arg="--$name" ;; esac
			$c "$arg" --help >/dev/null 2>err </dev/null
			if grep -Eq "unrecognized option|not allow an argument|requires an argument" err; then
				echo "$c: $arg: $(cat err)"; return 1
			fi
		done <opts || return 1
	done
'

test_expect_success 'bad option: Slurm text on stderr, exit 1 or 255, nothing on stdout' '
	test_expect_code 255 sbatch --bogus >out 2>err &&
	test_must_be_empty out &&
	grep -q "^sbatch: unrecognized option .--bogus.$" err &&
	grep -qx "Try \"sbatch --help\" for more information" err &&
	test_expect_code 1 squeue --bogus >out 2>err &&
	test_must_be_empty out &&
	grep -qx "Try \"squeue --help\" for more information" err
'

test_done
