/*
 * fuzz_cred: libFuzzer target for the step launch credential's payload
 * parser (cred_parse, what cred_verify reads once the signature holds).
 * Arbitrary bytes (as a NUL-terminated string) are parsed; a payload that
 * parses must have every string field set and a well-formed digest, its
 * task layout (if any) goes through cred_layout_parse, and it is released.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cred.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	cred_t c;
	if (cred_parse(s, &c) == 0) {
		if (!c.user || !c.nodes || !c.digest || strlen(c.digest) != CRED_DIGEST_HEX)
			abort();
		uint32_t *v = NULL, n = 0;
		if (c.layout && cred_layout_parse(c.layout, 4096, &v, &n) == 0 && (!v || !n))
			abort();
		free(v);
		cred_release(&c);
	}
	free(s);
	return 0;
}
