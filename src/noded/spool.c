/*
 * spool: the node daemon's on-disk state, so that jobs outlive it.
 *
 * Layout under SlurmdSpoolDir (one per noded):
 *   job<ID>/state            record of the batch supervisor (below)
 *   job<ID>/script           the batch script (0700, owned by the user)
 *   job<ID>/req.<seq>        pending control requests (signal/cancel)
 *   step<ID>.<STEP>/state    record of an srun step supervisor
 *   step<ID>.<STEP>/req.<seq>
 *   job<ID>/tasks, step<ID>.<STEP>/tasks
 *                            the job's process groups (below)
 *   lease                    the node's lease on its jobs (below)
 * A record is "key=value" lines: job_id, step_id, launch_seq, pid,
 * pid_start (the supervisor's start time in clock ticks from
 * /proc/PID/stat, so a recycled pid is not mistaken for it), and once the
 * job ended: done=1, exit_status, end_state, end_time. Every file is
 * written to a temporary name, fsync'd and renamed, so a reader sees the
 * old or the new record, never half of one.
 *
 * tasks: one "PGID START" line per task the supervisor started (each task
 * leads its own session and process group; START is the leader's
 * /proc start time). When a supervisor dies (kill -9, OOM killer), noded
 * kills what is left of its job from this file (spool_tasks_kill).
 *
 * lease: "renewed_ms=... lease_ms=..." where renewed_ms is CLOCK_BOOTTIME
 * (comparable between the processes of one boot) of the last heartbeat the
 * controller is known to have heard, and lease_ms how long jobs may run
 * past it. noded writes it (ctld_link.c); every supervisor reads it and
 * stops its job with NODE_FAIL once the lease has run out, so a node cut
 * off from the controller, or whose noded died, stops its jobs before the
 * controller runs them elsewhere (fencing, docs/architecture.md). It is
 * not fsync'd: it must outlive noded, not the host, whose crash ends the
 * jobs anyway.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "noded.h"
#include "xalloc.h"

char *spool_job_dir(const char *spool, uint32_t job_id)
{
	return xasprintf("%s/job%u", spool, job_id);
}

char *spool_step_dir(const char *spool, uint32_t job_id, uint32_t step_id)
{
	return xasprintf("%s/step%u.%u", spool, job_id, step_id);
}

void spool_rec_format(const spool_rec_t *r, strbuf_t *out)
{
	strbuf_addf(out, "job_id=%u\nstep_id=%u\nlaunch_seq=%u\npid=%" PRId64
		    "\npid_start=%" PRIu64 "\n", r->job_id, r->step_id,
		    r->launch_seq, r->pid, r->pid_start);
	if (r->done)
		strbuf_addf(out, "done=1\nexit_status=%u\nend_state=%u\nend_time=%" PRId64 "\n",
			    r->exit_status, r->end_state, r->end_time);
}

int spool_rec_parse(const char *text, spool_rec_t *r)
{
	memset(r, 0, sizeof(*r));
	int have = 0;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[128];
		if (len >= sizeof(line))
			return -1;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (eol ? 1 : 0);
		if (!*line)
			continue;
		char *eq = strchr(line, '=');
		if (!eq)
			return -1;
		*eq = '\0';
		const char *v = eq + 1;
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 10);
		if (!*v || *end || errno)
			return -1;
		if (!strcmp(line, "job_id"))
			r->job_id = (uint32_t)n, have |= 1;
		else if (!strcmp(line, "step_id"))
			r->step_id = (uint32_t)n;
		else if (!strcmp(line, "launch_seq"))
			r->launch_seq = (uint32_t)n;
		else if (!strcmp(line, "pid"))
			r->pid = (int64_t)n, have |= 2;
		else if (!strcmp(line, "pid_start"))
			r->pid_start = n;
		else if (!strcmp(line, "done"))
			r->done = (int)n;
		else if (!strcmp(line, "exit_status"))
			r->exit_status = (uint32_t)n;
		else if (!strcmp(line, "end_state"))
			r->end_state = (uint32_t)n;
		else if (!strcmp(line, "end_time"))
			r->end_time = (int64_t)n;
		/* unknown keys: a newer writer; skip */
	}
	return have == 3 ? 0 : -1;
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	char *tmp = xasprintf("%s.new.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	const char *d = data;
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, d + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd) < 0 || fchmod(fd, mode) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	return 0;
fail:;
	int e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

static char *read_small_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(&sb, buf, (size_t)n);
		if (sb.len > (1u << 20))
			break;
	}
	close(fd);
	return strbuf_detach(&sb);
}

/* Replace dir/name with sb's text atomically (mode 0600) and release sb.
 * 0 or -1 with errno. */
static int write_dir_file(const char *dir, const char *name, strbuf_t *sb)
{
	char *path = xasprintf("%s/%s", dir, name);
	int rc = write_file_atomic(path, sb->buf, sb->len, 0600);
	int e = errno;
	free(path);
	strbuf_release(sb);
	errno = e;
	return rc;
}

int spool_rec_write(const char *dir, const spool_rec_t *r)
{
	strbuf_t sb = STRBUF_INIT;
	spool_rec_format(r, &sb);
	return write_dir_file(dir, "state", &sb);
}

int spool_rec_read(const char *dir, spool_rec_t *r)
{
	char *path = xasprintf("%s/state", dir);
	char *text = read_small_file(path);
	free(path);
	if (!text) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	int rc = spool_rec_parse(text, r);
	free(text);
	return rc;
}

uint64_t proc_start_time(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *text = read_small_file(path);
	if (!text)
		return 0;
	/* comm may hold spaces and ')': fields resume after the last ')'. */
	char *p = strrchr(text, ')');
	uint64_t st = 0;
	if (p) {
		p++;
		/* after ')': field 3 (state) ... field 22 (starttime) */
		int field = 2;
		char *save = NULL;
		for (char *tok = strtok_r(p, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			field++;
			if (field == 3 && tok[0] == 'Z')
				break;          /* a zombie is as good as gone */
			if (field == 22) {
				st = strtoull(tok, NULL, 10);
				break;
			}
		}
	}
	free(text);
	return st;
}

int spool_rec_alive(const spool_rec_t *r)
{
	if (r->pid <= 1)
		return 0;
	uint64_t st = proc_start_time((pid_t)r->pid);
	return st != 0 && st == r->pid_start;
}

int spool_request_write(const char *dir, const msg_signal_job_t *m)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* names sort in arrival order: zero-padded time, pid, counter */
	char *path = xasprintf("%s/req.%020lld.%09ld.%d.%06u", dir, (long long)ts.tv_sec,
			       ts.tv_nsec, (int)getpid(), counter++ % 1000000u);
	strbuf_t sb = STRBUF_INIT;
	strbuf_addf(&sb, "signal=%u\nflags=%u\nkill_wait=%u\nend_state=%u\n"
		    "end_time=%" PRId64 "\n", m->signal, m->flags, m->kill_wait, m->end_state,
		    m->end_time);
	if (m->message) {             /* hex: any byte survives the line format */
		strbuf_addstr(&sb, "message=");
		for (const unsigned char *p = (const unsigned char *)m->message; *p; p++)
			strbuf_addf(&sb, "%02x", *p);
		strbuf_addch(&sb, '\n');
	}
	int rc = write_file_atomic(path, sb.buf, sb.len, 0600);
	strbuf_release(&sb);
	free(path);
	return rc;
}

static int req_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int spool_request_take(const char *dir, msg_signal_job_t *m)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "req.", 4) || strstr(de->d_name, ".new."))
			continue;
		names = xgrow(names, sizeof(*names), n + 1, &alloc);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	int got = 0;
	if (n) {
		qsort(names, n, sizeof(*names), req_cmp);
		for (size_t i = 0; i < n && !got; i++) {
			char *path = xasprintf("%s/%s", dir, names[i]);
			char *text = read_small_file(path);
			unlink(path);
			free(path);
			if (!text)
				continue;
			memset(m, 0, sizeof(*m));
			char *save = NULL;
			for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
				unsigned v;
				long long t;
				if (sscanf(l, "end_time=%lld", &t) == 1)
					m->end_time = t;
				else if (sscanf(l, "signal=%u", &v) == 1)
					m->signal = v;
				else if (sscanf(l, "flags=%u", &v) == 1)
					m->flags = v;
				else if (sscanf(l, "kill_wait=%u", &v) == 1)
					m->kill_wait = v;
				else if (sscanf(l, "end_state=%u", &v) == 1)
					m->end_state = v;
				else if (!strncmp(l, "message=", 8) && !m->message) {
					const char *h = l + 8;
					size_t hl = strlen(h) / 2;
					m->message = xmalloc(hl + 1);
					size_t k = 0;
					for (; k < hl && sscanf(h + 2 * k, "%2x", &v) == 1; k++)
						m->message[k] = (char)v;
					m->message[k] = 0;
				}
			}
			free(text);
			got = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return got;
}

void spool_scan(const char *spool, spool_scan_f fn, void *arg)
{
	DIR *d = opendir(spool);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "job", 3) && strncmp(de->d_name, "step", 4))
			continue;
		char *dir = xasprintf("%s/%s", spool, de->d_name);
		struct stat st;
		if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
			spool_rec_t r;
			int ok = spool_rec_read(dir, &r) == 0;
			fn(dir, ok ? &r : NULL, arg);
		}
		free(dir);
	}
	closedir(d);
}

int rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d))) {
				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				char *sub = xasprintf("%s/%s", path, de->d_name);
				rm_rf(sub);
				free(sub);
			}
			closedir(d);
		}
		return rmdir(path);
	}
	return unlink(path);
}

static char *revoke_path(const char *spool, uint32_t job_id)
{
	return xasprintf("%s/revoked.%u", spool, job_id);
}

/* Remove the files "<spool>/<prefix>*" that hold a time (epoch s) older
 * than now - keep. The revocations and the credential
 * use marks are purged so, each time one is added: they stay bounded by
 * what was added within their lifetime. */
static void purge_timed_marks(const char *spool, const char *prefix, int64_t keep, int64_t now)
{
	DIR *d = opendir(spool);
	if (!d)
		return;
	size_t plen = strlen(prefix);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen))
			continue;
		char *p = xasprintf("%s/%s", spool, de->d_name);
		char *t = read_small_file(p);
		if (t && strtoll(t, NULL, 10) < now - keep)
			unlink(p);
		free(t);
		free(p);
	}
	closedir(d);
}

void spool_revoke(const char *spool, uint32_t job_id, int64_t now)
{
	char *p = revoke_path(spool, job_id);
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%" PRId64 "\n", now);
	if (write_file_atomic(p, buf, (size_t)n, 0644) < 0)
		error("job %u: cannot record its credential revocation in %s: %m", job_id, p);
	free(p);
	purge_timed_marks(spool, "revoked.", NODED_REVOKE_KEEP, now);
}

int64_t spool_revoked_at(const char *spool, uint32_t job_id, int64_t now)
{
	char *p = revoke_path(spool, job_id);
	char *t = read_small_file(p);
	free(p);
	int64_t at = t ? strtoll(t, NULL, 10) : 0;
	free(t);
	if (at <= 0 || at < now - NODED_REVOKE_KEEP)
		return 0;
	return at;
}

static char *cred_use_path(const char *spool, uint32_t job_id, uint32_t step_id)
{
	return xasprintf("%s/cred.%u.%u", spool, job_id, step_id);
}

int spool_cred_use(const char *spool, uint32_t job_id, uint32_t step_id, int64_t expires,
		   int64_t now)
{
	purge_timed_marks(spool, "cred.", 0, now);
	char *p = cred_use_path(spool, job_id, step_id);
	/* O_EXCL: of two launches at once, one wins */
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno != EEXIST)
			error("step %u.%u: cannot mark its credential used in %s: %m", job_id, step_id, p);
		free(p);
		return -1;
	}
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%" PRId64 "\n", expires);
	int rc = write(fd, buf, (size_t)n) == n && fsync(fd) == 0 ? 0 : -1;
	close(fd);
	if (rc < 0) {
		/* an unreadable mark would be purged and reopen the window */
		error("step %u.%u: cannot record its credential use in %s: %m", job_id, step_id, p);
		unlink(p);
	}
	free(p);
	return rc;
}

/* ---- the tasks of a supervisor ---- */

int spool_tasks_write(const char *dir, const pid_t *pgids, uint32_t n)
{
	return spool_tasks_write_ranks(dir, pgids, n, 0);
}

/* One line per task: "PGID START GLOBAL_RANK LOCAL_ID" (readers that know
 * only the first two fields, spool_tasks_kill and metrics.c, still work). */
int spool_tasks_write_ranks(const char *dir, const pid_t *pgids, uint32_t n, uint32_t first)
{
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t i = 0; i < n; i++)
		if (pgids[i] > 0)
			strbuf_addf(&sb, "%d %" PRIu64 " %u %u\n", (int)pgids[i],
				    proc_start_time(pgids[i]), first + i, i);
	return write_dir_file(dir, "tasks", &sb);
}

int proc_pgrp_sid(pid_t pid, pid_t *pgrp, pid_t *sid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char *text = read_small_file(path);
	if (!text)
		return -1;
	char *p = strrchr(text, ')');
	int st, pg, se;
	int ok = p && sscanf(p + 1, " %*c %d %d %d", &st, &pg, &se) == 3;
	free(text);
	if (!ok)
		return -1;
	*pgrp = pg;
	*sid = se;
	return 0;
}

/* SIGKILL group pg and every process of session pg (descendants that
 * left the group but not the session). Why a pid recorded long ago is
 * safe to use: Linux does not hand out a pid while a process group or
 * session of that id has members, so if the group leader's pid now
 * belongs to another process (another start time), the group is empty. */
static int kill_task_group(pid_t pg, uint64_t start)
{
	uint64_t now_start = proc_start_time(pg);
	if (now_start && now_start != start)
		return 0;
	int killed = killpg(pg, SIGKILL) == 0;
	DIR *d = opendir("/proc");
	if (!d)
		return killed;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		pid_t pgrp, sid;
		if (*end || pid <= 1 || proc_pgrp_sid((pid_t)pid, &pgrp, &sid) < 0)
			continue;
		/* pid == pg: the task itself, before its setsid */
		if (sid == pg || pgrp == pg || (pid_t)pid == pg)
			killed |= kill((pid_t)pid, SIGKILL) == 0;
	}
	closedir(d);
	return killed;
}

int spool_tasks_kill(const char *dir)
{
	char *path = xasprintf("%s/tasks", dir);
	char *text = read_small_file(path);
	free(path);
	if (!text)
		return 0;
	int n = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int pg;
		unsigned long long start;
		if (sscanf(l, "%d %llu", &pg, &start) == 2 && pg > 1)
			n += kill_task_group((pid_t)pg, (uint64_t)start);
	}
	free(text);
	return n;
}

/* ---- the node's lease ---- */

uint64_t boottime_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int spool_lease_write(const char *spool, uint64_t renewed_ms, uint64_t lease_ms)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf), "renewed_ms=%" PRIu64 "\nlease_ms=%" PRIu64 "\n",
			 renewed_ms, lease_ms);
	char *path = xasprintf("%s/lease", spool);
	char *tmp = xasprintf("%s.new.%d", path, (int)getpid());
	int rc = -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		rc = write(fd, buf, (size_t)n) == n ? 0 : -1;
		if (close(fd) < 0)
			rc = -1;
		if (rc == 0)
			rc = rename(tmp, path);
		if (rc < 0)
			unlink(tmp);
	}
	int e = errno;
	free(tmp);
	free(path);
	errno = e;
	return rc;
}

int spool_lease_read(const char *spool, uint64_t *renewed_ms, uint64_t *lease_ms)
{
	char *path = xasprintf("%s/lease", spool);
	char *text = read_small_file(path);
	free(path);
	unsigned long long r, l;
	int ok = text && sscanf(text, "renewed_ms=%llu lease_ms=%llu", &r, &l) == 2;
	free(text);
	if (!ok)
		return -1;
	*renewed_ms = r;
	*lease_ms = l;
	return 0;
}

int spool_lease_expired(const char *spool)
{
	uint64_t r, l;
	if (spool_lease_read(spool, &r, &l) < 0 || !l)
		return 0;
	return boottime_ms() > r + l;
}
