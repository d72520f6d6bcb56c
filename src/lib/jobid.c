/*
 * jobid.c: parsing of job/step selectors (jobid.h).
 */
#include <stdlib.h>
#include <string.h>

#include "jobid.h"

#define NO_VAL32 0xfffffffeu

/* A decimal number at *s (digits only), below limit; advances *s. */
static int number(const char **s, unsigned long long limit, unsigned long long *v)
{
	if (**s < '0' || **s > '9')
		return -1;
	char *e;
	*v = strtoull(*s, &e, 10);
	if (*v >= limit)
		return -1;
	*s = e;
	return 0;
}

int jobid_parse_selector(const char *s, uint32_t *job, uint32_t *task, uint32_t *step)
{
	unsigned long long v;
	if (number(&s, NO_VAL32, &v) || v == 0)
		return -1;
	*job = (uint32_t)v;
	*task = NO_VAL32;
	*step = STEP_ALL;
	if (*s == '_') {
		s++;
		if (number(&s, NO_VAL32, &v))
			return -1;
		*task = (uint32_t)v;
	}
	if (!*s)
		return 0;
	if (*s++ != '.')
		return -1;
	if (!strcmp(s, "batch"))
		*step = STEP_BATCH;
	else if (!strcmp(s, "extern"))
		*step = STEP_EXTERN;
	else if (!strcmp(s, "interactive"))
		*step = STEP_INTERACTIVE;
	else if (number(&s, STEP_INTERACTIVE, &v) || *s)
		return -1;
	else
		*step = (uint32_t)v;
	return 0;
}
