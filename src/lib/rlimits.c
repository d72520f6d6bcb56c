/*
 * rlimits: names and list parsing of the propagated resource limits.
 * See rlimits.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "rlimits.h"

const rlim_name_t rlim_names[] = {
	{ "CPU", RLIMIT_CPU }, { "FSIZE", RLIMIT_FSIZE }, { "DATA", RLIMIT_DATA },
	{ "STACK", RLIMIT_STACK }, { "CORE", RLIMIT_CORE }, { "RSS", RLIMIT_RSS },
	{ "NPROC", RLIMIT_NPROC }, { "NOFILE", RLIMIT_NOFILE },
	{ "MEMLOCK", RLIMIT_MEMLOCK }, { "AS", RLIMIT_AS },
};
const size_t rlim_count = sizeof(rlim_names) / sizeof(rlim_names[0]);

int rlim_list_parse(const char *list, unsigned *mask, const char **bad)
{
	static char badbuf[64];
	unsigned m = 0;
	const char *p = list ? list : "";

	*mask = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *item = p;
		if (len > 7 && !strncmp(item, "RLIMIT_", 7)) {
			item += 7;
			len -= 7;
		}
		int found = 0;
		if (len == 3 && !strncmp(item, "ALL", 3)) {
			m = (1u << rlim_count) - 1;
			found = 1;
		} else if (len == 4 && !strncmp(item, "NONE", 4)) {
			found = 1;
		}
		for (size_t i = 0; !found && i < rlim_count; i++) {
			if (strlen(rlim_names[i].name) == len &&
			    !strncmp(item, rlim_names[i].name, len)) {
				m |= 1u << i;
				found = 1;
			}
		}
		if (!found && len) {
			size_t bl = strcspn(p, ",");
			snprintf(badbuf, sizeof(badbuf), "%.*s", (int)(bl < 60 ? bl : 60), p);
			if (bad)
				*bad = badbuf;
			return -1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	*mask = m;
	return 0;
}
