/*
 * timefmt: Slurm's time, duration and memory-size formats.
 *
 * Slurm prints durations in two families: with hours always present
 * ("00:00:46", "1-00:00:00": scontrol RunTime/TimeLimit) and with leading
 * fields dropped ("0:46", "1:00:00", "1-00:00:00": squeue TIME, sinfo
 * TIMELIMIT). Parsers follow sbatch: --time (time_limit_parse), --begin
 * (time_abs_parse) and --mem (mem_parse_mb). All parsers reject trailing
 * garbage rather than guess.
 */
#include "timefmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void time_fmt_iso(time_t t, char *buf, size_t len)
{
	struct tm tm;
	if (!len)
		return;
	if (!localtime_r(&t, &tm)) {
		snprintf(buf, len, "Unknown");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

void secs_fmt_hms(long secs, char *buf, size_t len)
{
	if (secs < 0) {
		snprintf(buf, len, "INVALID");
		return;
	}
	long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
	if (d)
		snprintf(buf, len, "%ld-%02ld:%02ld:%02ld", d, h, m, s);
	else
		snprintf(buf, len, "%02ld:%02ld:%02ld", h, m, s);
}

void secs_fmt_squeue(long secs, char *buf, size_t len)
{
	if (secs < 0) {
		snprintf(buf, len, "INVALID");
		return;
	}
	long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
	if (d)
		snprintf(buf, len, "%ld-%02ld:%02ld:%02ld", d, h, m, s);
	else if (h)
		snprintf(buf, len, "%ld:%02ld:%02ld", h, m, s);
	else
		snprintf(buf, len, "%ld:%02ld", m, s);
}

void mins_fmt_limit(uint32_t mins, char *buf, size_t len)
{
	if (mins == TIME_INFINITE)
		snprintf(buf, len, "UNLIMITED");
	else
		secs_fmt_hms((long)mins * 60, buf, len);
}

void mins_fmt_sinfo(uint32_t mins, char *buf, size_t len)
{
	if (mins == TIME_INFINITE)
		snprintf(buf, len, "infinite");
	else
		secs_fmt_squeue((long)mins * 60, buf, len);
}

/* Unsigned decimal of at most 9 digits; advances *pp. */
static int take_num(const char **pp, long *v)
{
	const char *p = *pp;
	long x = 0;
	int d = 0;
	while (isdigit((unsigned char)*p)) {
		if (++d > 9)
			return -1;
		x = x * 10 + (*p++ - '0');
	}
	if (!d)
		return -1;
	*pp = p;
	*v = x;
	return 0;
}

/* The seconds of a time limit without its UNLIMITED forms: -1 bad. */
static long long limit_secs(const char *s)
{
	/* fields: optional "days-", then 1 to 3 ':'-separated numbers */
	const char *p = s;
	long f[3], days = 0;
	int nf = 0, has_days = 0;
	if (take_num(&p, &f[0]) < 0)
		return -1;
	nf = 1;
	if (*p == '-') {
		has_days = 1;
		days = f[0];
		p++;
		/* "1-" is one day, as Slurm reads it */
		if (!*p)
			f[0] = 0;
		else if (take_num(&p, &f[0]) < 0)
			return -1;
	}
	while (*p == ':' && nf < 3) {
		p++;
		if (take_num(&p, &f[nf++]) < 0)
			return -1;
	}
	if (*p)
		return -1;
	long long secs;
	if (has_days) {
		/* days-hours[:minutes[:seconds]] */
		secs = days * 86400LL + f[0] * 3600LL;
		if (nf >= 2)
			secs += f[1] * 60LL;
		if (nf == 3)
			secs += f[2];
	} else if (nf == 1) {
		secs = f[0] * 60LL;                       /* minutes */
	} else if (nf == 2) {
		secs = f[0] * 60LL + f[1];                /* minutes:seconds */
	} else {
		secs = f[0] * 3600LL + f[1] * 60LL + f[2]; /* hours:minutes:seconds */
	}
	return secs;
}

int time_secs_parse(const char *s, uint32_t *secs)
{
	long long v = s ? limit_secs(s) : -1;
	if (v < 0 || v >= TIME_NO_VAL)
		return -1;
	*secs = (uint32_t)v;
	return 0;
}

int time_limit_parse(const char *s, uint32_t *mins)
{
	if (!s)
		return -1;
	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE") || !strcmp(s, "-1")) {
		*mins = TIME_INFINITE;
		return 0;
	}
	long long secs = limit_secs(s);
	if (secs < 0)
		return -1;
	long long m = (secs + 59) / 60;
	if (m >= TIME_NO_VAL)
		return -1;
	*mins = (uint32_t)m;
	return 0;
}

/* ---- --begin ---- */

static int match_word(const char **pp, const char *w)
{
	size_t n = strlen(w);
	if (strncasecmp(*pp, w, n))
		return 0;
	if (isalpha((unsigned char)(*pp)[n]))
		return 0;
	*pp += n;
	return 1;
}

/* "now[+count[unit]]" */
static int parse_now(const char *p, time_t now, time_t *t)
{
	static const struct { const char *name; long mult; } units[] = {
		{ "seconds", 1 }, { "second", 1 }, { "secs", 1 }, { "sec", 1 }, { "s", 1 },
		{ "minutes", 60 }, { "minute", 60 }, { "mins", 60 }, { "min", 60 }, { "m", 60 },
		{ "hours", 3600 }, { "hour", 3600 }, { "h", 3600 },
		{ "days", 86400 }, { "day", 86400 }, { "d", 86400 },
		{ "weeks", 604800 }, { "week", 604800 }, { "w", 604800 },
	};
	if (!*p) {
		*t = now;
		return 0;
	}
	int sign = 1;
	if (*p == '+')
		sign = 1;
	else if (*p == '-')
		sign = -1;
	else
		return -1;
	p++;
	long n;
	if (take_num(&p, &n) < 0)
		return -1;
	long mult = 1;
	if (*p) {
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(p, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		mult = units[i].mult;
	}
	*t = now + sign * (time_t)n * mult;
	return 0;
}

/* "HH:MM[:SS][AM|PM]" or a named time of day; advances *pp. */
static int parse_tod(const char **pp, int *hh, int *mm, int *ss)
{
	const char *p = *pp;
	long h, m, s = 0;
	if (match_word(&p, "midnight")) {
		h = 0; m = 0;
	} else if (match_word(&p, "noon")) {
		h = 12; m = 0;
	} else if (match_word(&p, "fika")) {
		h = 15; m = 0;
	} else if (match_word(&p, "teatime")) {
		h = 16; m = 0;
	} else {
		if (take_num(&p, &h) < 0 || *p != ':')
			return -1;
		p++;
		if (take_num(&p, &m) < 0)
			return -1;
		if (*p == ':') {
			p++;
			if (take_num(&p, &s) < 0)
				return -1;
		}
		if (!strncasecmp(p, "am", 2) || !strncasecmp(p, "pm", 2)) {
			if (h < 1 || h > 12)
				return -1;
			int pm = tolower((unsigned char)*p) == 'p';
			h = h % 12 + (pm ? 12 : 0);
			p += 2;
		}
		if (h > 23 || m > 59 || s > 59)
			return -1;
	}
	*hh = (int)h;
	*mm = (int)m;
	*ss = (int)s;
	*pp = p;
	return 0;
}

/* A date: "YYYY-MM-DD", "MM/DD[/YY]", "MMDDYY", "today", "tomorrow";
 * year == -1 when not given. Advances *pp. */
static int parse_date(const char **pp, int *year, int *mon, int *mday, int *plus_days)
{
	const char *p = *pp;
	long a, b, c;
	*plus_days = 0;
	*year = -1;
	if (match_word(&p, "today")) {
		*mon = -1;
	} else if (match_word(&p, "tomorrow")) {
		*mon = -1;
		*plus_days = 1;
	} else {
		const char *start = p;
		if (take_num(&p, &a) < 0)
			return -1;
		size_t digits = (size_t)(p - start);
		if (*p == '-' && digits == 4) {
			p++;
			if (take_num(&p, &b) < 0 || *p != '-')
				return -1;
			p++;
			if (take_num(&p, &c) < 0)
				return -1;
			*year = (int)a;
			*mon = (int)b - 1;
			*mday = (int)c;
		} else if (*p == '/') {
			p++;
			if (take_num(&p, &b) < 0)
				return -1;
			*mon = (int)a - 1;
			*mday = (int)b;
			if (*p == '/') {
				p++;
				if (take_num(&p, &c) < 0)
					return -1;
				*year = c < 100 ? (int)c + 2000 : (int)c;
			}
		} else if (digits == 6) {
			*mon = (int)(a / 10000) - 1;
			*mday = (int)(a / 100 % 100);
			*year = (int)(a % 100) + 2000;
		} else {
			return -1;
		}
		if (*mon < 0 || *mon > 11 || *mday < 1 || *mday > 31)
			return -1;
	}
	*pp = p;
	return 0;
}

int time_abs_parse(const char *s, time_t now, time_t *t)
{
	if (!s)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	const char *p = s;
	if (match_word(&p, "now"))
		return parse_now(p, now, t);

	struct tm tm;
	if (!localtime_r(&now, &tm))
		return -1;
	int have_date = 0, have_time = 0;
	int year = -1, mon = -1, mday = 0, plus = 0, hh = 0, mm = 0, ss = 0;

	/* up to two parts, a date and a time of day, in either order,
	 * separated by 'T' (after an ISO date) or spaces */
	for (int part = 0; part < 2 && *p; part++) {
		const char *q = p;
		if (!have_time && parse_tod(&q, &hh, &mm, &ss) == 0) {
			have_time = 1;
		} else if (!have_date && (q = p, parse_date(&q, &year, &mon, &mday, &plus) == 0)) {
			have_date = 1;
		} else {
			return -1;
		}
		p = q;
		if (*p == 'T' && have_date && !have_time)
			p++;
		else
			while (isspace((unsigned char)*p))
				p++;
	}
	if (*p || (!have_date && !have_time))
		return -1;

	struct tm r = tm;
	r.tm_hour = hh;
	r.tm_min = mm;
	r.tm_sec = ss;
	r.tm_isdst = -1;
	if (have_date && mon >= 0) {
		r.tm_mon = mon;
		r.tm_mday = mday;
		if (year >= 0)
			r.tm_year = year - 1900;
	} else if (have_date) {
		r.tm_mday += plus;   /* today / tomorrow */
	}
	time_t res = mktime(&r);
	if (res == (time_t)-1)
		return -1;
	if (!have_date && res < now) {
		/* a time of day already past means tomorrow */
		r = tm;
		r.tm_hour = hh;
		r.tm_min = mm;
		r.tm_sec = ss;
		r.tm_mday += 1;
		r.tm_isdst = -1;
		res = mktime(&r);
	} else if (have_date && mon >= 0 && year < 0 && res < now) {
		/* MM/DD without a year already past means next year */
		r.tm_year++;
		r.tm_isdst = -1;
		res = mktime(&r);
	}
	if (res == (time_t)-1)
		return -1;
	*t = res;
	return 0;
}

/* ---- memory ---- */

int mem_parse_mb(const char *s, uint64_t *mb)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	unsigned long long shift = 0;
	int kilo = 0;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		kilo = 1;
		break;
	case 'm': case 'M':
		break;
	case 'g': case 'G':
		shift = 10;
		break;
	case 't': case 'T':
		shift = 20;
		break;
	default:
		return -1;
	}
	/* a unit may carry a 'B' ("1GB", "100Mb"), as Slurm's clients take it;
	 * a bare number may not ("100B" is an error there too) */
	if (*end && end[1] && !((end[1] == 'b' || end[1] == 'B') && !end[2]))
		return -1;
	if (kilo) {
		v = (v + 1023) / 1024;   /* round up to whole megabytes */
	} else if (shift) {
		if (v > (UINT64_MAX >> shift))
			return -1;
		v <<= shift;
	}
	*mb = v;
	return 0;
}

void mem_fmt_mb(uint64_t mb, char *buf, size_t len)
{
	static const char units[] = "MGTPE";
	int u = 0;
	if (mb == 0) {
		snprintf(buf, len, "0");
		return;
	}
	/* only exact multiples move up a unit: 1536M stays 1536M */
	while (mb % 1024 == 0 && u < 4) {
		mb /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)mb, units[u]);
}
