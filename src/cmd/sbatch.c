/*
 * sbatch: submit a batch script.
 *
 * The script comes from a path argument, stdin, or --wrap. Options come
 * from #SBATCH directives, SBATCH_* variables and the command line (in
 * that order of precedence, lowest first; see jobopts.h). The submission
 * is one MSG_SUBMIT round trip on one connection: sbatch is often called
 * in loops by workflow engines, so it must cost little more than starting
 * a process (client-mode config, no DNS, no user database lookups).
 *
 * On success stdout gets exactly "Submitted batch job N" (or "N" with
 * --parsable) and stderr nothing; --wait then waits for the job to end and
 * exits with its exit code (1 if it was killed by a signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

extern char **environ;

/* Read all of fd; NULL on a read error. */
static char *read_all(int fd, size_t *len)
{
	strbuf_t sb = STRBUF_INIT;
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			strbuf_release(&sb);
			return NULL;
		}
		if (n == 0)
			break;
		strbuf_add(&sb, buf, (size_t)n);
	}
	*len = sb.len;
	return strbuf_detach(&sb);
}

static char *abs_path(const char *cwd, const char *p)
{
	if (p[0] == '/')
		return xstrdup(p);
	return xasprintf("%s/%s", cwd, p);
}

/* --wait: block until the job ends. The connection may be held for days,
 * so a lost connection is retried rather than reported. */
static int wait_for_job(uint32_t job_id)
{
	const conf_t *conf = cmd_conf();
	msg_job_wait_t req = { .job_id = job_id, .until = WAIT_UNTIL_FINISHED };
	int delay_ms = 100;

	for (;;) {
		int err = 0;
		rpc_t *r = rpc_connect_ctld(conf, &err);
		if (r && !(err = rpc_send(r, MSG_JOB_WAIT, &req))) {
			enum msg_type t = MSG_NONE;
			void *msg = NULL;
			err = rpc_recv(r, &t, &msg, -1);
			rpc_close(r);
			r = NULL;
			if (!err && t == MSG_JOB_INFO) {
				msg_job_info_t *ji = msg;
				int rc = 0;
				for (uint32_t i = 0; i < ji->njobs; i++) {
					uint32_t st = ji->jobs[i].exit_code;
					int ec = (st & 0x7f) ? 1 : (int)((st >> 8) & 0xff);
					if (ec > rc)
						rc = ec;
				}
				proto_msg_destroy(t, msg);
				return rc;
			}
			if (!err && t == MSG_RC) {
				int rc = ((msg_rc_t *)msg)->rc;
				proto_msg_destroy(t, msg);
				if (rc == ESLURM_INVALID_JOB_ID) {
					error("Job %u no longer known: %s", job_id, slurm_strerror(rc));
					return 1;
				}
				err = rc ? rc : SLUICE_E_PROTOCOL;
			} else if (msg) {
				proto_msg_destroy(t, msg);
			}
		}
		rpc_close(r);
		if (log_get_level() >= LOG_LVL_VERBOSE)
			verbose("waiting for job %u: %s; retrying", job_id, slurm_strerror(err));
		usleep((useconds_t)delay_ms * 1000);
		if (delay_ms < 5000)
			delay_ms *= 2;
	}
}

int cmd_sbatch(int argc, char **argv)
{
	jobopts_t first, o;
	int rc;
	char *script = NULL;
	size_t script_len = 0;

	log_init("sbatch", 0, LOG_LVL_INFO, NULL);

	/* First pass: find the script, --wrap and the informational flags. */
	jobopts_init(&first, JOBOPTS_SBATCH);
	if ((rc = jobopts_parse_argv(&first, argc, argv, 0))) {
		jobopts_release(&first);
		return rc;
	}
	if (first.help || first.usage || first.version) {
		if (first.help)
			cmd_help_print(stdout, &cmd_help_sbatch);
		else if (first.usage)
			cmd_usage_print(stdout, &cmd_help_sbatch);
		else
			printf("slurm %s\n", SLURM_COMPAT_VERSION);
		jobopts_release(&first);
		return 0;
	}
	int argi = first.argi;
	const char *path = argi < argc ? argv[argi] : NULL;
	if (first.wrap && path) {
		error("Script arguments not permitted with --wrap option");
		jobopts_release(&first);
		return 1;
	}
	if (first.wrap) {
		script = jobopts_wrap_script(first.wrap);
		script_len = strlen(script);
	} else {
		int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
		if (fd < 0) {
			error("Unable to open file %s", path);
			jobopts_release(&first);
			return 1;
		}
		script = read_all(fd, &script_len);
		if (path)
			close(fd);
		if (!script) {
			error("Unable to read file %s", path ? path : "stdin");
			jobopts_release(&first);
			return 1;
		}
		if (jobopts_check_script(script, script_len)) {
			free(script);
			jobopts_release(&first);
			return 1;
		}
	}
	jobopts_release(&first);

	/* Second pass: directives < environment < command line. */
	jobopts_init(&o, JOBOPTS_SBATCH);
	if ((rc = jobopts_parse_script(&o, script)) ||
	    (rc = jobopts_parse_env(&o, environ)) ||
	    (rc = jobopts_parse_argv(&o, argc, argv, 0)) ||
	    (rc = jobopts_check(&o))) {
		free(script);
		jobopts_release(&o);
		return rc;
	}
	if (o.quiet)
		log_set_level(LOG_LVL_ERROR);
	else if (o.verbose)
		log_set_level((enum log_level)(LOG_LVL_INFO + o.verbose));
	jobopts_print_defined(&o, stderr);

	job_desc_t *d = &o.desc;
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd))) {
		error("getcwd failed: %s", strerror(errno));
		free(script);
		jobopts_release(&o);
		return 1;
	}
	if (!d->name) {
		if (o.wrap)
			d->name = xstrdup("wrap");
		else if (path) {
			const char *b = strrchr(path, '/');
			d->name = xstrdup(b ? b + 1 : path);
		} else
			d->name = xstrdup("sbatch");
	}
	if (d->work_dir) {
		char *w = abs_path(cwd, d->work_dir);
		free(d->work_dir);
		d->work_dir = w;
	} else {
		d->work_dir = xstrdup(cwd);
	}
	d->script = script;
	if (path) {
		char *full = abs_path(cwd, path);
		strv_push(&d->argv, full);
		free(full);
		for (int i = argi + 1; i < argc; i++)
			strv_push(&d->argv, argv[i]);
	}
	d->alloc_node = cmd_short_hostname();
	d->alloc_sid = (uint32_t)getsid(0);
	jobopts_build_env(&o, environ);

	if (d->flags & JOB_F_TEST_ONLY) {
		rc = jobopts_test_only(&o);
		jobopts_release(&o);
		return rc;
	}
	enum msg_type rtype = MSG_NONE;
	void *reply = NULL;
	int err = cmd_submit(d, &rtype, &reply);
	uint32_t job_id = 0;
	if (!err && rtype == MSG_SUBMIT_REPLY) {
		msg_submit_reply_t *sr = reply;
		if (sr->rc) {
			/* A detail line only when it says more than the error text. */
			if (sr->msg && *sr->msg && strcmp(sr->msg, slurm_strerror(sr->rc)))
				error("%s", sr->msg);
			err = sr->rc;
		}
		job_id = sr->job_id;
	} else if (!err && rtype == MSG_RC) {
		msg_rc_t *m = reply;
		if (m->msg && *m->msg && strcmp(m->msg, slurm_strerror(m->rc)))
			error("%s", m->msg);
		err = m->rc ? m->rc : SLUICE_E_PROTOCOL;
	} else if (!err) {
		err = SLUICE_E_PROTOCOL;
	}
	if (reply)
		proto_msg_destroy(rtype, reply);
	if (err) {
		error("Batch job submission failed: %s", slurm_strerror(err));
		jobopts_release(&o);
		return 1;
	}
	if (!o.quiet) {
		if (o.parsable)
			printf("%u\n", job_id);
		else
			printf("Submitted batch job %u\n", job_id);
	}
	int wait = o.wait;
	jobopts_release(&o);
	if (!wait)
		return 0;
	fflush(stdout);
	return wait_for_job(job_id);
}
