/*
 * fuzz_nccl_log: libFuzzer target for the NCCL output scanner
 * (src/lib/nccl_log.c), which reads what a user's job wrote. The input is
 * parsed as one line, and fed to a scanner whole and in pieces whose sizes
 * come from the first byte: both scans must reach the same verdict, name
 * and count of tagged lines (the piece boundaries must not matter), the names must
 * be one printable token and the evidence printable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void printable(const char *s, int token)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f || (token && *s == ' '))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t step = (size_t)data[0] + 1;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	char name[NCCL_NAME_MAX];
	enum nccl_verdict v = nccl_line_parse(text, len, name);
	if (v > NCCL_SOCKET || (v == NCCL_NONE) != (name[0] == '\0'))
		abort();
	printable(name, 1);

	static nccl_scan_t a, b;
	nccl_scan_init(&a);
	nccl_scan_init(&b);
	nccl_scan_feed(&a, text, len);
	nccl_scan_finish(&a);
	for (size_t i = 0; i < len; i += step)
		nccl_scan_feed(&b, text + i, len - i < step ? len - i : step);
	nccl_scan_finish(&b);
	if (a.verdict != b.verdict || strcmp(a.name, b.name) || strcmp(a.line, b.line) ||
	    a.tagged != b.tagged)
		abort();
	printable(a.name, 1);
	printable(a.line, 0);
	return 0;
}
