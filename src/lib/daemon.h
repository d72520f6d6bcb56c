/*
 * daemon: what a daemon needs to start cleanly, shared by the controller
 * and the node daemon.
 *
 * - A daemon pipe, as MUNGE's: daemon_detach() forks; the process the
 *   shell started waits on a pipe until the daemon says it is serving
 *   (exit 0) or reports why it could not start (the message on stderr,
 *   exit 1). So a start-up error reaches the shell, not only a log file.
 * - Pid files written atomically (a reader never sees a partial one).
 * - An exclusive lock on a file, held for the process's life, that names
 *   its holder: one daemon per state directory.
 */
#ifndef SLUICE_DAEMON_H
#define SLUICE_DAEMON_H

#include <sys/types.h>

/* Fork into the background (fork, setsid, fork). Returns, in the daemon
 * only, the write end of the daemon pipe (close-on-exec), or -1 with errno
 * if a fork or the pipe failed (nothing was forked then). The starting
 * process never returns: it waits for daemon_ready (exit 0) or
 * daemon_fail (prints "<prog>: <message>" on stderr, exit 1); if the
 * daemon ends without either, it says so and exits 1. stdin/stdout/stderr
 * of the daemon stay as they were until daemon_ready. */
int daemon_detach(const char *prog);

/* The daemon is serving: release the waiting parent (exit 0), point
 * stdin/stdout/stderr at /dev/null and close fd. fd < 0: no-op. */
void daemon_ready(int fd);

/* Start-up failed: send msg to the waiting parent, which prints it and
 * exits 1 when this process has exited (fd is left open until then).
 * fd < 0: msg goes to stderr instead. */
void daemon_fail(int fd, const char *msg);

/* Write "PID\n" to path atomically: a temporary file in the same
 * directory (mode 0644), fsync, rename. 0, or -1 with errno. */
int pidfile_write(const char *path, pid_t pid);

/* Take an exclusive lock on path (created with mode 0600 if missing),
 * held until the process exits, and write our pid into it. Returns the
 * open descriptor (close-on-exec; keep it open). On -1, errno: EAGAIN if
 * another process holds the lock (*holder: its pid, 0 if unknown), else
 * why path could not be opened or locked. */
int lockfile_take(const char *path, pid_t *holder);

/* Who holds the lock of lockfile_take on path: a pid, 0 if no one (or
 * path does not exist), -1 with errno if it cannot be told. */
pid_t lockfile_holder(const char *path);

#endif
