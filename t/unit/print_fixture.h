/*
 * print_fixture.h: read a captured Slurm output (t/unit/print/, or
 * $PRINT_FIXTURES) for the formatter tests: its stdout, i.e. everything
 * after the "$ command" line. "(missing fixture)" if it cannot be read.
 */
#ifndef SLUICE_PRINT_FIXTURE_H
#define SLUICE_PRINT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

static inline char *fixture(const char *name)
{
	char path[512];
	const char *d = getenv("PRINT_FIXTURES");
	snprintf(path, sizeof(path), "%s/%s", d ? d : "t/unit/print", name);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return xstrdup("(missing fixture)");
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	char *nl = strchr(sb.buf, '\n');
	char *out = xstrdup(nl ? nl + 1 : "");
	strbuf_release(&sb);
	return out;
}

#endif
