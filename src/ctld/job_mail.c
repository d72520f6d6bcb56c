/*
 * job_mail: --mail-type/--mail-user. When a job begins or ends the
 * controller runs MailProg (slurm.conf, /bin/mail by default) as Slurm
 * does: argv "-s SUBJECT ADDRESS", stdin /dev/null, as SlurmUser, with
 * SLURM_JOB_* variables describing the event, and with Slurm's subject
 * lines ("Slurm Job_id=12 Name=train Began, Queued time 00:00:01",
 * "... Ended, Run time 00:05:01, COMPLETED, ExitCode 0", "... Failed, ...").
 *
 * The loop never waits for the mailer: a short-lived child forks the
 * mailer and exits at once, so the mailer is nobody's child here and
 * nothing is left to reap.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

/* Run MailProg detached; never waits for it. */
static void run_mailer(ctld_t *cd, const char *subject, const char *to, char **envp)
{
	const char *prog = conf_get(cd->conf, "MailProg");
	if (!prog || !*prog || !strcmp(prog, "(null)"))
		prog = "/bin/mail";
	pid_t pid = fork();
	if (pid < 0) {
		error("mail: fork: %m");
		return;
	}
	if (pid == 0) {
		pid_t g = fork();
		if (g != 0)
			_exit(g < 0 ? 1 : 0);
		setsid();
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		for (int s = 1; s < NSIG; s++)
			signal(s, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close_range(3, ~0u, 0);
		if (geteuid() == 0 && cd->slurm_uid != 0) {
			struct passwd *pw = getpwuid(cd->slurm_uid);
			if (!pw || setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 ||
			    setuid(cd->slurm_uid) < 0)
				_exit(1);
		}
		char *argv[] = { (char *)"mail", (char *)"-s", (char *)subject, (char *)to, NULL };
		execve(prog, argv, envp);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

void job_mail(ctld_t *cd, const job_t *j, uint32_t event)
{
	const job_desc_t *d = j->desc;
	if (!d || !(d->mail_type & event))
		return;
	char t[32], *subject;
	const char *what;
	uint32_t state = j->state & JOB_STATE_BASE;
	int exit_code = WIFEXITED(j->exit_code) ? WEXITSTATUS(j->exit_code) : 0;
	const char *name = d->name ? d->name : "";
	if (event == MAIL_BEGIN) {
		what = "Began";
		secs_fmt_hms((long)(j->start_time - j->submit_time), t, sizeof(t));
		subject = xasprintf("Slurm Job_id=%u Name=%s Began, Queued time %s", j->job_id,
				    name, t);
	} else {
		what = event == MAIL_FAIL ? "Failed" : event == MAIL_REQUEUE ? "Requeued" : "Ended";
		secs_fmt_hms((long)(j->end_time - j->start_time), t, sizeof(t));
		subject = xasprintf("Slurm Job_id=%u Name=%s %s, Run time %s, %s, ExitCode %d",
				    j->job_id, name, what, t, job_state_string(state), exit_code);
	}
	char *to;
	const char *user = d->mail_user && *d->mail_user ? d->mail_user : d->user_name;
	const char *domain = conf_get(cd->conf, "MailDomain");
	if (domain && *domain && strcmp(domain, "(null)") && user && !strchr(user, '@'))
		to = xasprintf("%s@%s", user, domain);
	else
		to = xstrdup(user ? user : "root");
	/* The recipient is the submitter's text and MailProg runs as
	 * SlurmUser: one that begins with '-' would be an option to it
	 * (mailx -a FILE attaches a file), so it gets no mail. */
	if (to[0] == '-') {
		error("job %u: mail: refusing recipient '%s' (begins with '-')", j->job_id, to);
		free(subject);
		free(to);
		return;
	}
	char *env[] = {
		xasprintf("SLURM_JOB_ID=%u", j->job_id),
		xasprintf("SLURM_JOB_NAME=%s", name),
		xasprintf("SLURM_JOB_USER=%s", d->user_name ? d->user_name : ""),
		xasprintf("SLURM_JOB_MAIL_TYPE=%s", what),
		xasprintf("SLURM_JOB_STATE=%s", job_state_string(state)),
		xasprintf("SLURM_JOB_EXIT_CODE=%d", exit_code),
		xstrdup("PATH=/usr/local/bin:/usr/bin:/bin"),
		NULL,
	};
	verbose("job %u: mail %s to %s", j->job_id, what, to);
	run_mailer(cd, subject, to, env);
	for (char **e = env; *e; e++)
		free(*e);
	free(subject);
	free(to);
}

void job_mail_end(ctld_t *cd, const job_t *j)
{
	const job_desc_t *d = j->desc;
	if (!d || !d->mail_type)
		return;
	uint32_t state = j->state & JOB_STATE_BASE;
	/* Slurm: a job that completed or was cancelled mails END; any other
	 * end mails FAIL if asked, else END. */
	if (state == JOB_COMPLETE || state == JOB_CANCELLED)
		job_mail(cd, j, MAIL_END);
	else if (d->mail_type & MAIL_FAIL)
		job_mail(cd, j, MAIL_FAIL);
	else
		job_mail(cd, j, MAIL_END);
}
