/*
 * strbuf: a growable string whose buf is never NULL and always
 * NUL-terminated (as git's strbuf). Embedded: strbuf_init/strbuf_release.
 */
#ifndef SLUICE_STRBUF_H
#define SLUICE_STRBUF_H

#include <stddef.h>
#include <stdarg.h>

typedef struct strbuf {
	char *buf;     /* never NULL; "" after init */
	size_t len;    /* bytes used, excluding the NUL */
	size_t alloc;  /* bytes allocated; 0 while buf points at the shared "" */
} strbuf_t;

#define STRBUF_INIT { (char *)strbuf_empty, 0, 0 }
extern const char strbuf_empty[1];

void strbuf_init(strbuf_t *sb);
void strbuf_release(strbuf_t *sb);
void strbuf_reset(strbuf_t *sb);           /* len = 0, keeps memory */
void strbuf_grow(strbuf_t *sb, size_t extra);
void strbuf_add(strbuf_t *sb, const void *data, size_t n);
void strbuf_addstr(strbuf_t *sb, const char *s);
void strbuf_addch(strbuf_t *sb, char c);
void strbuf_addf(strbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(strbuf_t *sb, const char *fmt, va_list ap);
void strbuf_setlen(strbuf_t *sb, size_t len);
/* Append s padded/truncated to width (left-justified unless right). */
void strbuf_addpad(strbuf_t *sb, const char *s, int width, int right);
char *strbuf_detach(strbuf_t *sb);         /* caller frees; sb re-initialized */

#endif
