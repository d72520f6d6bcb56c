/* Unit tests for the task output line assembler (src/lib/linebuf.c):
 * partial lines wait for their end, many lines of one read go on as one
 * piece, a line longer than the buffer goes in pieces of exactly max
 * bytes, the end of the stream hands on an unfinished line, two streams
 * (a task's stdout and stderr) are cut independently, an emit error stops
 * the feed, and random feeds keep every line of at most max bytes whole. */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "linebuf.h"
#include "strbuf.h"

/* What emit received: the pieces joined with '|' after them. */
typedef struct sink {
	strbuf_t got;
	int pieces;
	int fail_at;        /* emit returns 7 at this piece (1-based), 0 never */
} sink_t;

static int to_sink(void *arg, const char *data, size_t len)
{
	sink_t *s = arg;
	s->pieces++;
	strbuf_add(&s->got, data, len);
	strbuf_addch(&s->got, '|');
	return s->pieces == s->fail_at ? 7 : 0;
}

static int first_ptr(void *arg, const char *data, size_t len)
{
	*(const char **)arg = data;
	return 0;
}

static void feed_str(linebuf_t *lb, sink_t *s, const char *text)
{
	linebuf_feed(lb, text, strlen(text), to_sink, s);
}

static const char *got(sink_t *s)
{
	return s->got.buf ? s->got.buf : "";
}

static void reset(sink_t *s)
{
	strbuf_release(&s->got);
	s->pieces = 0;
	s->fail_at = 0;
}

int main(void)
{
	linebuf_t lb;
	sink_t s = { STRBUF_INIT, 0, 0 };

	/* a partial line waits; its end sends it whole */
	linebuf_init(&lb, 64);
	feed_str(&lb, &s, "part-0 ");
	is_str(got(&s), "", "a partial line is not handed on");
	is_int(linebuf_pending(&lb), 7, "it waits");
	feed_str(&lb, &s, "end-0\n");
	is_str(got(&s), "part-0 end-0\n|", "its end sends it whole, in one piece");
	is_int(linebuf_pending(&lb), 0, "nothing waits after");
	reset(&s);

	/* many lines in one read: one piece, the rest waits */
	feed_str(&lb, &s, "a\nbb\nccc\ndd");
	is_str(got(&s), "a\nbb\nccc\n|", "the whole lines of a read go as one piece");
	is_int(s.pieces, 1, "one piece");
	feed_str(&lb, &s, "d\ne\nf");
	is_str(got(&s), "a\nbb\nccc\n|ddd\ne\n|", "what waited goes with the lines that complete it");
	is_int(s.pieces, 2, "in one piece");
	reset(&s);
	linebuf_release(&lb);

	/* with nothing waiting, whole lines are handed on from the caller's
	 * buffer itself (no copy on the output path) */
	linebuf_init(&lb, 64);
	{
		const char text[] = "x\ny\nz";
		const char *seen = NULL;
		linebuf_feed(&lb, text, 5, first_ptr, &seen);
		ok(seen == text, "whole lines are not copied");
		linebuf_feed(&lb, "\n", 1, first_ptr, &seen);
		ok(seen != text && seen == lb.buf, "an unfinished line is");
	}
	linebuf_release(&lb);

	/* a line longer than the buffer: pieces of exactly max bytes, its
	 * end a piece of its own (with the next line it would pass max) */
	linebuf_init(&lb, 8);
	feed_str(&lb, &s, "0123456789abcdefghij\nnext\n");
	is_str(got(&s), "01234567|89abcdef|ghij\n|next\n|", "a long line in pieces of max");
	reset(&s);
	/* the same line fed a byte at a time */
	for (const char *p = "0123456789abcdefghij\nnext\n"; *p; p++)
		linebuf_feed(&lb, p, 1, to_sink, &s);
	is_str(got(&s), "01234567|89abcdef|ghij\n|next\n|", "fed byte by byte: the same cut");
	reset(&s);
	/* a line of exactly max bytes (its newline included) stays whole */
	feed_str(&lb, &s, "abc");
	feed_str(&lb, &s, "defg\n");
	is_str(got(&s), "abcdefg\n|", "a line of max bytes is one piece");
	reset(&s);
	/* lines that fit but not together go in several pieces, each whole */
	feed_str(&lb, &s, "aaaa\nbbbbbb\ncc\n");
	is_str(got(&s), "aaaa\n|bbbbbb\n|cc\n|", "lines are grouped only while they fit");
	reset(&s);
	linebuf_release(&lb);

	/* a line longer than one read (the supervisor reads 64 KiB at a
	 * time) but within max still arrives in one piece */
	linebuf_init(&lb, 1u << 20);
	{
		size_t big = 200000;
		char *line = malloc(big);
		memset(line, 'x', big - 1);
		line[big - 1] = '\n';
		sink_t b = { STRBUF_INIT, 0, 0 };
		for (size_t i = 0; i < big; i += 65536)
			linebuf_feed(&lb, line + i, big - i < 65536 ? big - i : 65536, to_sink, &b);
		is_int(b.pieces, 1, "a 200000-byte line read in 64 KiB reads: one piece");
		is_int(b.got.len, big + 1, "all of it");
		ok(lb.cap <= (1u << 20), "the buffer grew no further than max");
		strbuf_release(&b.got);
		free(line);
	}
	linebuf_release(&lb);

	/* EOF without a newline: the unfinished line is not lost */
	linebuf_init(&lb, 64);
	feed_str(&lb, &s, "one\ntwo");
	is_int(linebuf_flush(&lb, to_sink, &s), 0, "flush");
	is_str(got(&s), "one\n|two|", "the last line without newline comes at the end");
	is_int(linebuf_flush(&lb, to_sink, &s), 0, "flush again");
	is_str(got(&s), "one\n|two|", "nothing twice");
	reset(&s);
	linebuf_flush(&lb, to_sink, &s);
	is_int(s.pieces, 0, "an empty stream emits nothing at its end");
	linebuf_release(&lb);

	/* stdout and stderr are separate: a partial line on one does not
	 * hold the other back, nor mix with it */
	{
		linebuf_t out, err;
		sink_t so = { STRBUF_INIT, 0, 0 }, se = { STRBUF_INIT, 0, 0 };
		linebuf_init(&out, 64);
		linebuf_init(&err, 64);
		feed_str(&out, &so, "progress ");
		feed_str(&err, &se, "warning: x\n");
		is_str(got(&se), "warning: x\n|", "stderr's line goes while stdout's waits");
		is_str(got(&so), "", "stdout's partial line still waits");
		feed_str(&out, &so, "done\n");
		is_str(got(&so), "progress done\n|", "then stdout's line whole");
		linebuf_release(&out);
		linebuf_release(&err);
		strbuf_release(&so.got);
		strbuf_release(&se.got);
	}

	/* an emit error stops the feed and is returned */
	linebuf_init(&lb, 4);
	s.fail_at = 1;
	is_int(linebuf_feed(&lb, "abcdefgh\n", 9, to_sink, &s), 7, "emit's error is returned");
	is_str(got(&s), "abcd|", "and nothing more is emitted");
	reset(&s);
	linebuf_release(&lb);

	/* random feeds: the pieces are the input; each ends in '\n' or is
	 * max bytes long (the flush's excepted); no line of at most max bytes
	 * is cut */
	srand(12345);
	int bad = 0;
	for (int round = 0; round < 2000 && !bad; round++) {
		size_t max = 1 + (size_t)(rand() % 40);
		char in[600];
		size_t n = (size_t)(rand() % (int)sizeof(in));
		for (size_t i = 0; i < n; i++)
			in[i] = rand() % 6 ? 'a' + (char)(rand() % 26) : '\n';
		linebuf_init(&lb, max);
		sink_t r = { STRBUF_INIT, 0, 0 };
		for (size_t i = 0; i < n;) {
			size_t k = 1 + (size_t)(rand() % 80);
			if (k > n - i)
				k = n - i;
			linebuf_feed(&lb, in + i, k, to_sink, &r);
			i += k;
		}
		linebuf_flush(&lb, to_sink, &r);
		/* walk the pieces */
		strbuf_t joined = STRBUF_INIT;
		const char *p = got(&r), *end = p + r.got.len;
		while (p < end) {
			const char *bar = memchr(p, '|', (size_t)(end - p));
			size_t len = (size_t)(bar - p);
			int last = bar + 1 == end;
			if (len == 0 || len > max)
				bad = 1;
			/* not at a line's end: part of a line longer than max
			 * (max bytes, no newline in it), or the stream's end */
			else if (p[len - 1] != '\n' && !last && (len != max || memchr(p, '\n', len)))
				bad = 1;
			else if (last && p[len - 1] != '\n' && memchr(p, '\n', len))
				bad = 1;
			strbuf_add(&joined, p, len);
			p = bar + 1;
		}
		if (joined.len != n || (n && memcmp(joined.buf, in, n)))
			bad = 1;
		if (bad)
			printf("# round %d max %zu n %zu\n", round, max, n);
		strbuf_release(&joined);
		strbuf_release(&r.got);
		linebuf_release(&lb);
	}
	ok(!bad, "2000 random feeds: nothing lost, lines of at most max bytes whole");

	strbuf_release(&s.got);
	return done_testing();
}
