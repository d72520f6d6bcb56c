/*
 * timefmt: Slurm's time and duration formats.
 */
#ifndef SLUICE_TIMEFMT_H
#define SLUICE_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* A limit/duration in minutes meaning "no limit". */
#define TIME_INFINITE 0xffffffffu
#define TIME_NO_VAL   0xfffffffeu

/* "2026-11-29T22:39:39" in local time; t == 0 -> "Unknown" is NOT applied
 * here: callers decide (Slurm prints "Unknown" or "None" by field). */
void time_fmt_iso(time_t t, char *buf, size_t len);

/* Elapsed seconds as squeue's TIME column and scontrol RunTime:
 *   secs_fmt_hms(): "[D-]HH:MM:SS" always with hours (scontrol RunTime,
 *     TimeLimit, sinfo TIMELIMIT uses minutes variant below)
 *   secs_fmt_squeue(): "M:SS", "H:MM:SS", "D-HH:MM:SS" (squeue %M) */
void secs_fmt_hms(long secs, char *buf, size_t len);
void secs_fmt_squeue(long secs, char *buf, size_t len);

/* A time limit in minutes as Slurm prints it:
 *   mins_fmt_limit(): TIME_INFINITE -> "UNLIMITED" (scontrol), else
 *     "[D-]HH:MM:SS" ("01:00:00", "1-00:00:00", "12:00:00")
 *   mins_fmt_sinfo(): TIME_INFINITE -> "infinite", else squeue-style
 *     ("1:00:00", "30:00", "1-00:00:00") */
void mins_fmt_limit(uint32_t mins, char *buf, size_t len);
void mins_fmt_sinfo(uint32_t mins, char *buf, size_t len);

/* Parse a time limit as sbatch -t and slurm.conf MaxTime accept:
 * "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
 * "days-hours:minutes", "days-hours:minutes:seconds", "days-", "UNLIMITED",
 * "INFINITE", "-1" (infinite). Seconds round up to the next minute.
 * Returns 0 and *mins, or -1 on a bad value. */
int time_limit_parse(const char *s, uint32_t *mins);
/* The same forms as seconds, not rounded, without the unlimited ones
 * (PURGE_COMP=<timespec>): 0 and *secs, or -1. */
int time_secs_parse(const char *s, uint32_t *secs);

/* Parse a --begin / absolute time: "now", "now+60", "now+1hour",
 * "YYYY-MM-DD[THH:MM[:SS]]", "HH:MM[:SS]", "midnight", "noon", "today",
 * "tomorrow". Returns 0 and *t, or -1. */
int time_abs_parse(const char *s, time_t now, time_t *t);

/* Parse memory sizes as --mem takes them: number with optional K/M/G/T
 * suffix, which may be followed by 'B' ("1GB"), default megabytes.
 * Returns 0 and *mb, -1 on error. */
int mem_parse_mb(const char *s, uint64_t *mb);
/* Format megabytes the way scontrol prints TRES and MinMemoryCPU:
 * 1024 -> "1G", 512000 -> "500G", 1536 -> "1536M". */
void mem_fmt_mb(uint64_t mb, char *buf, size_t len);

#endif
