/*
 * linebuf: a stream cut into whole lines (see linebuf.h). Each feed costs
 * one memrchr per max-sized window of its bytes: whole lines are handed
 * on in as few pieces as the window allows (one frame per read(2) for a
 * task that writes lines steadily), and a copy is made only of what
 * must wait: the unfinished line, plus the lines that complete it when
 * one waits (then they go on together, as one piece).
 */
#include "linebuf.h"

#include <string.h>

#include "xalloc.h"

void linebuf_init(linebuf_t *lb, size_t max)
{
	memset(lb, 0, sizeof(*lb));
	lb->max = max ? max : 1;
}

static void keep(linebuf_t *lb, const char *data, size_t n)
{
	size_t need = lb->len + n;   /* <= max: callers keep it so */
	if (need > lb->cap) {
		size_t c = lb->cap ? lb->cap * 2 : 256;
		if (c < need)
			c = need;
		if (c > lb->max)
			c = lb->max;
		lb->buf = xrealloc(lb->buf, c);
		lb->cap = c;
	}
	memcpy(lb->buf + lb->len, data, n);
	lb->len = need;
}

/* Hand on what waits with the next k bytes of data behind it, as one
 * piece (the bytes straight from data when nothing waits). */
static int pass(linebuf_t *lb, const char *data, size_t k, linebuf_emit_fn emit, void *arg)
{
	if (!lb->len)
		return emit(arg, data, k);
	keep(lb, data, k);
	size_t total = lb->len;
	lb->len = 0;             /* gone on, whatever emit says */
	return emit(arg, lb->buf, total);
}

int linebuf_feed(linebuf_t *lb, const char *data, size_t n, linebuf_emit_fn emit, void *arg)
{
	while (n) {
		/* what may join the waiting bytes in one piece */
		size_t room = lb->max - lb->len;     /* >= 1: len < max */
		size_t window = n < room ? n : room;
		const char *nl = memrchr(data, '\n', window);
		size_t k;
		if (nl)
			k = (size_t)(nl - data) + 1;     /* up to the last whole line */
		else if (window == room)
			k = room;        /* a line longer than max: this much of it */
		else {
			keep(lb, data, n);   /* all of it is the unfinished line */
			return 0;
		}
		int e = pass(lb, data, k, emit, arg);
		if (e)
			return e;
		data += k;
		n -= k;
	}
	return 0;
}

int linebuf_flush(linebuf_t *lb, linebuf_emit_fn emit, void *arg)
{
	if (!lb->len)
		return 0;
	size_t total = lb->len;
	lb->len = 0;
	return emit(arg, lb->buf, total);
}

size_t linebuf_pending(const linebuf_t *lb)
{
	return lb->len;
}

void linebuf_release(linebuf_t *lb)
{
	xfree(lb->buf);
	lb->len = lb->cap = 0;
}
