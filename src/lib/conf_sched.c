/*
 * conf_sched: the numeric SchedulerParameters the scheduler acts on,
 * checked against Slurm 22.05's ranges (man slurm.conf) when slurm.conf
 * is read. slurmctld logs a value out of range and runs on a default;
 * here it is a config error, so the controller's start, `scontrol
 * reconfigure` and `sluice check-config` refuse it with file:line, instead
 * of a typo (bf_interval=-2, bf_window=0) quietly scheduling otherwise.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_int.h"
#include "xalloc.h"

struct sched_range {
	const char *key;
	long min, max;
	int minus_one;           /* -1 also allowed (bf_interval: no backfill) */
};

/* bf_max_job_user's bound is bf_max_job_test's value, checked after. */
static const struct sched_range ranges[] = {
	{ "bf_interval", 1, 10800, 1 },
	{ "bf_window", 1, 43200, 0 },
	{ "bf_resolution", 1, 3600, 0 },
	{ "bf_max_job_test", 1, 1000000, 0 },
	{ "bf_max_job_user", 0, 1000000, 0 },
	{ "default_queue_depth", 0, INT_MAX, 0 },
};

/* A whole decimal integer in [LONG_MIN, LONG_MAX], or -1. */
static int parse_long(const char *s, long *v)
{
	char *end = NULL;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (!*s || end == s || *end || errno)
		return -1;
	*v = x;
	return 0;
}

void conf_check_sched_params(conf_t *conf, const char *file, int line, const char *val)
{
	char *dup = xstrdup(val), *save = NULL;
	long test = 500, user = 0;
	int user_set = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		const struct sched_range *r = NULL;
		for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]) && !r; i++)
			if (!strcasecmp(tok, ranges[i].key))
				r = &ranges[i];
		if (!r)
			continue;
		long v;
		if (parse_long(eq + 1, &v) < 0 ||
		    ((v < r->min || v > r->max) && !(r->minus_one && v == -1))) {
			conf_err(conf, file, line, "SchedulerParameters: %s=%s is out of range: expected %ld-%ld%s",
				 r->key, eq + 1, r->min, r->max, r->minus_one ? " or -1 (disabled)" : "");
			continue;
		}
		if (!strcmp(r->key, "bf_max_job_test"))
			test = v;
		else if (!strcmp(r->key, "bf_max_job_user")) {
			user = v;
			user_set = 1;
		}
	}
	if (user_set && user > test)
		conf_err(conf, file, line,
			 "SchedulerParameters: bf_max_job_user=%ld is out of range: expected 0-%ld (bf_max_job_test)",
			 user, test);
	free(dup);
}
