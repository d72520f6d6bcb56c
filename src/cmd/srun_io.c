/*
 * srun_io: where a step's output goes and where its input comes from, as
 * man srun's "IO Redirection" describes -o/-e/-i:
 *   (none given)  stdout/stderr of every task to srun's, srun's stdin to
 *                 every task (Slurm's default);
 *   none          nothing (output dropped, stdin /dev/null);
 *   N (a number)  only task N's stream (stdin: only task N reads srun's);
 *   a pattern     a file name with %j %J %s %t %n %N %u %x %A %a %% (see
 *                 pattern.h): one file per distinct name, so "%t" gives
 *                 one per task and "%N" one per node.
 * Without -e, stderr goes where -o sends stdout when -o names files. srun
 * writes the files itself from the frames the nodes send (Slurm's
 * slurmstepd writes them on the nodes: the same files where the nodes
 * share srun's file system, which Slurm assumes too). Relative names are
 * under the step's working directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/srun_int.h"
#include "pattern.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

pthread_mutex_t srun_send_lock = PTHREAD_MUTEX_INITIALIZER;

int srun_send(rpc_t *r, enum msg_type type, const void *msg)
{
	pthread_mutex_lock(&srun_send_lock);
	int e = rpc_send(r, type, msg);
	pthread_mutex_unlock(&srun_send_lock);
	return e;
}

struct srun_io {
	int label, width;
	uint32_t ntasks;
	int *fd[2];               /* per task: stdout, stderr; -1 dropped */
	int *files;               /* descriptors srun opened */
	uint32_t nfiles;
};

static int digits(uint32_t n)
{
	int w = 1;
	if (n)
		n--;
	while (n /= 10)
		w++;
	return w;
}

static int is_number(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s);
}

static pattern_ctx_t ctx_for(const srun_layout_t *lay, uint32_t task)
{
	uint32_t node = lay->task_node[task];
	return (pattern_ctx_t){
		.job_id = lay->job_id, .step_id = lay->step_id,
		.array_job_id = lay->array_job_id, .array_task_id = lay->array_task_id,
		.job_name = lay->job_name, .user = lay->user, .node = lay->node_names[node],
		.node_id = node, .task_id = task,
	};
}

static int open_out(srun_io_t *io, const char *path, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);
	if (fd < 0) {
		error("Could not open stdout file %s: %s", path, strerror(errno));
		return -2;
	}
	io->files = xrealloc(io->files, (io->nfiles + 1) * sizeof(int));
	io->files[io->nfiles++] = fd;
	return fd;
}

/* Fill fds (per task) from spec; dflt is srun's own stream. 0 or -1. */
static int resolve(srun_io_t *io, const char *spec, int dflt, const srun_layout_t *lay,
		   int append, int *fds)
{
	uint32_t n = lay->ntasks;
	if (!spec || !*spec) {
		for (uint32_t t = 0; t < n; t++)
			fds[t] = dflt;
		return 0;
	}
	if (!strcasecmp(spec, "none")) {
		for (uint32_t t = 0; t < n; t++)
			fds[t] = -1;
		return 0;
	}
	if (is_number(spec)) {
		unsigned long k = strtoul(spec, NULL, 10);
		for (uint32_t t = 0; t < n; t++)
			fds[t] = t == k ? dflt : -1;
		return 0;
	}
	if (fpattern_per_task(spec)) {
		for (uint32_t t = 0; t < n; t++) {
			pattern_ctx_t c = ctx_for(lay, t);
			char *p = pattern_path(spec, NULL, lay->work_dir, &c);
			fds[t] = open_out(io, p, append);
			free(p);
			if (fds[t] == -2)
				return -1;
		}
	} else if (fpattern_per_node(spec)) {
		for (uint32_t i = 0; i < lay->nnodes; i++) {
			if (!lay->count[i])
				continue;
			pattern_ctx_t c = ctx_for(lay, lay->first[i]);
			char *p = pattern_path(spec, NULL, lay->work_dir, &c);
			int fd = open_out(io, p, append);
			free(p);
			if (fd == -2)
				return -1;
			for (uint32_t k = 0; k < lay->count[i]; k++)
				fds[lay->first[i] + k] = fd;
		}
	} else {
		pattern_ctx_t c = ctx_for(lay, 0);
		char *p = pattern_path(spec, NULL, lay->work_dir, &c);
		int fd = open_out(io, p, append);
		free(p);
		if (fd == -2)
			return -1;
		for (uint32_t t = 0; t < n; t++)
			fds[t] = fd;
	}
	return 0;
}

srun_io_t *srun_io_open(const jobopts_t *o, const srun_layout_t *lay)
{
	srun_io_t *io = xcalloc(1, sizeof(*io));
	uint32_t n = lay->ntasks ? lay->ntasks : 1;
	io->label = o->label;
	io->width = digits(lay->ntasks);
	io->ntasks = lay->ntasks;
	int append = (o->desc.flags & JOB_F_OPEN_APPEND) != 0;
	const char *out = o->desc.std_out, *err = o->desc.std_err;
	for (int s = 0; s < 2; s++) {
		io->fd[s] = xcalloc(n, sizeof(int));
	}
	int files = out && *out && strcasecmp(out, "none") && !is_number(out);
	int rc = resolve(io, out, 1, lay, append, io->fd[0]);
	if (!rc && (!err || !*err) && files)
		memcpy(io->fd[1], io->fd[0], n * sizeof(int));   /* as stdout */
	else if (!rc)
		rc = resolve(io, err, 2, lay, append, io->fd[1]);
	if (rc) {
		srun_io_close(io);
		return NULL;
	}
	return io;
}

static void write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

/* Each frame is written with one write(2) (write_all repeats only what a
 * full pipe or a signal cut short): the node sends a task's output in
 * whole lines (step.c, linebuf.h), so lines of different tasks never
 * splice, whichever node or stream they come from. */
void srun_io_relay(srun_io_t *io, const msg_step_io_t *m)
{
	int s = m->stream == STEP_IO_STDERR ? 1 : 0;
	if (m->stream != STEP_IO_STDOUT && m->stream != STEP_IO_STDERR)
		return;
	/* a line from slurmstepd about the step comes as task first_task */
	uint32_t t = m->task < io->ntasks ? m->task : 0;
	int fd = io->ntasks ? io->fd[s][t] : (s ? 2 : 1);
	if (fd < 0)
		return;
	if (!io->label) {
		write_all(fd, m->data, m->len);
		return;
	}
	/* Label each line of the frame. A frame that does not end a line
	 * (srun -u, a task's last line without newline, a piece of a line
	 * longer than the node keeps whole) is ended here, as Slurm's srun
	 * does (write_labelled_message): a labelled line never runs into
	 * another task's. */
	strbuf_t sb = STRBUF_INIT;
	const char *p = (const char *)m->data, *end = p + m->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		strbuf_addf(&sb, "%*u: ", io->width, m->task);
		strbuf_add(&sb, p, k);
		if (!nl)
			strbuf_addch(&sb, '\n');
		p += k;
	}
	write_all(fd, sb.buf, sb.len);
	strbuf_release(&sb);
}

void srun_io_close(srun_io_t *io)
{
	if (!io)
		return;
	for (uint32_t i = 0; i < io->nfiles; i++)
		close(io->files[i]);
	free(io->files);
	for (int s = 0; s < 2; s++)
		free(io->fd[s]);
	free(io);
}

/* ---- stdin ---- */

struct srun_src {
	int fd;                    /* 0 = srun's stdin */
	uint32_t task;             /* NO_VAL32 = every task */
	int done;
};

struct srun_stdin {
	struct srun_src *src;
	uint32_t nsrc;
	const srun_layout_t *lay;
	rpc_t **conns;             /* per node, NULL once gone */
	int stop[2];
	pthread_t th;
	int running;
};

static void plan_add(srun_stdin_t *s, int fd, uint32_t task)
{
	s->src = xrealloc(s->src, (s->nsrc + 1) * sizeof(*s->src));
	s->src[s->nsrc++] = (struct srun_src){ fd, task, 0 };
}

void srun_stdin_mode(const jobopts_t *o, uint32_t *flags, uint32_t *stdin_task)
{
	const char *in = o->pty ? "0" : o->desc.std_in;
	*flags = in && !strcasecmp(in, "none") ? 0 : STEP_F_STDIN;
	*stdin_task = *flags && in && is_number(in) ? (uint32_t)strtoul(in, NULL, 10) : NO_VAL32;
}

srun_stdin_t *srun_stdin_plan(const jobopts_t *o, const srun_layout_t *lay, int *failed)
{
	/* --pty: srun's stdin is task 0's terminal input */
	const char *in = o->pty ? "0" : o->desc.std_in;
	*failed = 0;
	if (in && !strcasecmp(in, "none"))
		return NULL;
	srun_stdin_t *s = xcalloc(1, sizeof(*s));
	s->lay = lay;
	s->stop[0] = s->stop[1] = -1;
	if (!in || !*in || !strcasecmp(in, "all")) {
		plan_add(s, 0, NO_VAL32);
	} else if (is_number(in)) {
		unsigned long v = strtoul(in, NULL, 10);
		if (v >= lay->ntasks) {
			error("--input=%s: the step has no task %lu (tasks 0-%u): stdin not forwarded",
			      in, v, lay->ntasks ? lay->ntasks - 1 : 0);
			free(s);
			return NULL;
		}
		plan_add(s, 0, (uint32_t)v);
	} else {
		int per = fpattern_per_task(in) || fpattern_per_node(in);
		for (uint32_t t = 0; t < (per ? lay->ntasks : 1); t++) {
			pattern_ctx_t c = ctx_for(lay, t);
			char *p = pattern_path(in, NULL, lay->work_dir, &c);
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				error("Could not open stdin file %s: %s", p, strerror(errno));
				free(p);
				*failed = 1;
				srun_stdin_stop(s);
				return NULL;
			}
			free(p);
			plan_add(s, fd, per ? t : NO_VAL32);
		}
	}
	return s;
}

/* Send one frame to the nodes that hold task (every node: NO_VAL32). */
static void send_to(srun_stdin_t *s, uint32_t task, const char *buf, uint32_t len)
{
	msg_step_io_t io = { .task = task, .stream = STEP_IO_STDIN, .len = len,
			     .data = (uint8_t *)buf };
	const srun_layout_t *lay = s->lay;
	for (uint32_t i = 0; i < lay->nnodes; i++) {
		if (!s->conns[i])
			continue;
		if (task != NO_VAL32 && (task < lay->first[i] || task >= lay->first[i] + lay->count[i]))
			continue;
		if (srun_send(s->conns[i], MSG_STEP_IO, &io))
			s->conns[i] = NULL;
	}
}

static void *stdin_main(void *arg)
{
	srun_stdin_t *s = arg;
	char *buf = xmalloc(65536);
	struct pollfd *p = xcalloc(s->nsrc + 1, sizeof(*p));
	uint32_t *map = xcalloc(s->nsrc + 1, sizeof(*map));
	for (;;) {
		nfds_t n = 0;
		for (uint32_t k = 0; k < s->nsrc; k++)
			if (!s->src[k].done) {
				p[n] = (struct pollfd){ s->src[k].fd, POLLIN, 0 };
				map[n++] = k;
			}
		if (!n)
			break;
		p[n] = (struct pollfd){ s->stop[0], POLLIN, 0 };
		if (poll(p, n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[n].revents)
			break;
		for (nfds_t k = 0; k < n; k++) {
			if (!p[k].revents)
				continue;
			struct srun_src *src = &s->src[map[k]];
			ssize_t got = read(src->fd, buf, 65536);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			/* got <= 0: EOF (or an error, the same for the tasks) */
			send_to(s, src->task, buf, got > 0 ? (uint32_t)got : 0);
			if (got <= 0)
				src->done = 1;
		}
	}
	free(map);
	free(p);
	free(buf);
	return NULL;
}

void srun_stdin_start(srun_stdin_t *s, rpc_t **conns)
{
	if (!s)
		return;
	s->conns = xcalloc(s->lay->nnodes + 1, sizeof(rpc_t *));
	int any = 0;
	for (uint32_t i = 0; i < s->lay->nnodes; i++)
		any |= (s->conns[i] = conns[i]) != NULL;
	if (!any || pipe2(s->stop, O_CLOEXEC) < 0)
		return;
	s->running = pthread_create(&s->th, NULL, stdin_main, s) == 0;
}

void srun_stdin_stop(srun_stdin_t *s)
{
	if (!s)
		return;
	if (s->running) {
		(void)!write(s->stop[1], "x", 1);
		pthread_join(s->th, NULL);
	}
	if (s->stop[0] >= 0) {
		close(s->stop[0]);
		close(s->stop[1]);
	}
	for (uint32_t k = 0; k < s->nsrc; k++)
		if (s->src[k].fd > 0)
			close(s->src[k].fd);
	free(s->src);
	free(s->conns);
	free(s);
}
