/*
 * intern.c: the controller's refcounted string table (see intern.h).
 *
 * Each string lives in one allocation after a small header (chain link,
 * hash, reference count), so an interned string costs what a strdup'd one
 * did, once per distinct value instead of once per job. Chained hash
 * table, FNV-1a, grown to keep chains short.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/intern.h"
#include "xalloc.h"

typedef struct ient {
	struct ient *next;
	uint32_t hash, refs;
	char s[];
} ient_t;

static ient_t **tab;
static size_t tsize, tcount;

static uint32_t hash_str(const char *s, size_t *len)
{
	uint32_t h = 2166136261u;
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++)
		h = (h ^ *p) * 16777619u;
	*len = (size_t)(p - (const unsigned char *)s);
	return h;
}

static void grow(void)
{
	size_t nsize = tsize ? tsize * 2 : 256;
	ient_t **nt = xcalloc(nsize, sizeof(*nt));
	for (size_t i = 0; i < tsize; i++)
		for (ient_t *e = tab[i], *next; e; e = next) {
			next = e->next;
			e->next = nt[e->hash & (nsize - 1)];
			nt[e->hash & (nsize - 1)] = e;
		}
	free(tab);
	tab = nt;
	tsize = nsize;
}

char *intern_get(const char *s)
{
	if (!s)
		return NULL;
	size_t len;
	uint32_t h = hash_str(s, &len);
	if (tsize)
		for (ient_t *e = tab[h & (tsize - 1)]; e; e = e->next)
			if (e->hash == h && !strcmp(e->s, s)) {
				e->refs++;
				return e->s;
			}
	if (tcount + 1 > tsize)
		grow();
	ient_t *e = xmalloc(sizeof(*e) + len + 1);
	memcpy(e->s, s, len + 1);
	e->hash = h;
	e->refs = 1;
	e->next = tab[h & (tsize - 1)];
	tab[h & (tsize - 1)] = e;
	tcount++;
	return e->s;
}

char *intern_take(char *s)
{
	char *r = intern_get(s);
	free(s);
	return r;
}

void intern_put(const char *s)
{
	if (!s)
		return;
	ient_t *e = (ient_t *)(void *)(s - offsetof(ient_t, s));
	if (--e->refs)
		return;
	for (ient_t **pp = &tab[e->hash & (tsize - 1)]; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			break;
		}
	tcount--;
	free(e);
}

size_t intern_count(void)
{
	return tcount;
}
