/* daemon: daemon pipe, atomic pid files, the state lock; see daemon.h. */
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xalloc.h"

/* Daemon pipe protocol: one byte, 'R' (ready) or 'E' followed by the
 * message up to EOF. */
#define PIPE_READY 'R'
#define PIPE_ERROR 'E'

/* The descriptor of dirlock_take's lock in this process, for daemon_fail. */
static int dirlock_fd = -1;

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* The starting process: wait for the daemon's word; the exit status. */
static int wait_daemon(int fd, const char *prog)
{
	char buf[4096];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	buf[len] = '\0';
	if (len && buf[0] == PIPE_READY)
		return 0;
	char *msg = len > 1 && buf[0] == PIPE_ERROR ? buf + 1
		: "the daemon exited during start-up (see its log file)";
	char *line = xasprintf("%s: %s%s", prog, msg, msg[strlen(msg) - 1] == '\n' ? "" : "\n");
	write_all(STDERR_FILENO, line, strlen(line));
	free(line);
	return 1;
}

int daemon_detach(const char *prog)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		/* The intermediate child exits at once; reap it so that it
		 * is no zombie while we wait. */
		waitpid(pid, NULL, 0);
		_exit(wait_daemon(p[0], prog));
	}
	close(p[0]);
	setsid();
	/* A SIGHUP from the session leader's exit must not end the
	 * grandchild before it installs its own handlers. */
	signal(SIGHUP, SIG_IGN);
	pid = fork();
	if (pid < 0) {
		char *m = xasprintf("cannot fork: %s", strerror(errno));
		daemon_fail(p[1], m);
		free(m);
		_exit(1);
	}
	if (pid > 0)
		_exit(0);
	signal(SIGHUP, SIG_DFL);
	return p[1];
}

void daemon_ready(int fd)
{
	if (fd < 0)
		return;
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		/* dup2 clears close-on-exec on 0-2, as they should be. */
		dup2(nul, STDIN_FILENO);
		dup2(nul, STDOUT_FILENO);
		dup2(nul, STDERR_FILENO);
		if (nul > STDERR_FILENO)
			close(nul);
	}
	char b = PIPE_READY;
	write_all(fd, &b, 1);
	close(fd);
}

void daemon_fail(int fd, const char *msg)
{
	if (fd < 0) {
		fprintf(stderr, "%s\n", msg);
		return;
	}
	/* A flock is released only when the exiting process's files are
	 * put, one by one after the daemon pipe (a lower descriptor): the
	 * starting shell would return while the lock still looks held. A
	 * daemon that failed touches nothing more: give the lock up now. */
	if (dirlock_fd >= 0) {
		close(dirlock_fd);
		dirlock_fd = -1;
	}
	char b = PIPE_ERROR;
	write_all(fd, &b, 1);
	write_all(fd, msg, strlen(msg));
	/* fd stays open (close-on-exec) until this process exits: the
	 * starting shell reads to end of file, so it returns only once the
	 * daemon has gone and released its lock, ports and sockets, and a
	 * start right after a failed one does not find them in use. */
}

int pidfile_write(const char *path, pid_t pid)
{
	char *tmp = xasprintf("%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	char line[32];
	int len = snprintf(line, sizeof(line), "%d\n", (int)pid);
	int rc = 0;
	if (fchmod(fd, 0644) < 0 || write(fd, line, (size_t)len) != len || fsync(fd) < 0)
		rc = -1;
	int e = errno;
	if (close(fd) < 0 && !rc) {
		rc = -1;
		e = errno;
	}
	if (!rc && rename(tmp, path) < 0) {
		rc = -1;
		e = errno;
	}
	if (rc)
		unlink(tmp);
	else {
		/* The rename itself durable: fsync the directory. */
		char *d = xstrdup(path);
		int dfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(d);
	}
	free(tmp);
	errno = e;
	return rc;
}

/* The pid of the process that holds an exclusive flock on the file of
 * fd, from /proc/locks (pids there are as this process sees them; 0 for
 * one in a pid namespace it cannot see), or 0 if none is listed. */
static pid_t flock_holder_listed(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return 0;
	FILE *fp = fopen("/proc/locks", "re");
	if (!fp)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; a process
	 * waiting for a lock is listed after it as "1: -> FLOCK ...". */
	char line[256], kind[16], mode[16], type[16];
	int pid;
	unsigned int maj, min;
	unsigned long ino;
	pid_t found = 0;
	while (!found && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%lu", kind, mode, type, &pid, &maj,
			   &min, &ino) == 7 &&
		    !strcmp(kind, "FLOCK") && !strcmp(type, "WRITE") && pid > 0 &&
		    maj == major(st.st_dev) && min == minor(st.st_dev) && ino == (unsigned long)st.st_ino)
			found = (pid_t)pid;
	fclose(fp);
	return found;
}

/* Who holds the lock on the directory of dfd (known to be held): the
 * kernel's answer, else the pid the holder wrote into name, else 0. */
static pid_t holder_of(int dfd, const char *name)
{
	pid_t pid = flock_holder_listed(dfd);
	if (pid > 0)
		return pid;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	long v = strtol(buf, NULL, 10);
	return v > 0 && v <= INT_MAX ? (pid_t)v : 0;
}

int dirlock_take(const char *dir, const char *name, pid_t *holder)
{
	*holder = 0;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	if (flock(dfd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		if (e == EWOULDBLOCK) {
			*holder = holder_of(dfd, name);
			e = EAGAIN;
		}
		close(dfd);
		errno = e;
		return -1;
	}
	char line[32];
	int len = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, line, (size_t)len, 0) != len) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		close(dfd);
		errno = e;
		return -1;
	}
	close(fd);
	dirlock_fd = dfd;
	return dfd;
}

pid_t dirlock_holder(const char *dir, const char *name)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -1;
	/* flock has no test: a shared lock is refused only while someone
	 * holds the exclusive one. */
	pid_t h = 0;
	if (flock(dfd, LOCK_SH | LOCK_NB) == 0)
		flock(dfd, LOCK_UN);
	else if (errno != EWOULDBLOCK)
		h = -1;
	else if ((h = holder_of(dfd, name)) == 0) {
		h = -1;
		errno = EAGAIN;
	}
	int e = errno;
	close(dfd);
	errno = e;
	return h;
}
