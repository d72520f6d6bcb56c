/* log: see log.h. */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char log_progname[64] = "sluice";
static int log_daemon;
static enum log_level log_level = LOG_LVL_INFO;
static FILE *log_fp;

void log_init(const char *prog, int daemon, enum log_level level, const char *file)
{
	if (prog) {
		const char *b = strrchr(prog, '/');
		snprintf(log_progname, sizeof(log_progname), "%s", b ? b + 1 : prog);
	}
	log_daemon = daemon;
	log_level = level;
	if (log_fp && log_fp != stderr)
		fclose(log_fp);
	log_fp = NULL;
	if (file && *file) {
		/* close-on-exec: no job may inherit a daemon's log */
		log_fp = fopen(file, "ae");
		if (log_fp)
			setvbuf(log_fp, NULL, _IOLBF, 0);
	}
}

void log_set_level(enum log_level level) { log_level = level; }
enum log_level log_get_level(void) { return log_level; }
const char *log_prog(void) { return log_progname; }

int log_level_parse(const char *s)
{
	static const char *names[] = { "quiet", "fatal", "error", "info",
				       "verbose", "debug", "debug2" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i]))
			return (int)i;
	if (!strncasecmp(s, "debug", 5) && s[5] >= '3' && s[5] <= '5' && !s[6])
		return LOG_LVL_DEBUG2;
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0)
		return v > LOG_LVL_DEBUG2 ? LOG_LVL_DEBUG2 : (int)v;
	return -1;
}

static void vlog(enum log_level lvl, const char *tag, const char *fmt, va_list ap)
{
	if (lvl > log_level)
		return;
	FILE *fp = log_fp ? log_fp : stderr;
	char msg[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_daemon) {
		struct timeval tv;
		struct tm tm;
		char ts[32];
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		if (tag)
			fprintf(fp, "[%s.%03ld] %s: %s\n", ts, (long)tv.tv_usec / 1000, tag, msg);
		else
			fprintf(fp, "[%s.%03ld] %s\n", ts, (long)tv.tv_usec / 1000, msg);
	} else {
		if (tag)
			fprintf(fp, "%s: %s: %s\n", log_progname, tag, msg);
		else
			fprintf(fp, "%s: %s\n", log_progname, msg);
	}
	fflush(fp);
}

void error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LVL_ERROR, "error", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LVL_INFO, NULL, fmt, ap);
	va_end(ap);
}

void verbose(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LVL_VERBOSE, NULL, fmt, ap);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LVL_DEBUG, "debug", fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LVL_FATAL, "fatal", fmt, ap);
	va_end(ap);
	exit(1);
}
