/* xalloc: aborting allocators; see xalloc.h. */
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *xgrow(void *p, size_t size, size_t need, size_t *alloc)
{
	if (need <= *alloc)
		return p;
	size_t n = *alloc ? *alloc : 8;
	while (n < need) {
		if (n > ((size_t)-1) / 2 / size)
			oom(need * size);
		n *= 2;
	}
	p = xrealloc(p, n * size);
	*alloc = n;
	return p;
}

char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	/* Most results are short: formatted once into the stack and copied;
	 * only a longer one is formatted a second time into its size. */
	char buf[256];
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, cp);
	va_end(cp);
	if (n < 0)
		n = 0;
	char *p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof(buf))
		memcpy(p, buf, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
