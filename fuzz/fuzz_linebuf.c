/*
 * fuzz_linebuf: libFuzzer target for the task output line assembler
 * (src/lib/linebuf.c), which cuts what a user's tasks write. The first
 * byte gives the limit (1-64), the second the size of the reads; the rest
 * is the stream, fed in those reads and flushed. The pieces joined must be
 * the stream; each at most the limit; one that does not end a line must be
 * part of a longer line (exactly the limit, no newline in it) or the
 * flushed last line (no newline in it); the buffer never grows past the
 * limit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linebuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct check {
	const char *want;      /* the stream */
	size_t off;            /* how much of it the pieces covered */
	size_t max;
	int flushing;
} check_t;

static int piece(void *arg, const char *p, size_t n)
{
	check_t *c = arg;
	if (!n || n > c->max || c->off + n < c->off || memcmp(p, c->want + c->off, n))
		abort();
	c->off += n;
	if (p[n - 1] != '\n') {
		if (memchr(p, '\n', n))
			abort();
		if (!c->flushing && n != c->max)
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t max = (size_t)(data[0] % 64) + 1;
	size_t step = (size_t)data[1] + 1;
	const char *text = (const char *)data + 2;
	size_t len = size - 2;
	check_t c = { text, 0, max, 0 };
	linebuf_t lb;
	linebuf_init(&lb, max);
	for (size_t i = 0; i < len; i += step) {
		linebuf_feed(&lb, text + i, len - i < step ? len - i : step, piece, &c);
		if (lb.cap > max || linebuf_pending(&lb) >= max)
			abort();
	}
	c.flushing = 1;
	linebuf_flush(&lb, piece, &c);
	if (c.off != len || linebuf_pending(&lb))
		abort();
	linebuf_release(&lb);
	return 0;
}
