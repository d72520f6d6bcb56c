#!/bin/bash
test_description='--mail-type/--mail-user: the controller runs MailProg as Slurm does (argv, subject lines, environment), never waiting for it'
SHARNESS_TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
. /usr/share/sharness/sharness.sh
. "$SHARNESS_TEST_DIRECTORY/lib.sh"

# MailProg records its argv, stdin and environment, one file per call
# (outside the trash directory: slurm.conf values cannot hold its space).
MAILDIR=$(mktemp -d /tmp/sluice-mail.XXXXXX)
chmod 777 "$MAILDIR"
cat >"$MAILDIR/mail.sh" <<EOF
#!/bin/sh
f=\$(mktemp "$MAILDIR/m.XXXXXX")
{ echo "argc=\$#"; for a in "\$@"; do echo "arg=\$a"; done
  echo "type=\$SLURM_JOB_MAIL_TYPE"; echo "job=\$SLURM_JOB_ID"
  echo "state=\$SLURM_JOB_STATE"; echo "stdin=\$(cat)"; } >"\$f.tmp"
mv "\$f.tmp" "\$f.done"; rm -f "\$f"
EOF
printf '#!/bin/sh\nsleep 60\n' >"$MAILDIR/hang.sh"
chmod 755 "$MAILDIR/mail.sh" "$MAILDIR/hang.sh"

mails() { ls "$MAILDIR"/*.done 2>/dev/null | wc -l; }
mail_with() { grep -l -- "$1" "$MAILDIR"/*.done 2>/dev/null | head -1; }

test_expect_success 'cluster starts with MailProg' '
	cluster_start 1 "MailProg=$MAILDIR/mail.sh"
'

test_expect_success 'BEGIN and END of a job that completes' '
	id=$(sbatch --parsable -J mailjob --mail-type=BEGIN,END --mail-user=someone@example.org \
		-o /dev/null --wrap="sleep 1") &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 20 sh -c "test \$(ls $MAILDIR/*.done 2>/dev/null | wc -l) -ge 2" &&
	b=$(mail_with "Name=mailjob Began") &&
	grep -qx "argc=3" "$b" && grep -qx "arg=-s" "$b" &&
	grep -qx "arg=someone@example.org" "$b" &&
	grep -Eqx "arg=Slurm Job_id=$id Name=mailjob Began, Queued time 00:00:0[0-9]" "$b" &&
	grep -qx "type=Began" "$b" && grep -qx "job=$id" "$b" && grep -qx "stdin=" "$b" &&
	e=$(mail_with "Name=mailjob Ended") &&
	grep -Eqx "arg=Slurm Job_id=$id Name=mailjob Ended, Run time 00:00:0[0-9], COMPLETED, ExitCode 0" "$e" &&
	grep -qx "state=COMPLETED" "$e"
'

test_expect_success 'FAIL: a failed job mails "Failed" with its exit code, once; the default address is the user' '
	rm -f "$MAILDIR"/*.done &&
	id=$(sbatch --parsable -J failjob --mail-type=FAIL,END -o /dev/null --wrap="exit 3") &&
	wait_job_state $id FAILED 30 &&
	wait_for 20 sh -c "ls $MAILDIR/*.done >/dev/null 2>&1" &&
	f=$(mail_with "Name=failjob") &&
	grep -Eqx "arg=Slurm Job_id=$id Name=failjob Failed, Run time 00:00:0[0-9], FAILED, ExitCode 3" "$f" &&
	grep -qx "arg=root" "$f" &&
	test "$(mails)" = 1
'

test_expect_success 'no --mail-type, or NONE: no mail; bad types fail as in Slurm' '
	rm -f "$MAILDIR"/*.done &&
	a=$(sbatch --parsable -o /dev/null --wrap=true) &&
	b=$(sbatch --parsable --mail-type=NONE -o /dev/null --wrap=true) &&
	wait_job_state $a COMPLETED 30 && wait_job_state $b COMPLETED 30 &&
	c=$(sbatch --parsable --mail-type=END -J last -o /dev/null --wrap=true) &&
	wait_job_state $c COMPLETED 30 &&
	wait_for 20 sh -c "ls $MAILDIR/*.done >/dev/null 2>&1" &&
	test "$(mails)" = 1 &&
	test_expect_code 255 sbatch --mail-type=foo --wrap=true 2>err &&
	echo "sbatch: error: Invalid --mail-type specification" >expect &&
	test_cmp expect err
'

test_expect_success 'a recipient that would be an option to MailProg gets no mail' '
	rm -f "$MAILDIR"/*.done &&
	id=$(sbatch --parsable -J dash --mail-type=END --mail-user=-a/etc/shadow -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED 30 &&
	wait_for 10 sh -c "cat \"$CL\"/log/ctld* | grep -q \"job $id: mail: refusing recipient .-a/etc/shadow.\"" &&
	c=$(sbatch --parsable -J after --mail-type=END -o /dev/null --wrap=true) &&
	wait_job_state $c COMPLETED 30 &&
	wait_for 20 sh -c "ls $MAILDIR/*.done >/dev/null 2>&1" &&
	test "$(mails)" = 1 && mail_with "Name=after" >/dev/null &&
	! grep -l -- "-a/etc/shadow" "$MAILDIR"/*.done
'

test_expect_success 'a mailer that hangs does not hold the controller' '
	sed -i "s|^MailProg=.*|MailProg=$MAILDIR/hang.sh|" "$SLURM_CONF" &&
	scontrol reconfigure &&
	id=$(sbatch --parsable --mail-type=ALL -o /dev/null --wrap=true) &&
	wait_job_state $id COMPLETED 30 &&
	scontrol ping | grep -q UP
'

pkill_hang() { pgrep -f "$MAILDIR/hang.sh" | while read -r p; do kill "$p" 2>/dev/null; done; }
test_expect_success 'clean up' '
	pkill_hang; rm -rf "$MAILDIR"
'

test_done
