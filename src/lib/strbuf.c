/* strbuf: growable strings; see strbuf.h. */
#include "strbuf.h"
#include "xalloc.h"

#include <stdio.h>
#include <string.h>

const char strbuf_empty[1];

void strbuf_init(strbuf_t *sb)
{
	sb->buf = (char *)strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(strbuf_t *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(strbuf_t *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(strbuf_t *sb, size_t len)
{
	if (!sb->alloc)
		return; /* only 0 is possible on the shared empty string */
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_grow(strbuf_t *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(n);
		sb->buf[0] = '\0';
	} else {
		sb->buf = xrealloc(sb->buf, n);
	}
	sb->alloc = n;
}

void strbuf_add(strbuf_t *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(strbuf_t *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(strbuf_t *sb, char c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(strbuf_t *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(strbuf_t *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_addpad(strbuf_t *sb, const char *s, int width, int right)
{
	size_t len = strlen(s);
	if (width <= 0) {
		strbuf_add(sb, s, len);
		return;
	}
	size_t w = (size_t)width;
	if (len >= w) {
		strbuf_add(sb, s, w);
		return;
	}
	strbuf_grow(sb, w);
	if (right) {
		memset(sb->buf + sb->len, ' ', w - len);
		memcpy(sb->buf + sb->len + (w - len), s, len);
	} else {
		memcpy(sb->buf + sb->len, s, len);
		memset(sb->buf + sb->len + len, ' ', w - len);
	}
	sb->len += w;
	sb->buf[sb->len] = '\0';
}

char *strbuf_detach(strbuf_t *sb)
{
	char *p = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb);
	return p;
}
