/*
 * fuzz_hostlist: libFuzzer target for hostlist parsing and compression.
 * Arbitrary bytes (as a NUL-terminated string) go through hostlist_create;
 * on success the list is compressed, re-parsed (the ranged string must
 * parse back to the same hosts) and uniq'd. Error messages are freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* keep expansions small so the fuzzer explores syntax, not memory */
	if (size > 256)
		return 0;
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';

	char *err = NULL;
	hostlist_t *hl = hostlist_create(s, &err);
	if (!hl) {
		if (!err)
			abort();   /* a failure must say why */
		free(err);
		free(s);
		return 0;
	}
	if (hostlist_count(hl) > 100000) {
		hostlist_destroy(hl);
		free(s);
		return 0;
	}
	char *r = hostlist_ranged_string(hl);
	/* Host names that themselves contain '[' ']' or separators cannot
	 * come from a parse, so the round trip must hold exactly. */
	hostlist_t *back = hostlist_create(r, NULL);
	if (!back || hostlist_count(back) != hostlist_count(hl))
		abort();
	for (size_t i = 0; i < hostlist_count(hl); i++)
		if (strcmp(hostlist_nth(hl, i), hostlist_nth(back, i)))
			abort();
	hostlist_uniq(hl);
	char *u = hostlist_ranged_string(hl);
	free(u);
	hostlist_destroy(back);
	free(r);
	hostlist_destroy(hl);
	free(s);
	return 0;
}
