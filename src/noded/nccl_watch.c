/*
 * nccl_watch: the NCCL transport check of a batch job (see nccl_watch.h).
 *
 * Cost: one look every `interval` seconds (10 by default) reads at most
 * NCCL_READ_MAX new bytes per output file (a memchr per line, a memmem
 * per line; well under a millisecond per MiB) and, when the counters are
 * watched, a few small sysfs files per fabric port. A job that writes
 * faster than it is read is skipped forward (NCCL_BEHIND_MAX): NCCL's
 * network lines come at communicator setup, and a later communicator's
 * lines are read again once the job's output calms down.
 *
 * The files are read through the job's own descriptors, reopened from
 * /proc/self/fd: the inode the job writes, whatever happens to its path
 * (a rename, a symlink put in its place), and only regular files (a FIFO
 * would lose the job's data to this reader).
 *
 * The counters verdict is the batch node's view: an all-reduce across
 * nodes moves every node's fabric ports, the batch node's too. Sockets
 * over IPoIB move them as well, so that fallback is seen only in the log.
 */
#include "nccl_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "health_conf.h"
#include "ib_sysfs.h"
#include "nccl_log.h"
#include "xalloc.h"

#define NCCL_READ_MAX (1u << 20)       /* bytes per file per look */
#define NCCL_BEHIND_MAX (64u << 20)    /* further behind than this: skip ahead */

struct nccl_watch {
	noded_t *nd;
	uint32_t job_id, launch_seq;
	hc_check_t cfg;
	int fd[2];                 /* read-only reopens of stdout, stderr (-1) */
	uint64_t off[2];
	nccl_scan_t *scan[2];
	int counters;              /* watch the fabric counters */
	char *sysfs;
	uint64_t base_bytes;       /* ports' bytes at the start */
	int64_t base_ms;
	/* what the controller has */
	enum nccl_verdict sent;
	char sent_name[NCCL_NAME_MAX];
	uint32_t sent_src;
	int gone;                  /* the controller refused: stop reporting */
	int64_t next_ms;
	/* After a failed report, the next try waits (doubling to a minute):
	 * an unreachable controller can hold a try for MessageTimeout, and
	 * the supervisor's loop also enforces the time limit and the lease. */
	int64_t retry_at_ms, backoff_ms;
	int final;                 /* the job ended: try now whatever the backoff */
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The job's descriptor, reopened read-only if it is a regular file. */
static int reopen_ro(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/* Bytes the node's active fabric ports moved (received + sent); -1
 * when no port is active. */
static int64_t ports_bytes(const char *sysfs)
{
	size_t n = 0;
	ib_port_t *p = ib_ports_read(sysfs, &n);
	int64_t sum = -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i].state != IB_STATE_ACTIVE || p[i].rx_bytes < 0 || p[i].tx_bytes < 0)
			continue;
		sum = (sum < 0 ? 0 : sum) + p[i].rx_bytes + p[i].tx_bytes;
	}
	ib_ports_free(p, n);
	return sum;
}

nccl_watch_t *nccl_watch_start(noded_t *nd, const msg_launch_job_t *m, int out_fd, int err_fd)
{
	const char *nn = env_get(&m->env, "SLURM_JOB_NUM_NODES");
	const char *dbg = env_get(&m->env, "NCCL_DEBUG");
	int multi_gpu = nn && atoi(nn) > 1 && m->gpus != 0;
	int dbg_on = dbg && *dbg;
	if (!multi_gpu && !dbg_on)
		return NULL;
	char *hp = health_conf_path(nd->conf);
	health_conf_t *hc = health_conf_load(hp, NULL);
	free(hp);
	nccl_watch_t *w = xcalloc(1, sizeof(*w));
	health_nccl_settings(hc->nerrors ? NULL : hc, &w->cfg);
	health_conf_free(hc);
	w->nd = nd;
	w->job_id = m->job_id;
	w->launch_seq = m->launch_seq;
	w->fd[0] = w->fd[1] = -1;
	if (w->cfg.nccl_log) {
		w->fd[0] = reopen_ro(out_fd);
		/* stderr: only when it is another file than stdout */
		struct stat a, b;
		if (err_fd >= 0 && !(out_fd >= 0 && fstat(out_fd, &a) == 0 && fstat(err_fd, &b) == 0 &&
				     a.st_dev == b.st_dev && a.st_ino == b.st_ino))
			w->fd[1] = reopen_ro(err_fd);
		for (int i = 0; i < 2; i++)
			if (w->fd[i] >= 0) {
				w->scan[i] = xmalloc(sizeof(nccl_scan_t));
				nccl_scan_init(w->scan[i]);
			}
	}
	if (multi_gpu && w->cfg.nccl_counters) {
		const char *sys = getenv("SLUICE_SYSFS_ROOT");
		w->sysfs = xstrdup(sys && *sys ? sys : "/sys");
		int64_t b0 = ports_bytes(w->sysfs);
		if (b0 >= 0) {
			w->counters = 1;
			w->base_bytes = (uint64_t)b0;
			w->base_ms = now_ms();
		} else {
			debug("job %u: no active fabric port under %s: NCCL counters not watched",
			      m->job_id, w->sysfs);
		}
	}
	if (w->fd[0] < 0 && w->fd[1] < 0 && !w->counters) {
		debug("job %u: nothing to watch for the NCCL check", m->job_id);
		free(w->sysfs);
		free(w);
		return NULL;
	}
	w->next_ms = now_ms() + w->cfg.nccl_interval * 1000;
	verbose("job %u: NCCL transport check: %s%s%s, every %lds", m->job_id,
		w->fd[0] >= 0 || w->fd[1] >= 0 ? "output" : "",
		(w->fd[0] >= 0 || w->fd[1] >= 0) && w->counters ? " and " : "",
		w->counters ? "fabric counters" : "", w->cfg.nccl_interval);
	return w;
}

/* Read what is new in file i (at most NCCL_READ_MAX; all of it when
 * final). */
static void scan_file(nccl_watch_t *w, int i, int final)
{
	int fd = w->fd[i];
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return;
	uint64_t size = (uint64_t)st.st_size;
	if (size < w->off[i]) {            /* truncated: start again */
		w->off[i] = 0;
		nccl_scan_init(w->scan[i]);
	}
	if (size - w->off[i] > NCCL_BEHIND_MAX) {
		debug("job %u: NCCL check skips %" PRIu64 " bytes of output", w->job_id,
		      size - w->off[i] - NCCL_READ_MAX);
		w->off[i] = size - NCCL_READ_MAX;
		enum nccl_verdict v = w->scan[i]->verdict;
		char name[NCCL_NAME_MAX], line[256];
		memcpy(name, w->scan[i]->name, sizeof(name));
		memcpy(line, w->scan[i]->line, sizeof(line));
		nccl_scan_init(w->scan[i]);    /* drop a partial line, keep the verdict */
		w->scan[i]->verdict = v;
		memcpy(w->scan[i]->name, name, sizeof(name));
		memcpy(w->scan[i]->line, line, sizeof(line));
	}
	char *buf = xmalloc(64 << 10);
	uint64_t budget = NCCL_READ_MAX;
	while (w->off[i] < size && (final || budget)) {
		size_t want = 64 << 10;
		if (!final && want > budget)
			want = (size_t)budget;
		ssize_t n = pread(fd, buf, want, (off_t)w->off[i]);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		nccl_scan_feed(w->scan[i], buf, (size_t)n);
		w->off[i] += (uint64_t)n;
		budget -= budget >= (uint64_t)n ? (uint64_t)n : budget;
	}
	free(buf);
	if (final)
		nccl_scan_finish(w->scan[i]);
}

/* Send the verdict if it is news (one try; the next look retries). */
static void report(nccl_watch_t *w, enum nccl_verdict v, const char *name, uint32_t src,
		   const char *detail)
{
	if (w->gone || v == NCCL_NONE)
		return;
	if (v == w->sent && src == w->sent_src && !strcmp(name, w->sent_name))
		return;
	if (!w->final && now_ms() < w->retry_at_ms)
		return;
	msg_job_nccl_t m = {
		.job_id = w->job_id, .launch_seq = w->launch_seq, .node = w->nd->name,
		.transport = (char *)name, .source = src, .detail = (char *)detail,
		.time = time(NULL),
	};
	char *emsg = NULL;
	int rc = rpc_call_ctld_rc(w->nd->conf, MSG_JOB_NCCL, &m, &emsg);
	if (rc == 0) {
		w->backoff_ms = 0;
		w->sent = v;
		w->sent_src = src;
		snprintf(w->sent_name, sizeof(w->sent_name), "%s", name);
		if (v == NCCL_SOCKET)
			info("job %u: NCCL uses TCP sockets (%s: %s)", w->job_id,
			     nccl_source_name(src), detail);
	} else if (rc == ESLURM_ALREADY_DONE || rc == ESLURM_INVALID_JOB_ID ||
		   rc == ESLURM_ACCESS_DENIED) {
		w->gone = 1;
		debug("job %u: NCCL verdict refused: %s", w->job_id, slurm_strerror(rc));
	} else {
		int64_t b = w->backoff_ms ? 2 * w->backoff_ms : w->cfg.nccl_interval * 1000;
		w->backoff_ms = b > 60000 ? 60000 : b;
		w->retry_at_ms = now_ms() + w->backoff_ms;
		debug("job %u: cannot report the NCCL verdict yet (next try in %llds): %s%s%s",
		      w->job_id, (long long)(w->backoff_ms / 1000), slurm_strerror(rc),
		      emsg ? ": " : "", emsg ? emsg : "");
	}
	free(emsg);
}

static void look(nccl_watch_t *w, int final)
{
	const nccl_scan_t *best = NULL;
	for (int i = 0; i < 2; i++) {
		if (w->fd[i] < 0)
			continue;
		scan_file(w, i, final);
		if (!best || w->scan[i]->verdict > best->verdict)
			best = w->scan[i];
	}
	if (best && best->verdict != NCCL_NONE) {
		report(w, best->verdict, best->name, NCCL_SRC_LOG, best->line);
		return;
	}
	if (!w->counters)
		return;
	int64_t b = ports_bytes(w->sysfs);
	if (b < 0)
		return;
	uint64_t moved = (uint64_t)b >= w->base_bytes ? (uint64_t)b - w->base_bytes : 0;
	double secs = (double)(now_ms() - w->base_ms) / 1000;
	enum nccl_verdict v = nccl_counters_verdict(moved, secs, (double)w->cfg.nccl_window,
						    (double)w->cfg.nccl_min_rate);
	if (v == NCCL_NONE || (v == NCCL_FABRIC && w->sent == NCCL_NONE))
		return;        /* a busy fabric is news only after a still one */
	char detail[200];
	snprintf(detail, sizeof(detail), "fabric ports of %s moved %" PRIu64 " bytes in %.0f s "
		 "(%.0f bytes/s; still means below %" PRId64 ")", w->nd->name, moved, secs,
		 secs > 0 ? (double)moved / secs : 0.0, w->cfg.nccl_min_rate);
	report(w, v, v == NCCL_SOCKET ? "Socket" : "Fabric", NCCL_SRC_COUNTERS, detail);
}

int64_t nccl_watch_tick(nccl_watch_t *w)
{
	if (!w)
		return -1;
	int64_t now = now_ms();
	if (now < w->next_ms)
		return w->next_ms - now;
	look(w, 0);
	w->next_ms = now_ms() + w->cfg.nccl_interval * 1000;
	return w->cfg.nccl_interval * 1000;
}

void nccl_watch_end(nccl_watch_t *w)
{
	if (!w)
		return;
	/* the output's last lines; the counters judged only while it ran */
	int counters = w->counters;
	w->counters = 0;
	w->final = 1;
	look(w, 1);
	w->counters = counters;
	for (int i = 0; i < 2; i++) {
		if (w->fd[i] >= 0)
			close(w->fd[i]);
		free(w->scan[i]);
	}
	free(w->sysfs);
	free(w);
}
