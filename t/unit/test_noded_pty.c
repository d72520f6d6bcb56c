/* Unit tests for srun --pty's terminal on the node (src/noded/step_pty.c):
 * owner and mode of the slave, window size at open and from a
 * STEP_IO_WINSIZE frame, the task's controlling terminal. */
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "noded/noded.h"
#include "xalloc.h"

/* What the master shows within a few seconds, up to n-1 bytes. */
static void read_master(int m, char *buf, size_t n)
{
	size_t got = 0;
	while (got + 1 < n) {
		struct pollfd p = { m, POLLIN, 0 };
		if (poll(&p, 1, 5000) <= 0)
			break;
		ssize_t r = read(m, buf + got, n - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
		if (memchr(buf, '\n', got))
			break;
	}
	buf[got] = '\0';
}

int main(void)
{
	/* as root the terminal goes to another user (nobody's ids) */
	uint32_t uid = geteuid() == 0 ? 65534 : getuid();
	uint32_t gid = geteuid() == 0 ? 65534 : getgid();
	int m = -1, s = -1;
	char *err = NULL;
	if (step_pty_open(uid, gid, 30, 100, &m, &s, &err) < 0) {
		printf("1..0 # SKIP no pseudo terminal here: %s\n", err);
		free(err);
		return 0;
	}
	struct stat st;
	ok(fstat(s, &st) == 0 && S_ISCHR(st.st_mode), "the slave is a character device");
	is_int(st.st_uid, uid, "owned by the step's user");
	is_int(st.st_gid, gid, "and group");
	is_int(st.st_mode & 07777, 0600, "mode 0600, as Slurm's");
	ok(fcntl(m, F_GETFD) & FD_CLOEXEC, "master close-on-exec");
	ok(fcntl(s, F_GETFD) & FD_CLOEXEC, "slave close-on-exec");

	struct winsize ws = { 0 };
	ioctl(s, TIOCGWINSZ, &ws);
	is_int(ws.ws_row, 30, "rows at open");
	is_int(ws.ws_col, 100, "cols at open");

	const uint8_t big[4] = { 0x01, 0x02, 0x00, 0x78 };
	step_pty_winsize(m, big, 4);
	ioctl(s, TIOCGWINSZ, &ws);
	is_int(ws.ws_row, 258, "rows from a frame (big-endian)");
	is_int(ws.ws_col, 120, "cols from a frame");
	const uint8_t odd[3] = { 0, 9, 9 };
	step_pty_winsize(m, odd, 3);
	step_pty_winsize(-1, big, 4);
	ioctl(s, TIOCGWINSZ, &ws);
	ok(ws.ws_row == 258 && ws.ws_col == 120, "a frame of another length changes nothing");

	/* the task: its own session, the slave its controlling terminal and
	 * stdio; exit code 0 when all of that holds */
	pid_t pid = fork();
	if (pid == 0) {
		close(m);
		setsid();
		if (step_pty_attach(s) < 0)
			_exit(2);
		if (!isatty(0) || !isatty(1) || !isatty(2))
			_exit(3);
		if (tcgetpgrp(0) != getpid() || tcgetsid(0) != getpid())
			_exit(4);
		(void)!write(1, "hi\n", 3);
		_exit(0);
	}
	char buf[64];
	read_master(m, buf, sizeof(buf));
	int wst = 0;
	waitpid(pid, &wst, 0);
	is_int(WIFEXITED(wst) ? WEXITSTATUS(wst) : 100 + WTERMSIG(wst), 0,
	       "the task has it as controlling terminal and stdio");
	is_str(buf, "hi\r\n", "what it writes reaches the master (\\n as \\r\\n)");
	close(s);
	close(m);

	/* a task not in its own session cannot take it */
	m = s = -1;
	if (step_pty_open(uid, gid, 0, 0, &m, &s, &err) == 0) {
		pid = fork();
		if (pid == 0)
			_exit(step_pty_attach(s) < 0 ? 0 : 1);
		waitpid(pid, &wst, 0);
		ok(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
		   "attach refused outside a new session (TIOCSCTTY)");
		close(s);
		close(m);
	}
	return done_testing();
}
