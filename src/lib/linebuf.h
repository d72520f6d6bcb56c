/*
 * linebuf: one output stream of a task (its stdout, or its stderr) cut
 * into whole lines, so that what is passed on never ends inside a line
 * that another task's output could then splice (Slurm's slurmstepd does
 * the same with its line-buffered reads: io.c, "buffered_stdio").
 *
 * Bytes are fed as read(2) returns them; emit is called with each piece
 * that may go on now:
 *   - one or more whole lines (the last byte is '\n'), at most max bytes;
 *   - exactly max bytes without a '\n': part of a line longer than max
 *     (what memory is allowed to hold; the rest follows in later pieces);
 *   - at the end (linebuf_flush), the unfinished last line, if any.
 * Every line of at most max bytes (its '\n' included) reaches emit in one
 * piece; the pieces, in order, are the stream's bytes, none lost or added.
 * Whole lines are passed straight from the caller's buffer where nothing
 * waits before them; only an unfinished line is copied (and at most max
 * bytes ever wait). Pure: no I/O, no knowledge of tasks or frames.
 */
#ifndef SLUICE_LINEBUF_H
#define SLUICE_LINEBUF_H

#include <stddef.h>

typedef struct linebuf {
	char *buf;          /* the unfinished line: no '\n', len < max */
	size_t len, cap;
	size_t max;         /* longest piece handed to emit (>= 1) */
} linebuf_t;

/* Called with each piece; nonzero stops the feed and is returned by it
 * (what the caller does with the rest is its own business: the bytes
 * after the failed piece are neither emitted nor kept). */
typedef int (*linebuf_emit_fn)(void *arg, const char *data, size_t len);

/* An empty buffer; max 0 is taken as 1. Allocates nothing yet. */
void linebuf_init(linebuf_t *lb, size_t max);
/* Take n more bytes of the stream; emit what is now ready. 0, or the
 * first nonzero value emit returned. */
int linebuf_feed(linebuf_t *lb, const char *data, size_t n, linebuf_emit_fn emit, void *arg);
/* End of the stream: emit the unfinished line (nothing if none). 0, or
 * what emit returned. The buffer is empty after, whatever emit said. */
int linebuf_flush(linebuf_t *lb, linebuf_emit_fn emit, void *arg);
/* Bytes waiting for the end of their line. */
size_t linebuf_pending(const linebuf_t *lb);
/* Free the buffer (what waits in it is dropped); it can be fed again. */
void linebuf_release(linebuf_t *lb);

#endif
