/*
 * log: messages for daemons and commands.
 *
 * Commands print Slurm-style lines on stderr: "<prog>: error: <msg>".
 * Daemons print "[YYYY-MM-DDTHH:MM:SS.mmm] <level>: <msg>" to their log
 * file (or stderr when none is set, e.g. in the foreground), or JSON
 * lines (log_set_json), and optionally also to syslog.
 */
#ifndef SLUICE_LOG_H
#define SLUICE_LOG_H

#include <stdarg.h>
#include <stdint.h>

enum log_level {
	LOG_LVL_QUIET = 0,
	LOG_LVL_FATAL,
	LOG_LVL_ERROR,
	LOG_LVL_INFO,
	LOG_LVL_VERBOSE,
	LOG_LVL_DEBUG,
	LOG_LVL_DEBUG2,
};

/* prog: name used as prefix by commands (argv[0] basename).
 * daemon: non-zero for timestamped daemon format. file: NULL for stderr. */
void log_init(const char *prog, int daemon, enum log_level level, const char *file);
void log_set_level(enum log_level level);
/* For tests: the rate limiter reads fn (milliseconds, monotonic) instead
 * of CLOCK_MONOTONIC; NULL restores it. */
void log_set_clock(uint64_t (*fn)(void));
/* Daemon lines as JSON objects, one a line (see log.c). */
void log_set_json(int on);
int log_get_json(void);
/* The "node" of JSON lines (the node daemon's NodeName, the controller's
 * host). */
void log_set_node(const char *node);
/* Also send messages at or above level to syslog(3); -1: none. */
void log_set_syslog(int level);
int log_get_syslog(void);
/* The job a message is about (its first "job N", "JobId=N", "step N."),
 * or -1. */
long log_msg_job_id(const char *msg);
enum log_level log_get_level(void);
const char *log_prog(void);
/* Parse SlurmctldDebug-style names (quiet,fatal,error,info,verbose,debug,
 * debug2..debug5) or numbers; -1 if unknown. */
int log_level_parse(const char *s);

struct conf;
/* log_conf.c: SluiceLogFormat and the SyslogDebug key of the daemon
 * (ctld: slurmctld's, else slurmd's) from conf; node names the daemon's
 * node (or the controller's host) in JSON lines. Call after log_init. */
void log_apply_conf(const struct conf *conf, int ctld, int foreground, int has_file,
		    const char *node);

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fatal: log and exit(1). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
