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
 *
 * JSON lines (log_set_json, SluiceLogFormat=json): a daemon's line is one
 * JSON object, {"time","level","daemon","node","job_id","message"}, with
 * time in RFC 3339 (local time with its offset, milliseconds) and job_id
 * (a number) only when the message is about one job: the first "job N",
 * "JobId=N" or "step N." in its text, which is how our messages name
 * jobs. Shippers (Vector, Fluent Bit, Promtail, Filebeat) read it with
 * their JSON parser, without rules of their own.
 *
 * Syslog (log_set_syslog): messages at or above that level also go to
 * syslog(3) (facility daemon, ident the program name), whatever the file.
 */
#include "log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static char log_progname[64] = "sluice";
static int log_daemon;
static enum log_level log_level = LOG_LVL_INFO;
static FILE *log_fp;
static int log_json;
static char log_node[128];
static int log_syslog = -1;     /* level, -1: off */

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

void log_set_json(int on) { log_json = on; }
int log_get_json(void) { return log_json; }

void log_set_node(const char *node)
{
	snprintf(log_node, sizeof(log_node), "%s", node ? node : "");
}

void log_set_syslog(int level)
{
	if (level >= 0 && log_syslog < 0)
		openlog(log_progname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	else if (level < 0 && log_syslog >= 0)
		closelog();
	log_syslog = level;
}

int log_get_syslog(void) { return log_syslog; }

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

/* Tests freeze the rate limiter's clock (log_set_clock). */
static uint64_t (*log_clock)(void);

void log_set_clock(uint64_t (*fn)(void))
{
	log_clock = fn;
}

static uint64_t log_mono_ms(void)
{
	if (log_clock)
		return log_clock();
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *level_name(enum log_level lvl)
{
	switch (lvl) {
	case LOG_LVL_FATAL: return "fatal";
	case LOG_LVL_ERROR: return "error";
	case LOG_LVL_INFO: return "info";
	case LOG_LVL_VERBOSE: return "verbose";
	case LOG_LVL_DEBUG: return "debug";
	default: return "debug2";
	}
}

long log_msg_job_id(const char *msg)
{
	static const char *const keys[] = { "job ", "JobId=", "step " };
	const char *best = NULL;
	size_t blen = 0;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t kl = strlen(keys[k]);
		for (const char *p = msg; (p = strstr(p, keys[k])) != NULL; p += kl) {
			/* a word of its own: "job 12", not "subjob 12" */
			if (p > msg && ((p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')))
				continue;
			if (p[kl] < '0' || p[kl] > '9')
				continue;
			if (!best || p < best) {
				best = p;
				blen = kl;
			}
			break;
		}
	}
	if (!best)
		return -1;
	char *end;
	unsigned long v = strtoul(best + blen, &end, 10);
	return v > 0xffffffffUL ? -1 : (long)v;
}

/* s as a JSON string (quotes included) into out (at most cap bytes). */
static size_t json_str(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap < 3)
		return 0;
	out[o++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 8 < cap; p++) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else if (c == '\t') {
			out[o++] = '\\';
			out[o++] = 't';
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
		} else if (c >= 0x80) {
			/* keep valid UTF-8 sequences, replace stray bytes */
			int n = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
			int okseq = n > 0;
			for (int i = 1; okseq && i <= n; i++)
				okseq = (p[i] & 0xc0) == 0x80;
			if (!okseq) {
				o += (size_t)snprintf(out + o, cap - o, "\\ufffd");
				continue;
			}
			for (int i = 0; i <= n; i++)
				out[o++] = (char)p[i];
			p += n;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o++] = '"';
	out[o] = 0;
	return o;
}

static void emit_json(FILE *fp, enum log_level lvl, const char *msg)
{
	struct timeval tv;
	struct tm tm;
	char ts[40], tz[8];
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(tz, sizeof(tz), "%z", &tm);     /* +0100 -> +01:00 (RFC 3339) */
	char jm[8192], jd[160], jn[300];
	json_str(jm, sizeof(jm), msg);
	json_str(jd, sizeof(jd), log_progname);
	json_str(jn, sizeof(jn), log_node);
	long job = log_msg_job_id(msg);
	char jj[32] = "";
	if (job >= 0)
		snprintf(jj, sizeof(jj), ",\"job_id\":%ld", job);
	fprintf(fp, "{\"time\":\"%s.%03ld%.3s:%.2s\",\"level\":\"%s\",\"daemon\":%s,\"node\":%s%s,"
		"\"message\":%s}\n", ts, (long)tv.tv_usec / 1000, tz, tz + 3, level_name(lvl), jd, jn, jj,
		jm);
}

static void emit(FILE *fp, enum log_level lvl, const char *tag, const char *msg)
{
	if (log_daemon && log_json) {
		emit_json(fp, lvl, msg);
	} else if (log_daemon) {
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
			emit(fp, LOG_LVL_INFO, NULL, m);
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
		emit(fp, LOG_LVL_INFO, NULL, m);
		st->dropped = 0;
	}
	return 1;
}

static int syslog_prio(enum log_level lvl)
{
	switch (lvl) {
	case LOG_LVL_FATAL: return LOG_CRIT;
	case LOG_LVL_ERROR: return LOG_ERR;
	case LOG_LVL_INFO: return LOG_INFO;
	case LOG_LVL_VERBOSE: return LOG_INFO;
	default: return LOG_DEBUG;
	}
}

static void vlog(enum log_level lvl, const char *tag, const char *fmt, va_list ap)
{
	int to_syslog = log_daemon && log_syslog >= 0 && (int)lvl <= log_syslog;
	if (lvl > log_level && !to_syslog)
		return;
	FILE *fp = log_fp ? log_fp : stderr;
	char msg[4096];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (to_syslog)
		syslog(syslog_prio(lvl), "%s%s%s", tag ? tag : "", tag ? ": " : "", msg);
	if (lvl > log_level)
		return;
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
		emit(fp, LOG_LVL_INFO, NULL, m);
		log_repeats = 0;
	}
	memcpy(log_last, msg, sizeof(log_last));
	log_last_lvl = lvl;
	log_last_ms = now;
	emit(fp, lvl, tag, msg);
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
