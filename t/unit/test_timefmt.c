/* Unit tests for timefmt: Slurm duration/time/memory formats and parsers. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "timefmt.h"

static char buf[64];

static void limit_ok(const char *s, uint32_t want)
{
	uint32_t m = 12345;
	int rc = time_limit_parse(s, &m);
	is_int(rc, 0, "time_limit_parse('%s') ok", s);
	is_int(m, want, "time_limit_parse('%s')", s);
}

static void limit_bad(const char *s)
{
	uint32_t m = 7;
	is_int(time_limit_parse(s, &m), -1, "time_limit_parse('%s') rejected", s);
	is_int(m, 7, "no output on error for '%s'", s);
}

static void mem_ok(const char *s, uint64_t want)
{
	uint64_t mb = 0;
	is_int(mem_parse_mb(s, &mb), 0, "mem_parse_mb('%s') ok", s);
	is_int(mb, want, "mem_parse_mb('%s')", s);
}

static void mem_fmt(uint64_t mb, const char *want)
{
	mem_fmt_mb(mb, buf, sizeof(buf));
	is_str(buf, want, "mem_fmt_mb(%llu)", (unsigned long long)mb);
}

static time_t mk(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
			 .tm_hour = h, .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };
	return mktime(&tm);
}

static void abs_ok(const char *s, time_t now, time_t want)
{
	time_t t = 0;
	is_int(time_abs_parse(s, now, &t), 0, "time_abs_parse('%s') ok", s);
	is_int(t, want, "time_abs_parse('%s')", s);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();

	time_fmt_iso(mk(2026, 11, 29, 22, 39, 39), buf, sizeof(buf));
	is_str(buf, "2026-11-29T22:39:39", "iso");

	/* squeue TIME */
	secs_fmt_squeue(0, buf, sizeof(buf));
	is_str(buf, "0:00", "squeue 0");
	secs_fmt_squeue(65, buf, sizeof(buf));
	is_str(buf, "1:05", "squeue 65");
	secs_fmt_squeue(3600, buf, sizeof(buf));
	is_str(buf, "1:00:00", "squeue 1h");
	secs_fmt_squeue(86400, buf, sizeof(buf));
	is_str(buf, "1-00:00:00", "squeue 1d");
	secs_fmt_squeue(2 * 86400 + 3 * 3600 + 4 * 60 + 5, buf, sizeof(buf));
	is_str(buf, "2-03:04:05", "squeue 2d3h4m5s");
	secs_fmt_squeue(-5, buf, sizeof(buf));
	is_str(buf, "INVALID", "squeue negative");

	/* scontrol RunTime / TimeLimit */
	secs_fmt_hms(46, buf, sizeof(buf));
	is_str(buf, "00:00:46", "hms 46");
	secs_fmt_hms(0, buf, sizeof(buf));
	is_str(buf, "00:00:00", "hms 0");
	secs_fmt_hms(86400 + 1, buf, sizeof(buf));
	is_str(buf, "1-00:00:01", "hms 1d");
	mins_fmt_limit(720, buf, sizeof(buf));
	is_str(buf, "12:00:00", "limit 12h");
	mins_fmt_limit(60, buf, sizeof(buf));
	is_str(buf, "01:00:00", "limit 1h");
	mins_fmt_limit(1440, buf, sizeof(buf));
	is_str(buf, "1-00:00:00", "limit 1d");
	mins_fmt_limit(TIME_INFINITE, buf, sizeof(buf));
	is_str(buf, "UNLIMITED", "limit infinite");

	/* sinfo TIMELIMIT */
	mins_fmt_sinfo(TIME_INFINITE, buf, sizeof(buf));
	is_str(buf, "infinite", "sinfo infinite");
	mins_fmt_sinfo(60, buf, sizeof(buf));
	is_str(buf, "1:00:00", "sinfo 1h");
	mins_fmt_sinfo(30, buf, sizeof(buf));
	is_str(buf, "30:00", "sinfo 30m");
	mins_fmt_sinfo(1440, buf, sizeof(buf));
	is_str(buf, "1-00:00:00", "sinfo 1d");
	mins_fmt_sinfo(0, buf, sizeof(buf));
	is_str(buf, "0:00", "sinfo 0");

	/* sbatch --time forms */
	limit_ok("10", 10);
	limit_ok("0", 0);
	limit_ok("10:30", 11);        /* minutes:seconds, rounded up */
	limit_ok("10:00", 10);
	limit_ok("1:00:00", 60);
	limit_ok("1:00:01", 61);
	limit_ok("2-0", 2880);         /* days-hours */
	limit_ok("2-3", 2880 + 180);
	limit_ok("1-2:30", 1440 + 150);        /* days-hours:minutes */
	limit_ok("1-00:00:00", 1440);
	limit_ok("1-0:0:1", 1441);             /* days-hours:minutes:seconds */
	limit_ok("UNLIMITED", TIME_INFINITE);
	limit_ok("infinite", TIME_INFINITE);
	limit_ok("INFINITE", TIME_INFINITE);
	limit_ok("-1", TIME_INFINITE);
	limit_ok("90", 90);
	limit_bad("");
	limit_bad("abc");
	limit_bad("1:2:3:4");
	limit_bad("1h");
	limit_ok("1-", 1440);                  /* Slurm reads "1-" as one day */
	limit_bad("-2");
	limit_bad(" 10");
	limit_bad("10 ");
	limit_bad("1-2-3");
	limit_bad("99999999999");
	limit_bad(NULL);

	/* --mem */
	mem_ok("100", 100);
	mem_ok("100M", 100);
	mem_ok("100m", 100);
	mem_ok("2G", 2048);
	mem_ok("2g", 2048);
	mem_ok("1T", 1048576);
	mem_ok("1024K", 1);
	mem_ok("1K", 1);
	mem_ok("2049k", 3);
	mem_ok("0", 0);
	uint64_t mb = 5;
	is_int(mem_parse_mb("", &mb), -1, "empty mem");
	is_int(mem_parse_mb("1X", &mb), -1, "bad suffix");
	mem_ok("1GB", 1024);
	mem_ok("100Mb", 100);
	mem_ok("5kB", 1);
	mem_ok("2TB", 2097152);
	is_int(mem_parse_mb("1GBB", &mb), -1, "two B");
	is_int(mem_parse_mb("100B", &mb), -1, "B without a unit");
	is_int(mem_parse_mb("1GiB", &mb), -1, "GiB");
	is_int(mem_parse_mb("1Gx", &mb), -1, "junk after the unit");
	is_int(mem_parse_mb("-1", &mb), -1, "negative");
	is_int(mem_parse_mb("1.5G", &mb), -1, "fraction");
	is_int(mem_parse_mb("G", &mb), -1, "no number");
	is_int(mem_parse_mb("99999999999999999999", &mb), -1, "overflow");
	is_int(mem_parse_mb("99999999999999T", &mb), -1, "overflow by suffix");
	is_int(mb, 5, "no output on error");

	mem_fmt(524288, "512G");
	mem_fmt(12288, "12G");
	mem_fmt(512000, "500G");
	mem_fmt(1536, "1536M");
	mem_fmt(1024, "1G");
	mem_fmt(1048576, "1T");
	mem_fmt(16384000, "16000G");
	mem_fmt(100, "100M");
	mem_fmt(0, "0");

	/* --begin */
	time_t now = mk(2024, 3, 10, 14, 30, 0);
	abs_ok("now", now, now);
	abs_ok("now+60", now, now + 60);
	abs_ok("now+1hour", now, now + 3600);
	abs_ok("now+2hours", now, now + 7200);
	abs_ok("now+5minutes", now, now + 300);
	abs_ok("now+1day", now, now + 86400);
	abs_ok("now+1week", now, now + 7 * 86400);
	abs_ok("16:00", now, mk(2024, 3, 10, 16, 0, 0));
	abs_ok("16:00:30", now, mk(2024, 3, 10, 16, 0, 30));
	abs_ok("10:00", now, mk(2024, 3, 11, 10, 0, 0));     /* past: next day */
	abs_ok("4:00pm", now, mk(2024, 3, 10, 16, 0, 0));
	abs_ok("4:00PM", now, mk(2024, 3, 10, 16, 0, 0));
	abs_ok("midnight", now, mk(2024, 3, 11, 0, 0, 0));
	abs_ok("noon", now, mk(2024, 3, 11, 12, 0, 0));
	abs_ok("fika", now, mk(2024, 3, 10, 15, 0, 0));
	abs_ok("teatime", now, mk(2024, 3, 10, 16, 0, 0));
	abs_ok("today", now, mk(2024, 3, 10, 0, 0, 0));
	abs_ok("tomorrow", now, mk(2024, 3, 11, 0, 0, 0));
	abs_ok("2010-01-20T12:34:00", now, mk(2010, 1, 20, 12, 34, 0));
	abs_ok("2025-01-20T12:34", now, mk(2025, 1, 20, 12, 34, 0));
	abs_ok("2025-01-20", now, mk(2025, 1, 20, 0, 0, 0));
	abs_ok("12/25/25", now, mk(2025, 12, 25, 0, 0, 0));
	abs_ok("122525", now, mk(2025, 12, 25, 0, 0, 0));
	abs_ok("12/25", now, mk(2024, 12, 25, 0, 0, 0));
	abs_ok("01/05", now, mk(2025, 1, 5, 0, 0, 0));      /* past: next year */
	abs_ok("tomorrow 10:00", now, mk(2024, 3, 11, 10, 0, 0));
	time_t t = 0;
	is_int(time_abs_parse("", now, &t), -1, "empty begin");
	is_int(time_abs_parse("bogus", now, &t), -1, "bogus begin");
	is_int(time_abs_parse("now+1fortnight", now, &t), -1, "bad unit");
	is_int(time_abs_parse("25:00", now, &t), -1, "bad hour");
	is_int(time_abs_parse("2024-13-01", now, &t), -1, "bad month");
	is_int(time_abs_parse("16:00x", now, &t), -1, "trailing garbage");
	return done_testing();
}
