/*
 * resv_spec: parsing of scontrol's reservation specification and the
 * names of reservation flags (see resv_spec.h).
 */
#include "resv_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

/* In the order Slurm prints them. */
static const struct {
	uint32_t bit;
	const char *name;
} flag_names[] = {
	{ RESV_F_MAINT, "MAINT" },
	{ RESV_F_FLEX, "FLEX" },
	{ RESV_F_OVERLAP, "OVERLAP" },
	{ RESV_F_IGNORE_JOBS, "IGNORE_JOBS" },
	{ RESV_F_HOURLY, "HOURLY" },
	{ RESV_F_DAILY, "DAILY" },
	{ RESV_F_WEEKDAY, "WEEKDAY" },
	{ RESV_F_WEEKEND, "WEEKEND" },
	{ RESV_F_WEEKLY, "WEEKLY" },
	{ RESV_F_SPEC_NODES, "SPEC_NODES" },
	{ RESV_F_ALL_NODES, "ALL_NODES" },
	{ RESV_F_ANY_NODES, "ANY_NODES" },
	{ RESV_F_STATIC, "STATIC" },
	{ RESV_F_PART_NODES, "PART_NODES" },
	{ RESV_F_FIRST_CORES, "FIRST_CORES" },
	{ RESV_F_TIME_FLOAT, "TIME_FLOAT" },
	{ RESV_F_REPLACE, "REPLACE" },
	{ RESV_F_REPLACE_DOWN, "REPLACE_DOWN" },
	{ RESV_F_PURGE_COMP, "PURGE_COMP" },
	{ RESV_F_NO_HOLD, "NO_HOLD_JOBS_AFTER_END" },
	{ RESV_F_MAGNETIC, "MAGNETIC" },
};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

/* The names scontrol takes, in the order Slurm tries them: a word
 * matches a name it begins (case aside) when it has at least min
 * letters ("MAINT" is Maintenance, "NO_HOLD_JOBS_AFTER" the last one);
 * clear: "-NAME" is taken. */
static const struct {
	const char *name;
	size_t min;
	uint32_t bit;
	int clear;
} flag_words[] = {
	{ "Maintenance", 1, RESV_F_MAINT, 1 },
	{ "Magnetic", 3, RESV_F_MAGNETIC, 1 },
	{ "Overlap", 1, RESV_F_OVERLAP, 0 },
	{ "Flex", 1, RESV_F_FLEX, 1 },
	{ "Ignore_Jobs", 1, RESV_F_IGNORE_JOBS, 1 },
	{ "Hourly", 1, RESV_F_HOURLY, 1 },
	{ "Daily", 1, RESV_F_DAILY, 1 },
	{ "Weekday", 1, RESV_F_WEEKDAY, 1 },
	{ "Weekend", 1, RESV_F_WEEKEND, 1 },
	{ "Weekly", 1, RESV_F_WEEKLY, 1 },
	{ "Any_Nodes", 1, RESV_F_ANY_NODES, 1 },
	{ "License_Only", 1, RESV_F_ANY_NODES, 1 },
	{ "Static_Alloc", 1, RESV_F_STATIC, 1 },
	{ "Part_Nodes", 2, RESV_F_PART_NODES, 1 },
	{ "PURGE_COMP", 2, RESV_F_PURGE_COMP, 1 },
	{ "First_Cores", 1, RESV_F_FIRST_CORES, 0 },
	{ "Time_Float", 1, RESV_F_TIME_FLOAT, 0 },
	{ "Replace", 1, RESV_F_REPLACE, 0 },
	{ "Replace_Down", 8, RESV_F_REPLACE_DOWN, 0 },
	{ "NO_HOLD_JOBS_AFTER_END", 1, RESV_F_NO_HOLD, 0 },
};

int resv_flags_parse(const char *s, uint32_t *set, uint32_t *clear, uint32_t *purge)
{
	*set = *clear = 0;
	if (purge)
		*purge = 0;
	if (!s)
		return -1;
	const char *p = s;
	while (*p) {
		int neg = 0;
		if (*p == '+') {
			p++;
		} else if (*p == '-') {
			neg = 1;
			p++;
		}
		size_t all = strcspn(p, ","), n = strcspn(p, ",=");
		uint32_t bit = 0;
		for (size_t i = 0; i < sizeof(flag_words) / sizeof(flag_words[0]) && !bit; i++)
			if (n >= flag_words[i].min && n <= strlen(flag_words[i].name) &&
			    !strncasecmp(p, flag_words[i].name, n) && (!neg || flag_words[i].clear))
				bit = flag_words[i].bit;
		if (!bit)
			return -1;
		if (n < all) {
			/* PURGE_COMP=<timespec>: how long it may stay idle */
			char *v = xasprintf("%.*s", (int)(all - n - 1), p + n + 1);
			uint32_t secs = 0;
			int bad = bit != RESV_F_PURGE_COMP || neg || !purge || time_secs_parse(v, &secs) ||
				  !secs;
			free(v);
			if (bad)
				return -1;
			*purge = secs;
			n = all;
		}
		if (neg)
			*clear |= bit;
		else
			*set |= bit;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

void resv_flags_fmt(uint32_t flags, uint32_t purge, char *buf, size_t len)
{
	size_t off = 0;
	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NFLAGS; i++) {
		if (!(flags & flag_names[i].bit))
			continue;
		char t[32] = "";
		if (flag_names[i].bit == RESV_F_PURGE_COMP) {      /* PURGE_COMP=00:05:00 */
			t[0] = '=';
			secs_fmt_hms((long)purge, t + 1, sizeof(t) - 1);
		}
		int w = snprintf(buf + off, len - off, "%s%s%s", off ? "," : "", flag_names[i].name, t);
		if (w < 0 || (size_t)w >= len - off)
			return;
		off += (size_t)w;
	}
}

int64_t resv_next_start(int64_t start, uint32_t flags)
{
	if (flags & RESV_F_HOURLY)
		return start + 3600;
	if (flags & RESV_F_WEEKLY)
		return start + 7 * 86400;
	if (!(flags & (RESV_F_DAILY | RESV_F_WEEKDAY | RESV_F_WEEKEND)))
		return start;
	/* Day by day in local time (mktime keeps the time of day across a
	 * change of DST), until a day of the wanted kind. */
	time_t t = (time_t)start;
	struct tm tm;
	if (!localtime_r(&t, &tm))
		return start + 86400;
	for (int i = 0; i < 7; i++) {
		tm.tm_mday++;
		tm.tm_isdst = -1;
		time_t n = mktime(&tm);
		struct tm chk;
		if (n == (time_t)-1 || !localtime_r(&n, &chk))
			return start + 86400;
		int weekend = chk.tm_wday == 0 || chk.tm_wday == 6;
		if ((flags & RESV_F_DAILY) || ((flags & RESV_F_WEEKDAY) && !weekend) ||
		    ((flags & RESV_F_WEEKEND) && weekend))
			return (int64_t)n;
		tm = chk;
	}
	return start + 86400;
}

/* Slurm's scontrol takes a keyword abbreviated down to min letters. */
static int key_is(const char *k, size_t n, const char *name, size_t min)
{
	return n >= min && n <= strlen(name) && !strncasecmp(k, name, n);
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

int resv_spec_parse(msg_resv_update_t *m, uint32_t op, int argc, char **argv, time_t now,
		    char **err, char **timerr)
{
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->duration = TIME_NO_VAL;
	*err = NULL;
	if (timerr)
		*timerr = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		if (!eq) {
			*err = xasprintf("Unknown parameter %s", a);
			return -1;
		}
		size_t n = (size_t)(eq - a);
		const char *v = eq + 1;
		/* Users+=, Accounts-=, Flags+=, Duration-=: add or remove */
		char pm = n > 1 && (a[n - 1] == '+' || a[n - 1] == '-') ? a[n - 1] : 0;
		if (pm) {
			n--;
			if (!key_is(a, n, "Users", 1) && !key_is(a, n, "Accounts", 1) &&
			    !key_is(a, n, "Flags", 2) && !key_is(a, n, "Duration", 3)) {
				*err = xasprintf("The +=/-= notation is not supported when updating %.*s",
						 (int)n, a);
				return -1;
			}
		}
		if (pm && (key_is(a, n, "Users", 1) || key_is(a, n, "Accounts", 1))) {
			/* each name with its sign: the controller adds or removes */
			strbuf_t sb = STRBUF_INIT;
			for (const char *p = v; *p;) {
				size_t l = strcspn(p, ",");
				if (l)
					strbuf_addf(&sb, "%s%c%.*s", sb.len ? "," : "", pm, (int)l, p);
				p += l;
				if (*p == ',')
					p++;
			}
			char **dst = key_is(a, n, "Users", 1) ? &m->users : &m->accounts;
			if (sb.len) {        /* Users+= (nothing): no change */
				free(*dst);
				*dst = strbuf_detach(&sb);
			}
			strbuf_release(&sb);
		} else if (pm && key_is(a, n, "Flags", 2)) {
			/* Flags+=X sets X, Flags-=X,Y clears both; a sign of
			 * its own is no flag ("+-MAINT", as Slurm reads it);
			 * only flags Flags=-X may clear */
			strbuf_t sb = STRBUF_INIT;
			for (const char *p = v; *p;) {
				size_t l = strcspn(p, ",");
				strbuf_addf(&sb, "%s%c%.*s", sb.len ? "," : "", pm, (int)l, p);
				p += l;
				if (*p == ',')
					p++;
			}
			uint32_t st, cl;
			uint32_t pc = 0;
			int bad = !*v || resv_flags_parse(sb.buf, &st, &cl, &pc);
			strbuf_release(&sb);
			if (bad) {
				*err = xasprintf("Error parsing flags %c%s", pm, v);
				return -1;
			}
			m->flags_set |= st;
			m->flags_clear |= cl;
			if (pc)
				m->purge_comp = pc;
		} else if (pm) {      /* Duration+= / -= */
			uint32_t mins;
			if (time_limit_parse(v, &mins) || mins == TIME_INFINITE) {
				*err = xasprintf("Invalid duration %s", a);
				return -1;
			}
			m->duration_delta = pm == '+' ? (int64_t)mins : -(int64_t)mins;
		} else if (key_is(a, n, "ReservationName", 3)) {
			set_str(&m->name, v);
		} else if (key_is(a, n, "StartTime", 1)) {
			time_t t;
			if (time_abs_parse(v, now, &t)) {
				if (timerr)
					*timerr = xasprintf("Invalid time specification (pos=0): %s", v);
				*err = xasprintf("Invalid start time %s", a);
				return -1;
			}
			m->start_time = (int64_t)t;
		} else if (key_is(a, n, "EndTime", 1)) {
			time_t t;
			if (time_abs_parse(v, now, &t)) {
				if (timerr)
					*timerr = xasprintf("Invalid time specification (pos=0): %s", v);
				*err = xasprintf("Invalid end time %s", a);
				return -1;
			}
			m->end_time = (int64_t)t;
		} else if (key_is(a, n, "Duration", 3)) {
			uint32_t mins;
			if (time_limit_parse(v, &mins)) {
				*err = xasprintf("Invalid duration %s", a);
				return -1;
			}
			m->duration = mins;
		} else if (key_is(a, n, "Nodes", 5)) {
			set_str(&m->nodes, v);
		} else if (key_is(a, n, "NodeCnt", 5) || key_is(a, n, "NodeCount", 5)) {
			char *e;
			unsigned long c = strtoul(v, &e, 10);
			if (!*v || *e || c == 0 || c > 1000000) {
				*err = xasprintf("Invalid node count %s", a);
				return -1;
			}
			m->node_cnt = (uint32_t)c;
		} else if (key_is(a, n, "PartitionName", 9) || (n == 9 && !strncasecmp(a, "Partition", 9))) {
			set_str(&m->partition, v);
		} else if (key_is(a, n, "Features", 2)) {
			set_str(&m->features, v);
		} else if (key_is(a, n, "Users", 1)) {
			set_str(&m->users, v);
		} else if (key_is(a, n, "Accounts", 1)) {
			set_str(&m->accounts, v);
		} else if (key_is(a, n, "Flags", 2)) {
			uint32_t s, c, pc;
			if (resv_flags_parse(v, &s, &c, &pc)) {
				*err = xasprintf("Error parsing flags %s", v);
				return -1;
			}
			if (pc)
				m->purge_comp = pc;
			m->flags_set |= s;
			m->flags_clear |= c;
		} else {
			*err = xasprintf("Unknown parameter %s", a);
			return -1;
		}
	}
	if (op == RESV_OP_CREATE) {
		if ((!m->users || !*m->users) && (!m->accounts || !*m->accounts)) {
			*err = xstrdup("Either Users/Groups and/or Accounts must be specified");
			return -1;
		}
		if (!m->start_time) {
			*err = xstrdup("A start time must be given");
			return -1;
		}
		if (!m->end_time && m->duration == TIME_NO_VAL) {
			*err = xstrdup("An end time or duration must be given");
			return -1;
		}
		if (m->end_time && m->start_time > m->end_time) {
			*err = xstrdup("Start time cannot be after end time");
			return -1;
		}
	}
	return 0;
}
