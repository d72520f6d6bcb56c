/*
 * fuzz_cred: libFuzzer target for the step launch credential's payload
 * parser (cred_parse, what cred_verify reads once the signature holds).
 * Arbitrary bytes (as a NUL-terminated string) are parsed; a payload that
 * parses must have every string field set and a well-formed digest, and
 * is released.
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
		cred_release(&c);
	}
	free(s);
	return 0;
}
