/*
 * test_daemon: the daemon helpers of src/lib/daemon.c: pid files written
 * atomically (no temporary left, mode 0644), the state lock (exclusive
 * between processes, names its holder, released when the holder dies,
 * close-on-exec, held on the directory whatever becomes of the file that
 * names the holder), and the daemon pipe (the starting process exits 0 when
 * the daemon is ready, 1 with the daemon's message when it fails).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "tap.h"
#include "xalloc.h"

static char tmpdir[64];

static size_t count_entries(const char *dir)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	char buf[256];
	FILE *fp = fopen(path, "r");
	if (!fp)
		return xstrdup("");
	size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return xstrdup(buf);
}

/* Start a daemon through the daemon pipe in a child, the daemon saying
 * ready or (fail) an error: the starting process's exit
 * status, its stderr in *err. fail == 2: the daemon holds lockpath, and
 * after its error still takes a while to exit (as under ASan's leak
 * check). */
static const char *lockpath;
static int run_detach(int fail, char **err)
{
	int ep[2];
	if (pipe(ep))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(ep[1], STDERR_FILENO);
		close(ep[0]);
		close(ep[1]);
		int fd = daemon_detach("test");
		if (fd < 0)
			_exit(90);
		pid_t h;
		if (fail == 2 && dirlock_take(lockpath, "lock", &h) < 0)
			_exit(91);
		if (!fail)
			daemon_ready(fd);
		else
			daemon_fail(fd, "cannot open 'x': No such file or directory");
		if (fail == 2)
			usleep(300000);
		_exit(0);
	}
	close(ep[1]);
	int st = 0;
	waitpid(pid, &st, 0);
	char buf[512];
	ssize_t n = read(ep[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(ep[0]);
	*err = xstrdup(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_daemon.XXXXXX");
	ok(mkdtemp(tmpdir) != NULL, "temp dir");

	char *pidf = xasprintf("%s/x.pid", tmpdir);
	is_int(pidfile_write(pidf, 12345), 0, "pid file written");
	char *s = slurp(pidf);
	is_str(s, "12345\n", "it holds the pid");
	free(s);
	is_int(pidfile_write(pidf, 678), 0, "replaced");
	s = slurp(pidf);
	is_str(s, "678\n", "the new pid");
	free(s);
	struct stat st;
	ok(stat(pidf, &st) == 0 && (st.st_mode & 0777) == 0644, "mode 0644");
	is_int(count_entries(tmpdir), 1, "no temporary file left");
	char *bad = xasprintf("%s/nodir/x.pid", tmpdir);
	ok(pidfile_write(bad, 1) < 0 && errno == ENOENT, "a missing directory: -1, ENOENT");
	free(bad);

	char *lockd = xasprintf("%s/state", tmpdir);
	char *lockf = xasprintf("%s/lock", lockd);
	is_int(dirlock_holder(lockd, "lock"), 0, "no directory: no holder");
	ok(mkdir(lockd, 0700) == 0, "state directory");
	is_int(dirlock_holder(lockd, "lock"), 0, "no lock: no holder");
	int sync[2];
	ok(pipe(sync) == 0, "pipe");
	pid_t kid = fork();
	if (kid == 0) {
		pid_t h;
		int fd = dirlock_take(lockd, "lock", &h);
		char c = fd >= 0 ? 'y' : 'n';
		if (write(sync[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	char c = 0;
	ok(read(sync[0], &c, 1) == 1 && c == 'y', "a child takes the lock");
	pid_t holder = -1;
	errno = 0;
	ok(dirlock_take(lockd, "lock", &holder) < 0 && errno == EAGAIN, "a second taker: -1, EAGAIN");
	is_int(holder, kid, "it is told the holder's pid");
	is_int(dirlock_holder(lockd, "lock"), kid, "dirlock_holder names it too");
	s = slurp(lockf);
	char *want = xasprintf("%d\n", (int)kid);
	is_str(s, want, "the lock file holds the holder's pid");
	free(s);
	ok(stat(lockf, &st) == 0 && (st.st_mode & 0777) == 0600, "lock file mode 0600");
	/* The file only names the holder: deleting it (it looks stale) or
	 * writing another pid into it takes nothing from the holder. */
	ok(unlink(lockf) == 0, "the lock file deleted");
	holder = -1;
	errno = 0;
	ok(dirlock_take(lockd, "lock", &holder) < 0 && errno == EAGAIN,
	   "without its file the lock still holds: -1, EAGAIN");
	is_int(holder, kid, "and the taker is told the holder's pid still");
	is_int(dirlock_holder(lockd, "lock"), kid, "dirlock_holder too");
	ok(access(lockf, F_OK) < 0 && errno == ENOENT, "the refused taker created no lock file");
	FILE *fp = fopen(lockf, "w");
	ok(fp && fprintf(fp, "1\n") == 2 && fclose(fp) == 0, "the lock file recreated by someone else");
	holder = -1;
	ok(dirlock_take(lockd, "lock", &holder) < 0 && errno == EAGAIN, "the lock still holds");
	is_int(holder, kid, "held by the same holder");
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	is_int(dirlock_holder(lockd, "lock"), 0, "the holder died: the lock is free");
	int fd = dirlock_take(lockd, "lock", &holder);
	ok(fd >= 0, "taken after the holder died");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "the lock descriptor is close-on-exec");
	s = slurp(lockf);
	want = (free(want), xasprintf("%d\n", (int)getpid()));
	is_str(s, want, "now with our pid");
	free(s);
	free(want);
	/* A flock belongs to its open file, not to the process: closing
	 * another descriptor of the directory keeps it (a POSIX lock would
	 * be gone). */
	int other = open(lockd, O_RDONLY | O_DIRECTORY);
	ok(other >= 0 && close(other) == 0, "another descriptor of the directory opened and closed");
	kid = fork();
	if (kid == 0) {
		pid_t h;
		_exit(dirlock_take(lockd, "lock", &h) < 0 && errno == EAGAIN && h == getppid() ? 0 : 1);
	}
	int wst = -1;
	waitpid(kid, &wst, 0);
	ok(WIFEXITED(wst) && WEXITSTATUS(wst) == 0, "the lock still holds for another process, naming us");
	close(fd);

	char *err = NULL;
	is_int(run_detach(0, &err), 0, "daemon ready: the starting process exits 0");
	is_str(err, "", "and prints nothing");
	free(err);
	is_int(run_detach(1, &err), 1, "daemon failed: the starting process exits 1");
	is_str(err, "test: cannot open 'x': No such file or directory\n", "with the daemon's message");
	free(err);
	/* A failed daemon still holds its lock (and ports) until it exits:
	 * the starting process must not return before, or a start right
	 * after a failed one finds them in use (0505 under ASan). */
	unlink(lockf);
	lockpath = lockd;
	is_int(run_detach(2, &err), 1, "a failed daemon that is slow to exit: exit 1");
	is_int(dirlock_holder(lockd, "lock"), 0, "by then the daemon has gone and its lock is free");
	free(err);

	unlink(pidf);
	unlink(lockf);
	rmdir(lockd);
	rmdir(tmpdir);
	free(pidf);
	free(lockf);
	free(lockd);
	return done_testing();
}
