/*
 * step_pty: the pseudo terminal of srun --pty's task 0 (man srun: "task
 * zero in pseudo terminal mode"), opened by the step supervisor (step.c).
 *
 * The supervisor opens the master and keeps a descriptor of the slave
 * until the task has been reaped: the master then reads EIO only once the
 * task (and whatever it left holding the terminal) is gone and its output
 * drained, never in the window before the task has taken the slave. The
 * slave belongs to the step's user and group, mode 0600, as under Slurm
 * (whose stepd opens it as the user: crw------- user user); nobody else
 * reads or writes it. Its first window size is srun's at the launch,
 * later ones come as STEP_IO_WINSIZE frames (the kernel then sends
 * SIGWINCH to the task's foreground process group). The task makes the
 * slave its controlling terminal in its own session (setsid, TIOCSCTTY)
 * and its stdin, stdout and stderr, as login does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "noded.h"
#include "xalloc.h"

int step_pty_open(uint32_t uid, uint32_t gid, uint32_t rows, uint32_t cols, int *master,
		  int *slave, char **err)
{
	char name[128];
	*master = *slave = -1;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0) {
		*err = xasprintf("posix_openpt: %s", strerror(errno));
		return -1;
	}
	if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof(name)) != 0) {
		*err = xasprintf("unable to set up the pseudo terminal: %s", strerror(errno));
		close(m);
		return -1;
	}
	int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0) {
		*err = xasprintf("open %s: %s", name, strerror(errno));
		close(m);
		return -1;
	}
	if ((geteuid() == 0 && fchown(s, uid, gid) < 0) || fchmod(s, 0600) < 0) {
		*err = xasprintf("unable to give %s to uid %u: %s", name, uid, strerror(errno));
		close(s);
		close(m);
		return -1;
	}
	if (rows && cols) {
		struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
		ioctl(m, TIOCSWINSZ, &ws);
	}
	*master = m;
	*slave = s;
	return 0;
}

int step_pty_attach(int slave)
{
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return -1;
	if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
		return -1;
	return 0;
}

void step_pty_winsize(int master, const uint8_t *d, uint32_t len)
{
	if (master < 0 || len != 4)
		return;
	struct winsize ws = {
		.ws_row = (unsigned short)(d[0] << 8 | d[1]),
		.ws_col = (unsigned short)(d[2] << 8 | d[3]),
	};
	ioctl(master, TIOCSWINSZ, &ws);
}
