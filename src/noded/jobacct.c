/*
 * jobacct: resource use of a step's tasks, gathered on the node by the
 * step's supervisor (JobAcctGatherType, JobAcctGatherFrequency).
 *
 * jobacct_gather/linux: every task leads its own session (the supervisors
 * setsid() each task). A sample walks each task's process tree from the
 * task down through the kernel's children lists
 * (/proc/PID/task/TID/children) and counts the processes still in the
 * task's session, so its cost grows with the job's processes, not the
 * host's; a process that left the tree (reparented to init after its
 * parent died) is missed, as with Slurm's linux plugin. Where the kernel
 * has no children files, every /proc/PID/stat of the host is read instead
 * and a process counts for the task whose session it is in. Per task it
 * adds up: RSS, VMSize, major faults, user and system CPU (the
 * session leader's counts include its reaped children: cutime, cstime,
 * cmajflt; its io counts include them too, as the kernel folds a reaped
 * child's I/O into its parent), read and write bytes (rchar/wchar, as
 * Slurm's linux plugin reads them). A task keeps the highest figure of
 * each over its samples. jobacct_gather/cgroup reads the same /proc until
 * cgroups exist on the node (issue 11): it is the linux plugin for now.
 *
 * Samples come every JobAcctGatherFrequency task=N seconds (a plain
 * number works too; 0: only at the end) and once more when a task exits,
 * before it is reaped (its zombie still shows the totals). The reaped
 * rusage then gives the exact CPU times (wait4: the task and every child
 * it waited for) and ru_maxrss, the largest single process of the tree,
 * so a job shorter than a sample period still shows its memory. With
 * jobacct_gather/none only the rusage is kept (CPU; gathered = 0).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "jobacct.h"
#include "log.h"
#include "xalloc.h"

int jobacct_conf_parse(const char *type, const char *freq, jobacct_conf_t *out, char **err)
{
	out->type = JAG_NONE;
	out->freq_s = 30;
	if (type && *type && strcasecmp(type, "jobacct_gather/none")) {
		if (!strcasecmp(type, "jobacct_gather/linux"))
			out->type = JAG_LINUX;
		else if (!strcasecmp(type, "jobacct_gather/cgroup"))
			out->type = JAG_CGROUP;
		else {
			*err = xasprintf("JobAcctGatherType=%s: unknown (jobacct_gather/none, "
					 "jobacct_gather/linux or jobacct_gather/cgroup)", type);
			return -1;
		}
	}
	if (!freq || !*freq)
		return 0;
	/* "30", or "task=30,energy=0,network=0,filesystem=0" */
	char *copy = xstrdup(freq), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *v = tok;
		if (!strncasecmp(tok, "task=", 5))
			v = tok + 5;
		else if (strchr(tok, '='))
			continue;         /* energy=, network=, filesystem=: not ours */
		char *end = NULL;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (end == v || *end || n < 0 || n > 86400 || errno) {
			*err = xasprintf("JobAcctGatherFrequency=%s: '%s' is not a number of seconds",
					 freq, tok);
			rc = -1;
			break;
		}
		out->freq_s = (uint32_t)n;
	}
	free(copy);
	return rc;
}

int jobacct_parse_stat(const char *text, proc_stat_t *ps)
{
	memset(ps, 0, sizeof(*ps));
	char *end = NULL;
	ps->pid = (int)strtol(text, &end, 10);
	if (end == text || ps->pid <= 0)
		return -1;
	/* comm may hold spaces and parentheses: it ends at the last ')' */
	const char *p = strrchr(text, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	/* fields from 3 (state) on, space separated */
	unsigned long long v[50];
	int n = 0;
	ps->state = *p;
	p++;
	while (n < 50 && *p) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		char *e = NULL;
		errno = 0;
		long long x = strtoll(p, &e, 10);
		if (e == p)
			return -1;
		v[n++] = (unsigned long long)(x < 0 ? 0 : x);
		p = e;
	}
	/* v[0] is field 4 (ppid); field k is v[k - 4] */
	if (n < 21)
		return -1;
	ps->ppid = (int)v[0];
	ps->pgrp = (int)v[1];
	ps->session = (int)v[2];
	ps->majflt = v[12 - 4];
	ps->cmajflt = v[13 - 4];
	ps->utime = v[14 - 4];
	ps->stime = v[15 - 4];
	ps->cutime = v[16 - 4];
	ps->cstime = v[17 - 4];
	ps->num_threads = v[20 - 4];
	ps->vsize = v[23 - 4];
	ps->rss = v[24 - 4];
	return 0;
}

int jobacct_parse_io(const char *text, uint64_t *rchar, uint64_t *wchar)
{
	int got = 0;
	*rchar = *wchar = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, "rchar:", 6)) {
			*rchar = strtoull(l + 6, NULL, 10);
			got |= 1;
		} else if (!strncmp(l, "wchar:", 6)) {
			*wchar = strtoull(l + 6, NULL, 10);
			got |= 2;
		}
	}
	return got == 3 ? 0 : -1;
}

/* Read a small /proc file into buf (NUL-terminated); bytes or -1. */
static ssize_t read_small(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

jobacct_t *jobacct_new(const jobacct_conf_t *conf, uint32_t ntasks, const char *proc_root)
{
	jobacct_t *ja = xcalloc(1, sizeof(*ja));
	ja->conf = *conf;
	ja->proc_root = xstrdup(proc_root ? proc_root : "/proc");
	ja->n = ntasks;
	ja->t = xcalloc(ntasks ? ntasks : 1, sizeof(*ja->t));
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	ja->tick_hz = tick > 0 ? (uint64_t)tick : 100;
	ja->page_kb = page > 0 ? (uint64_t)page / 1024 : 4;
	return ja;
}

void jobacct_free(jobacct_t *ja)
{
	if (!ja)
		return;
	free(ja->proc_root);
	free(ja->t);
	free(ja);
}

void jobacct_task_start(jobacct_t *ja, uint32_t idx, int pid, uint32_t rank, int64_t now_ms)
{
	if (idx >= ja->n)
		return;
	ja->t[idx].sid = pid;
	ja->t[idx].rank = rank;
	if (!ja->next_ms && ja->conf.freq_s)
		ja->next_ms = now_ms + (int64_t)ja->conf.freq_s * 1000;
}

int64_t jobacct_due_ms(const jobacct_t *ja, int64_t now_ms)
{
	if (ja->conf.type == JAG_NONE || !ja->conf.freq_s || !ja->next_ms)
		return -1;
	return ja->next_ms > now_ms ? ja->next_ms - now_ms : 0;
}

static jag_task_t *task_of(jobacct_t *ja, int session)
{
	if (session <= 0)
		return NULL;
	for (uint32_t i = 0; i < ja->n; i++)
		if (ja->t[i].sid == session && !ja->t[i].done)
			return &ja->t[i];
	return NULL;
}

static uint64_t ticks_us(const jobacct_t *ja, uint64_t ticks)
{
	return ticks * 1000000u / ja->tick_hz;
}

#define RAISE(a, b) do { if ((b) > (a)) (a) = (b); } while (0)

/* Most processes one sample visits in a task's tree (a fork bomb's tree
 * is not walked to its end every period). */
#define JAG_MAX_VISIT 65536

/* Add process pid (its stat already parsed into ps) to task t's sums. */
static void add_proc(jobacct_t *ja, int dfd, const char *pid, const proc_stat_t *ps,
		     jag_task_t *t)
{
	task_usage_t *c = &t->cur;
	c->rss_kb += ps->rss * ja->page_kb;
	c->vmsize_kb += ps->vsize / 1024;
	c->pages += ps->majflt;
	c->user_cpu_us += ticks_us(ja, ps->utime);
	c->sys_cpu_us += ticks_us(ja, ps->stime);
	if (ps->pid == t->sid) {        /* its reaped children */
		c->pages += ps->cmajflt;
		c->user_cpu_us += ticks_us(ja, ps->cutime);
		c->sys_cpu_us += ticks_us(ja, ps->cstime);
	}
	char path[300], buf[1024];
	uint64_t r, w;
	if (ja->pids)
		strbuf_addf(ja->pids, "%d,", ps->pid);
	snprintf(path, sizeof(path), "%s/io", pid);
	if (read_small(dfd, path, buf, sizeof(buf)) > 0 && jobacct_parse_io(buf, &r, &w) == 0) {
		c->disk_read += r;
		c->disk_write += w;
	}
}

/* The whole host: every process of a task's session (no children files,
 * CONFIG_PROC_CHILDREN off). Cost grows with the host's processes. */
static void sample_scan(jobacct_t *ja, int dfd)
{
	DIR *d = fdopendir(dup(dfd));
	if (!d)
		return;
	struct dirent *de;
	char path[300], buf[1024];
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/stat", de->d_name);
		proc_stat_t ps;
		if (read_small(dfd, path, buf, sizeof(buf)) <= 0 || jobacct_parse_stat(buf, &ps) < 0)
			continue;
		jag_task_t *t = task_of(ja, ps.session);
		if (t)
			add_proc(ja, dfd, de->d_name, &ps, t);
	}
	closedir(d);
}

/* A task's tree from its leader down, through the children files of its
 * processes' threads: cost grows with the job's processes only. Only
 * processes still in the task's session count (one that left it with
 * setsid is another job's business, as in the scan). -1 when the leader
 * has no children file (the kernel lacks them: scan instead). */
static int sample_tree(jobacct_t *ja, int dfd, jag_task_t *t)
{
	int *stack = malloc(64 * sizeof(int)), top = 0, cap = 64, visits = 0, rc = 0;
	if (!stack)
		return 0;
	stack[top++] = t->sid;
	char pid[16], path[300], buf[4096];
	while (top && visits++ < JAG_MAX_VISIT && (!ja->visit_budget || (*ja->visit_budget)-- > 0)) {
		int p = stack[--top];
		snprintf(pid, sizeof(pid), "%d", p);
		snprintf(path, sizeof(path), "%s/stat", pid);
		proc_stat_t ps;
		if (read_small(dfd, path, buf, sizeof(buf)) <= 0 || jobacct_parse_stat(buf, &ps) < 0)
			continue;            /* gone meanwhile */
		if (ps.session == t->sid)
			add_proc(ja, dfd, pid, &ps, t);
		/* threads fork too: read each one's children (one thread:
		 * just its own) */
		int tids[64], ntid = 0;
		if (ps.num_threads <= 1) {
			tids[ntid++] = p;
		} else {
			snprintf(path, sizeof(path), "%s/task", pid);
			int tfd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			DIR *td = tfd >= 0 ? fdopendir(tfd) : NULL;
			if (!td && tfd >= 0)
				close(tfd);
			for (struct dirent *de; td && ntid < 64 && (de = readdir(td));)
				if (isdigit((unsigned char)de->d_name[0]))
					tids[ntid++] = atoi(de->d_name);
			if (td)
				closedir(td);
		}
		for (int k = 0; k < ntid; k++) {
			snprintf(path, sizeof(path), "%s/task/%d/children", pid, tids[k]);
			ssize_t n = read_small(dfd, path, buf, sizeof(buf));
			if (n < 0) {
				if (p == t->sid && errno == ENOENT && !k)
					rc = -1;     /* no children files here */
				continue;
			}
			for (char *q = buf, *e; *q; q = e) {
				long c = strtol(q, &e, 10);
				if (e == q)
					break;
				if (c <= 0)
					continue;
				if (top == cap) {
					int *ns = realloc(stack, (size_t)cap * 2 * sizeof(int));
					if (!ns)
						break;
					stack = ns;
					cap *= 2;
				}
				stack[top++] = (int)c;
			}
		}
	}
	free(stack);
	return rc;
}

void jobacct_sample(jobacct_t *ja, int64_t now_ms)
{
	if (ja->conf.type == JAG_NONE)
		return;
	if (ja->conf.freq_s)
		ja->next_ms = now_ms + (int64_t)ja->conf.freq_s * 1000;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int any = 0;
	for (uint32_t i = 0; i < ja->n; i++) {
		memset(&ja->t[i].cur, 0, sizeof(ja->t[i].cur));
		any |= ja->t[i].sid > 0 && !ja->t[i].done;
	}
	size_t pids_at = ja->pids ? ja->pids->len : 0;
	int dfd = any ? open(ja->proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		for (uint32_t i = 0; i < ja->n && !ja->full_scan; i++) {
			jag_task_t *t = &ja->t[i];
			if (t->sid > 0 && !t->done && sample_tree(ja, dfd, t) < 0)
				ja->full_scan = 1;
		}
		if (ja->full_scan) {
			for (uint32_t i = 0; i < ja->n; i++)
				memset(&ja->t[i].cur, 0, sizeof(ja->t[i].cur));
			if (ja->pids)      /* what the tree walk counted is recounted */
				strbuf_setlen(ja->pids, pids_at);
			sample_scan(ja, dfd);
		}
		close(dfd);
	}
	for (uint32_t i = 0; i < ja->n; i++) {
		jag_task_t *t = &ja->t[i];
		if (t->done || t->sid <= 0)
			continue;
		RAISE(t->u.rss_kb, t->cur.rss_kb);
		RAISE(t->u.vmsize_kb, t->cur.vmsize_kb);
		RAISE(t->u.pages, t->cur.pages);
		RAISE(t->u.user_cpu_us, t->cur.user_cpu_us);
		RAISE(t->u.sys_cpu_us, t->cur.sys_cpu_us);
		RAISE(t->u.disk_read, t->cur.disk_read);
		RAISE(t->u.disk_write, t->cur.disk_write);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ja->samples++;
	ja->sample_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
}

static uint64_t tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

void jobacct_task_end(jobacct_t *ja, int pid, const struct rusage *ru)
{
	for (uint32_t i = 0; i < ja->n; i++) {
		jag_task_t *t = &ja->t[i];
		if (t->sid != pid || t->done)
			continue;
		if (ru) {
			RAISE(t->u.user_cpu_us, tv_us(ru->ru_utime));
			RAISE(t->u.sys_cpu_us, tv_us(ru->ru_stime));
			if (ja->conf.type != JAG_NONE) {
				RAISE(t->u.rss_kb, (uint64_t)(ru->ru_maxrss > 0 ? ru->ru_maxrss : 0));
				RAISE(t->u.pages, (uint64_t)(ru->ru_majflt > 0 ? ru->ru_majflt : 0));
			}
		}
		t->done = 1;
		return;
	}
}

void jobacct_usage(const jobacct_t *ja, step_usage_t *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < ja->n; i++)
		step_usage_add_task(out, ja->t[i].rank, &ja->t[i].u);
}

void jobacct_conf_from(const conf_t *conf, jobacct_conf_t *out)
{
	char *err = NULL;
	if (jobacct_conf_parse(conf_get(conf, "JobAcctGatherType"),
			       conf_get(conf, "JobAcctGatherFrequency"), out, &err) < 0) {
		/* check-config reports it; a node keeps gathering what it can */
		error("%s", err);
		free(err);
	}
}

/* The usage file: "sluice-usage 1 NTASKS", then per task
 * "rank sid done rss_kb vmsize_kb pages user_us sys_us read write". */
int jobacct_save(const jobacct_t *ja, const char *dir)
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_addf(&sb, "sluice-usage 1 %u\n", ja->n);
	for (uint32_t i = 0; i < ja->n; i++) {
		const jag_task_t *t = &ja->t[i];
		strbuf_addf(&sb, "%u %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			    " %" PRIu64 " %" PRIu64 "\n", t->rank, t->sid, t->done, t->u.rss_kb,
			    t->u.vmsize_kb, t->u.pages, t->u.user_cpu_us, t->u.sys_cpu_us,
			    t->u.disk_read, t->u.disk_write);
	}
	/* A cache of live figures: no fsync (a crash loses nothing the
	 * step's end report does not carry). */
	char *path = xasprintf("%s/usage", dir), *tmp = xasprintf("%s/usage.new", dir);
	int rc = -1, fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		size_t off = 0;
		while (off < sb.len) {
			ssize_t w = write(fd, sb.buf + off, sb.len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		if (close(fd) == 0 && off == sb.len && rename(tmp, path) == 0)
			rc = 0;
		else
			unlink(tmp);
	}
	free(path);
	free(tmp);
	strbuf_release(&sb);
	return rc;
}

jobacct_t *jobacct_load(const jobacct_conf_t *conf, const char *dir, const char *proc_root)
{
	char *path = xasprintf("%s/usage", dir);
	FILE *fp = fopen(path, "re");
	free(path);
	if (!fp)
		return NULL;
	unsigned n = 0;
	jobacct_t *ja = NULL;
	if (fscanf(fp, "sluice-usage 1 %u", &n) != 1 || n > 65536)
		goto bad;
	ja = jobacct_new(conf, n, proc_root);
	for (uint32_t i = 0; i < n; i++) {
		jag_task_t *t = &ja->t[i];
		unsigned long long v[7];
		if (fscanf(fp, "%u %d %d %llu %llu %llu %llu %llu %llu %llu", &t->rank, &t->sid,
			   &t->done, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 10)
			goto bad;
		t->u = (task_usage_t){ .rss_kb = v[0], .vmsize_kb = v[1], .pages = v[2],
				       .user_cpu_us = v[3], .sys_cpu_us = v[4],
				       .disk_read = v[5], .disk_write = v[6] };
	}
	fclose(fp);
	return ja;
bad:
	fclose(fp);
	jobacct_free(ja);
	errno = EINVAL;
	return NULL;
}
