/*
 * xalloc: allocation that never returns NULL.
 *
 * Every allocation in Sluice goes through these; on out-of-memory they log
 * and abort, so callers never check for NULL (as Redis zmalloc, git xmalloc).
 * xfree() frees and sets the pointer to NULL (as Slurm xfree).
 */
#ifndef SLUICE_XALLOC_H
#define SLUICE_XALLOC_H

#include <stddef.h>
#include <stdarg.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow an array to hold at least 'need' elements of 'size' bytes; *alloc is
 * the current capacity in elements. Doubles to keep appends amortized O(1). */
void *xgrow(void *p, size_t size, size_t need, size_t *alloc);
char *xstrdup(const char *s);           /* xstrdup(NULL) == NULL */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

#define xfree(p) do { free((void *)(p)); (p) = NULL; } while (0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include <stdlib.h>

#endif
