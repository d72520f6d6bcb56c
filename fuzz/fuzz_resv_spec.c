/*
 * fuzz_resv_spec: libFuzzer target for the reservation specification of
 * scontrol create|update reservation (resv_spec.c). The bytes are split
 * at spaces into words, parsed as a create and as an update; a refusal
 * must say why, an accepted flag set must format and parse back to the
 * same bits, and the repeat period of any start must move forward.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resv_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 512)
		return 0;
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	char *argv[64];
	int argc = 0;
	for (char *save = NULL, *t = strtok_r(s, " ", &save); t && argc < 64;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	for (uint32_t op = RESV_OP_CREATE; op <= RESV_OP_UPDATE; op++) {
		msg_resv_update_t m;
		char *err = NULL, *terr = NULL;
		int rc = resv_spec_parse(&m, op, argc, argv, 1700000000, &err, &terr);
		if (rc && !err)
			abort();     /* a refusal must say why */
		if (!rc) {
			char buf[256];
			uint32_t set, clear, purge;
			uint32_t want = m.purge_comp ? m.purge_comp : 300;
			resv_flags_fmt(m.flags_set, want, buf, sizeof(buf));
			if (resv_flags_parse(buf, &set, &clear, &purge) || set != m.flags_set || clear ||
			    ((m.flags_set & RESV_F_PURGE_COMP) && purge != want))
				abort();
			if (m.start_time && resv_next_start(m.start_time, m.flags_set) < m.start_time)
				abort();
		}
		free(err);
		free(terr);
		proto_free(MSG_RESV_UPDATE, &m);
	}
	free(s);
	return 0;
}
