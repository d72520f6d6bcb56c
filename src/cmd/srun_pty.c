/*
 * srun_pty: srun's own terminal for --pty (man srun: task 0 runs in a
 * pseudo terminal on its node, which the step supervisor opens, step.c).
 *
 * As Slurm's srun: --pty needs srun's stdout to be a terminal (its size
 * is the task's first window size); otherwise srun says so and runs the
 * step without one. While the step runs srun's terminal (stdin) is in raw
 * mode (cfmakeraw: output processing off too, as Slurm's srun leaves it,
 * since the task's own terminal already ends its lines with \r\n): every
 * key, Ctrl-C, Ctrl-Z and Ctrl-D included, goes to task 0's
 * terminal, whose line discipline makes of it what a local one would (a
 * SIGINT for the shell's foreground job, not for srun). A change of srun's
 * window size (SIGWINCH) is sent on to the task's terminal. The settings
 * are put back when the step ends, at exit, and on a signal that would
 * end srun without either.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cmd/srun_int.h"
#include "log.h"

static struct termios saved;
static volatile sig_atomic_t raw_on;

int srun_pty_winsize(uint32_t *rows, uint32_t *cols)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0)
		return -1;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return 0;
}

int srun_pty_check(uint32_t *rows, uint32_t *cols)
{
	if (srun_pty_winsize(rows, cols) == 0)
		return 1;
	error("ioctl(TIOCGWINSZ): %s", strerror(errno));
	error("Not using a pseudo-terminal, disregarding --pty option");
	return 0;
}

void srun_pty_end(void)
{
	if (!raw_on)
		return;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	raw_on = 0;
}

/* A signal that ends srun before it could restore: restore, then end by
 * it as before (async-signal-safe: tcsetattr, signal, raise). */
static void on_fatal(int sig)
{
	if (raw_on)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	raw_on = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

void srun_pty_raw(void)
{
	static int once;
	struct termios t;
	if (tcgetattr(STDIN_FILENO, &saved) < 0)
		return;         /* stdin is no terminal: nothing to change */
	if (!once++) {
		/* before the terminal changes: from then on every way out
		 * restores it. The signals srun does not catch that end it
		 * (srun.c catches INT/TERM/HUP/QUIT/USR1/USR2 and ends the
		 * step in order). */
		atexit(srun_pty_end);
		static const int fatal[] = { SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR };
		struct sigaction sa = { 0 };
		sa.sa_handler = on_fatal;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
			struct sigaction old;
			if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
				sigaction(fatal[i], &sa, NULL);
		}
	}
	t = saved;
	cfmakeraw(&t);
	/* raw_on first: a fatal signal right after the change restores */
	raw_on = 1;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) < 0)
		raw_on = 0;
}
