/*
 * log: see log.h.
 *
 * Rate limiting: a peer that makes a daemon log the same thing over and
 * over (thousands of refused connections a second, a failing accept) must
 * not fill the disk. Two rules, for every level and every daemon:
 *   - a message identical to the previous one (same level and text) within
 *     LOG_REPEAT_MS is not written; the next different message (or the
 *     same one after the window) is preceded by "last message repeated N
 *     times", as syslogd does;
 *   - each call site (its format string) has a token bucket of LOG_BURST
 *     lines refilled at LOG_RATE lines a second; what it drops is counted
 *     and reported as "N similar messages suppressed: <format>" with its
 *     next line.
 * Only daemons' logs are limited (a command's messages go to its user's
 * terminal, as Slurm prints them); fatal() is never dropped.
 */
#include "log.h"

#include <stdint.h>
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

#define LOG_REPEAT_MS 10000
#define LOG_BURST 200
#define LOG_RATE 100          /* lines per second per call site */
#define LOG_SITES 256         /* direct-mapped by format pointer */

struct log_site {
	const char *fmt;
	uint64_t last_ms;         /* when tokens were last refilled */
	uint32_t tokens;
	uint32_t dropped;
};
static struct log_site log_sites[LOG_SITES];

static char log_last[4096];    /* previous message, for the repeat rule */
static enum log_level log_last_lvl;
static uint64_t log_last_ms;
static uint32_t log_repeats;

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

static uint64_t log_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void emit(FILE *fp, const char *tag, const char *msg)
{
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
		/* Slurm's clients pad "debug:" to the width of "debug2:" */
		if (tag)
			fprintf(fp, "%s: %s:%s%s\n", log_progname, tag,
				strcmp(tag, "debug") ? " " : "  ", msg);
		else
			fprintf(fp, "%s: %s\n", log_progname, msg);
	}
}

/* The call site's token bucket: 1 if fmt may log now. */
static int site_admit(FILE *fp, const char *fmt, uint64_t now)
{
	uintptr_t h = (uintptr_t)fmt;
	h ^= h >> 17;
	h *= 0x9e3779b1u;
	struct log_site *st = &log_sites[(h >> 8) % LOG_SITES];
	if (st->fmt != fmt) {
		if (st->fmt && st->dropped) {
			char m[160];
			snprintf(m, sizeof(m), "%u similar messages suppressed: %.100s",
				 st->dropped, st->fmt);
			emit(fp, NULL, m);
		}
		st->fmt = fmt;
		st->tokens = LOG_BURST;
		st->last_ms = now;
		st->dropped = 0;
	}
	uint64_t add = (now - st->last_ms) * LOG_RATE / 1000;
	if (add) {
		st->tokens = add >= LOG_BURST - st->tokens ? LOG_BURST : st->tokens + (uint32_t)add;
		st->last_ms = now;
	}
	if (!st->tokens) {
		st->dropped++;
		return 0;
	}
	st->tokens--;
	if (st->dropped) {
		char m[160];
		snprintf(m, sizeof(m), "%u similar messages suppressed: %.100s", st->dropped, fmt);
		emit(fp, NULL, m);
		st->dropped = 0;
	}
	return 1;
}

static void vlog(enum log_level lvl, const char *tag, const char *fmt, va_list ap)
{
	if (lvl > log_level)
		return;
	FILE *fp = log_fp ? log_fp : stderr;
	char msg[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	uint64_t now = log_mono_ms();
	if (log_daemon && lvl != LOG_LVL_FATAL) {
		if (lvl == log_last_lvl && now - log_last_ms < LOG_REPEAT_MS
		    && !strcmp(msg, log_last)) {
			log_repeats++;
			return;
		}
		if (!site_admit(fp, fmt, now))
			return;
	}
	if (log_repeats) {
		char m[64];
		snprintf(m, sizeof(m), "last message repeated %u times", log_repeats);
		emit(fp, NULL, m);
		log_repeats = 0;
	}
	memcpy(log_last, msg, sizeof(log_last));
	log_last_lvl = lvl;
	log_last_ms = now;
	emit(fp, tag, msg);
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
