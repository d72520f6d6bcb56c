/*
 * log: messages for daemons and commands.
 *
 * Commands print Slurm-style lines on stderr: "<prog>: error: <msg>".
 * Daemons print "[YYYY-MM-DDTHH:MM:SS.mmm] <level>: <msg>" to their log
 * file (or stderr when none is set, e.g. in the foreground).
 */
#ifndef SLUICE_LOG_H
#define SLUICE_LOG_H

#include <stdarg.h>

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
enum log_level log_get_level(void);
const char *log_prog(void);
/* Parse SlurmctldDebug-style names (quiet,fatal,error,info,verbose,debug,
 * debug2..debug5) or numbers; -1 if unknown. */
int log_level_parse(const char *s);

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fatal: log and exit(1). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
