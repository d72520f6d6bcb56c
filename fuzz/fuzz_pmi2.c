/*
 * fuzz_pmi2: libFuzzer target for the PMI wire parser (src/lib/pmi2_wire.c),
 * which reads what a step's tasks write on PMI_FD, and for the fence data
 * and task layout it decodes. The first byte picks PMI-1 or PMI-2; the
 * input is taken command by command as the server does: each take must
 * consume what it says and no more than there is, every pair must have
 * a key, and a PMI-2 value written back and parsed again must come out
 * the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmi2_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count(void *arg, const char *k, const char *v)
{
	(*(size_t *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int v2 = data[0] & 1;
	const char *in = (const char *)data + 1;
	size_t len = size - 1, off = 0;
	while (off < len) {
		pmi_cmd_t c;
		ssize_t took = pmi_wire_take(in + off, len - off, v2, &c);
		if (took <= 0)
			break;
		if ((size_t)took > len - off || !c.n)
			abort();
		for (size_t i = 0; i < c.n; i++) {
			if (!*c.key[i])
				abort();
			if (v2) {
				strbuf_t sb = STRBUF_INIT;
				size_t st = pmi_v2_begin(&sb);
				pmi_v2_add(&sb, c.key[i], c.val[i]);
				pmi_v2_end(&sb, st);
				pmi_cmd_t back;
				if (pmi_wire_take(sb.buf, sb.len, 1, &back) != (ssize_t)sb.len ||
				    back.n != 1 || strcmp(back.val[0], c.val[i]))
					abort();
				pmi_cmd_free(&back);
				strbuf_release(&sb);
			}
		}
		pmi_cmd_free(&c);
		off += (size_t)took;
	}
	size_t n = 0;
	pmi_kvs_unpack(in, len, count, &n);
	char *s = strndup(in, len);
	uint32_t counts[16];
	if (s && pmi_counts_parse(s, counts, 16) == 0) {
		char *m = pmi_process_mapping(counts, 16);
		free(m);
	}
	free(s);
	return 0;
}
