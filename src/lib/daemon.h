/*
 * daemon: what a daemon needs to start cleanly, shared by the controller
 * and the node daemon.
 *
 * - A daemon pipe, as MUNGE's: daemon_detach() forks; the process the
 *   shell started waits on a pipe until the daemon says it is serving
 *   (exit 0) or reports why it could not start (the message on stderr,
 *   exit 1). So a start-up error reaches the shell, not only a log file.
 * - Pid files written atomically (a reader never sees a partial one).
 * - An exclusive lock on a directory, held for the process's life, and a
 *   file in it that names the holder: one daemon per state directory.
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
 * The lock of dirlock_take, if this process holds one, is released first
 * (the process must touch nothing under it afterwards): a flock goes only
 * after the pipe when the process exits, so the parent would return
 * while the lock still looked held. fd < 0: msg goes to stderr instead. */
void daemon_fail(int fd, const char *msg);

/* Write "PID\n" to path atomically: a temporary file in the same
 * directory (mode 0644), fsync, rename. 0, or -1 with errno. */
int pidfile_write(const char *path, pid_t pid);

/* Take an exclusive lock on the directory dir itself (flock on the
 * directory), held until the process exits, and write our pid into the
 * file dir/name (created 0600 if missing) for whoever asks who holds it.
 * The lock is on the directory, not on that file: an admin who deletes
 * or rewrites the file (it looks like a stale lock) leaves the lock where
 * it was, and a directory cannot be deleted while it holds files. Being
 * a flock, no other descriptor's close in this process releases it (as
 * a POSIX lock would whenever any descriptor of its file is closed).
 * Returns the open directory descriptor (close-on-exec; keep it open).
 * On -1, errno: EAGAIN if another process holds the lock (*holder: its
 * pid, 0 if unknown), else why dir could not be opened or locked, or
 * name not written. */
int dirlock_take(const char *dir, const char *name, pid_t *holder);

/* Who holds the lock of dirlock_take on dir: a pid, 0 if no one (or dir
 * does not exist), -1 with errno if it cannot be told (EAGAIN: held, by
 * a process this one cannot name). It tests by taking a shared lock for
 * an instant: a dirlock_take at that very instant finds dir held. */
pid_t dirlock_holder(const char *dir, const char *name);

#endif
