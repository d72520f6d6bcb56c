/*
 * array_range.c: job array task id sets (array_range.h).
 */
#include <stdlib.h>
#include <string.h>

#include "array_range.h"
#include "strbuf.h"
#include "xalloc.h"

void array_set_init(array_set_t *set, uint32_t nbits)
{
	set->nbits = nbits;
	set->count = 0;
	set->w = nbits ? xcalloc((nbits + 63) / 64, sizeof(uint64_t)) : NULL;
}

void array_set_free(array_set_t *set)
{
	free(set->w);
	memset(set, 0, sizeof(*set));
}

static void grow(array_set_t *set, uint32_t nbits)
{
	uint32_t ow = (set->nbits + 63) / 64, nw = (nbits + 63) / 64;
	if (nw > ow) {
		set->w = xrealloc(set->w, nw * sizeof(uint64_t));
		memset(set->w + ow, 0, (nw - ow) * sizeof(uint64_t));
	}
	set->nbits = nbits;
}

int array_set_has(const array_set_t *set, uint32_t id)
{
	return id < set->nbits && (set->w[id / 64] >> (id % 64) & 1);
}

void array_set_add(array_set_t *set, uint32_t id)
{
	if (id >= ARRAY_NONE)
		return;
	if (id >= set->nbits)
		grow(set, id + 1);
	if (!array_set_has(set, id)) {
		set->w[id / 64] |= 1ull << (id % 64);
		set->count++;
	}
}

void array_set_del(array_set_t *set, uint32_t id)
{
	if (array_set_has(set, id)) {
		set->w[id / 64] &= ~(1ull << (id % 64));
		set->count--;
	}
}

uint32_t array_set_next(const array_set_t *set, uint32_t from)
{
	if (from >= set->nbits)
		return ARRAY_NONE;
	uint32_t i = from / 64, nw = (set->nbits + 63) / 64;
	uint64_t word = set->w[i] & (~0ull << (from % 64));
	while (!word) {
		if (++i >= nw)
			return ARRAY_NONE;
		word = set->w[i];
	}
	return i * 64 + (uint32_t)__builtin_ctzll(word);
}

uint32_t array_set_last(const array_set_t *set)
{
	for (uint32_t i = (set->nbits + 63) / 64; i-- > 0;)
		if (set->w[i])
			return i * 64 + 63 - (uint32_t)__builtin_clzll(set->w[i]);
	return ARRAY_NONE;
}

/* The first id >= from NOT in the set (nbits if none below it). */
static uint32_t next_clear(const array_set_t *set, uint32_t from)
{
	uint32_t nw = (set->nbits + 63) / 64, i = from / 64;
	if (from >= set->nbits)
		return set->nbits;
	uint64_t word = ~set->w[i] & (~0ull << (from % 64));
	while (!word) {
		if (++i >= nw)
			return set->nbits;
		word = ~set->w[i];
	}
	uint32_t r = i * 64 + (uint32_t)__builtin_ctzll(word);
	return r < set->nbits ? r : set->nbits;
}

char *array_set_fmt(const array_set_t *set)
{
	strbuf_t sb = STRBUF_INIT;
	uint32_t id = array_set_next(set, 0);
	while (id != ARRAY_NONE) {
		uint32_t end = next_clear(set, id) - 1;
		if (sb.len)
			strbuf_addch(&sb, ',');
		if (end > id)
			strbuf_addf(&sb, "%u-%u", id, end);
		else
			strbuf_addf(&sb, "%u", id);
		id = end + 1 < set->nbits ? array_set_next(set, end + 1) : ARRAY_NONE;
	}
	return strbuf_detach(&sb);
}

/* A decimal id at *p below limit (digits only); advances *p. */
static int id_parse(const char **p, uint64_t limit, uint32_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		x = x * 10 + (uint64_t)(*s - '0');
		if (x >= limit)
			return -1;
		s++;
	}
	*v = (uint32_t)x;
	*p = s;
	return 0;
}

int array_spec_parse(const char *spec, uint32_t max_ids, array_set_t *set, uint32_t *throttle)
{
	uint64_t limit = max_ids ? max_ids : ARRAY_NONE;
	uint32_t thr = 0;
	if (!spec || !*spec)
		return -1;
	/* First pass: check and find the largest id; second: fill. */
	for (int pass = 0; pass < 2; pass++) {
		const char *p = spec;
		uint32_t top = 0;
		for (;;) {
			uint32_t lo, hi, step = 1;
			if (id_parse(&p, limit, &lo))
				return -1;
			hi = lo;
			if (*p == '-') {
				p++;
				if (id_parse(&p, limit, &hi) || hi < lo)
					return -1;
				if (*p == ':') {
					p++;
					if (id_parse(&p, ARRAY_NONE, &step) || !step)
						return -1;
				}
			}
			if (pass == 0) {
				if (hi > top)
					top = hi;
			} else {
				for (uint64_t v = lo; v <= hi; v += step)
					array_set_add(set, (uint32_t)v);
			}
			if (*p == ',') {
				p++;
				continue;
			}
			break;
		}
		if (*p == '%') {
			p++;
			/* "%" alone: no throttle (as Slurm accepts it) */
			if (*p && id_parse(&p, ARRAY_NONE, &thr))
				return -1;
		}
		if (*p)
			return -1;
		if (pass == 0)
			array_set_init(set, top + 1);
	}
	*throttle = thr;
	return 0;
}
