/*
 * codec: the one generic encoder/decoder for every message, driven by the
 * schema tables in proto_schema.c.
 *
 * Wire format of a body (a record): a sequence of fields, each
 *   key   = varint(tag << 3 | wire type)
 *   value = WT_VARINT: varint (unsigned as is, signed zigzag-encoded)
 *           WT_LEN:    varint length, then that many bytes:
 *             string/bytes: the raw bytes (no NUL)
 *             strv:         varint count, then per string varint len + bytes
 *             u32/i32 array: varint count, then one varint per element
 *             list:         varint count, then per record varint len + the
 *                           record's fields (recursively)
 * Zero numbers, NULL strings and empty arrays are not sent (the decoder
 * leaves them zero); "" is sent and comes back as "". Unknown tags are
 * skipped by wire type, so newer peers can add fields.
 *
 * Record lengths are written as 5-byte padded varints and back-filled, so
 * a list is encoded in one pass with no per-record buffer. The decoder
 * accepts non-minimal varints for that reason.
 *
 * The decoder never reads past the buffer, rejects counts that the
 * remaining bytes could not hold, caps what it allocates at a budget (by
 * default proportional to the input, DECODE_BUDGET_*; daemons pass one
 * proportional to the message type's frame cap), and frees everything it
 * built when it fails. Allocations are charged at what they really cost
 * (codec_alloc_cost: malloc's header and 16-byte rounding, at least 32
 * bytes, plus the pointer array of a strv), so a body of a million
 * one-byte strings is charged ~40 MB, not the 2 MB it occupies on the
 * wire.
 */
#include "proto_schema.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { WT_VARINT = 0, WT_LEN = 1 };

/* Bytes of memory a decode may allocate per input byte (plus a constant):
 * a minimal list record is a few bytes on the wire but a few hundred in
 * memory, so this must be generous, while still refusing a small input
 * that would make the daemon allocate gigabytes. */
#define DECODE_BUDGET_PER_BYTE 128
#define DECODE_BUDGET_BASE (1u << 20)

/* ---- encoding ---- */

/* strbuf_grow is out of line; most appends fit, so test inline first. */
static inline void reserve(strbuf_t *sb, size_t n)
{
	if (sb->len + n + 1 > sb->alloc)
		strbuf_grow(sb, n < 4096 ? 4096 : n);
}

static inline void put_varint(strbuf_t *sb, uint64_t v)
{
	reserve(sb, 10);
	uint8_t *q = (uint8_t *)sb->buf + sb->len;
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	sb->len = (size_t)(q - (uint8_t *)sb->buf);
}

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline void put_key(strbuf_t *sb, uint32_t tag, int wt)
{
	put_varint(sb, ((uint64_t)tag << 3) | (uint64_t)wt);
}

static inline void put_raw(strbuf_t *sb, const void *p, size_t n)
{
	reserve(sb, n);
	if (n)
		memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
}

/* Reserve a 5-byte length slot; returns its offset. */
static size_t len_reserve(strbuf_t *sb)
{
	reserve(sb, 5);
	size_t at = sb->len;
	sb->len += 5;
	return at;
}

static void len_fill(strbuf_t *sb, size_t at)
{
	uint64_t v = sb->len - at - 5;
	uint8_t *q = (uint8_t *)sb->buf + at;
	for (int i = 0; i < 4; i++) {
		q[i] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	q[4] = (uint8_t)(v & 0x7f);   /* frames are < 2^35 bytes */
}

#define AT(rec, off, T) ((T *)((char *)(rec) + (off)))
#define CAT(rec, off, T) ((const T *)((const char *)(rec) + (off)))

static void encode_fields(const proto_schema_t *s, const void *rec, strbuf_t *sb);

static void encode_field(const proto_field_t *f, const void *rec, strbuf_t *sb)
{
	switch (f->type) {
	case FT_U32: {
		uint32_t v = *CAT(rec, f->off, uint32_t);
		if (v) {
			put_key(sb, f->tag, WT_VARINT);
			put_varint(sb, v);
		}
		break;
	}
	case FT_I32: {
		int32_t v = *CAT(rec, f->off, int32_t);
		if (v) {
			put_key(sb, f->tag, WT_VARINT);
			put_varint(sb, zigzag(v));
		}
		break;
	}
	case FT_U64: {
		uint64_t v = *CAT(rec, f->off, uint64_t);
		if (v) {
			put_key(sb, f->tag, WT_VARINT);
			put_varint(sb, v);
		}
		break;
	}
	case FT_I64: {
		int64_t v = *CAT(rec, f->off, int64_t);
		if (v) {
			put_key(sb, f->tag, WT_VARINT);
			put_varint(sb, zigzag(v));
		}
		break;
	}
	case FT_STR: {
		const char *v = *CAT(rec, f->off, char *);
		if (v) {
			size_t n = strlen(v);
			put_key(sb, f->tag, WT_LEN);
			put_varint(sb, n);
			put_raw(sb, v, n);
		}
		break;
	}
	case FT_BYTES: {
		const uint8_t *v = *CAT(rec, f->off, uint8_t *);
		uint32_t n = *CAT(rec, f->cnt_off, uint32_t);
		if (v && n) {
			put_key(sb, f->tag, WT_LEN);
			put_varint(sb, n);
			put_raw(sb, v, n);
		}
		break;
	}
	case FT_STRV: {
		const strv_t *sv = CAT(rec, f->off, strv_t);
		if (!sv->n || !sv->v)
			break;
		size_t total = varint_len(sv->n);
		for (uint32_t i = 0; i < sv->n; i++) {
			size_t n = sv->v[i] ? strlen(sv->v[i]) : 0;
			total += varint_len(n) + n;
		}
		put_key(sb, f->tag, WT_LEN);
		put_varint(sb, total);
		put_varint(sb, sv->n);
		for (uint32_t i = 0; i < sv->n; i++) {
			size_t n = sv->v[i] ? strlen(sv->v[i]) : 0;
			put_varint(sb, n);
			put_raw(sb, sv->v[i], n);
		}
		break;
	}
	case FT_U32ARR:
	case FT_I32ARR: {
		const uint32_t *a = *CAT(rec, f->off, uint32_t *);
		uint32_t n = *CAT(rec, f->cnt_off, uint32_t);
		if (!a || !n)
			break;
		int sign = f->type == FT_I32ARR;
		size_t total = varint_len(n);
		for (uint32_t i = 0; i < n; i++)
			total += varint_len(sign ? zigzag((int32_t)a[i]) : a[i]);
		put_key(sb, f->tag, WT_LEN);
		put_varint(sb, total);
		put_varint(sb, n);
		for (uint32_t i = 0; i < n; i++)
			put_varint(sb, sign ? zigzag((int32_t)a[i]) : a[i]);
		break;
	}
	case FT_LIST: {
		const char *a = *CAT(rec, f->off, char *);
		uint32_t n = *CAT(rec, f->cnt_off, uint32_t);
		if (!a || !n)
			break;
		put_key(sb, f->tag, WT_LEN);
		size_t outer = len_reserve(sb);
		put_varint(sb, n);
		for (uint32_t i = 0; i < n; i++) {
			size_t at = len_reserve(sb);
			encode_fields(f->sub, a + (size_t)i * f->sub->size, sb);
			len_fill(sb, at);
		}
		len_fill(sb, outer);
		break;
	}
	}
}

/* Most fields of a big list's records are unset (squeue's 10,000 jobs):
 * skipping those here, without the call and the type switch's indirect
 * jump, is most of the encoding time saved. */
static inline int field_unset(const proto_field_t *f, const void *rec)
{
	uint8_t t = f->type;
	if (t <= FT_I32)
		return !*CAT(rec, f->off, uint32_t);
	if (t <= FT_I64)
		return !*CAT(rec, f->off, uint64_t);
	if (t == FT_STR)
		return !*CAT(rec, f->off, char *);
	return 0;
}

static void encode_fields(const proto_schema_t *s, const void *rec, strbuf_t *sb)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (!field_unset(&s->fields[i], rec))
			encode_field(&s->fields[i], rec, sb);
}

void codec_encode(const proto_schema_t *s, const void *rec, strbuf_t *out)
{
	encode_fields(s, rec, out);
	strbuf_grow(out, 0);
	out->buf[out->len] = '\0';
}

/* ---- the accounting answer's two forms (proto.h) ---- */

void acct_reply_pack(msg_acct_reply_t *r)
{
	strbuf_t sb = STRBUF_INIT;
	if (r->table)
		strbuf_add(&sb, r->table, r->table_len);
	for (uint32_t i = 0; i < r->cells.n; i++)
		strbuf_add(&sb, r->cells.v[i], strlen(r->cells.v[i]) + 1);
	strv_free(&r->cells);
	free(r->table);
	r->table_len = (uint32_t)sb.len;
	r->table = (uint8_t *)strbuf_detach(&sb);
}

const char **acct_reply_cells(const msg_acct_reply_t *r, uint32_t *n)
{
	*n = 0;
	if (r->cells.n) {
		const char **v = xcalloc(r->cells.n, sizeof(char *));
		for (uint32_t i = 0; i < r->cells.n; i++)
			v[i] = r->cells.v[i];
		*n = r->cells.n;
		return v;
	}
	if (!r->table || !r->table_len)
		return NULL;
	/* every cell ends with a NUL; an unended last one ends at the
	 * decoder's NUL after the data */
	const char *p = (const char *)r->table, *end = p + r->table_len;
	uint32_t cnt = 0;
	for (const char *q = p; q < end; q += strlen(q) + 1)
		cnt++;
	const char **v = xcalloc(cnt, sizeof(char *));
	for (const char *q = p; q < end; q += strlen(q) + 1)
		v[(*n)++] = q;
	return v;
}

/* ---- freeing ---- */

/* strv_t has no capacity field: capacity is implied by n (the next power
 * of two), which holds for every strv built by strv_push or the decoder. */
void strv_push(strv_t *sv, const char *s)
{
	uint32_t n = sv->n;
	if ((n & (n - 1)) == 0 || !sv->v)
		sv->v = xrealloc(sv->v, sizeof(char *) * (n ? 2 * (size_t)n : 1));
	sv->v[n] = xstrdup(s ? s : "");
	sv->n = n + 1;
}

void strv_free(strv_t *sv)
{
	if (!sv)
		return;
	for (uint32_t i = 0; i < sv->n && sv->v; i++)
		free(sv->v[i]);
	xfree(sv->v);
	sv->n = 0;
}

static void free_field(const proto_field_t *f, void *rec)
{
	switch (f->type) {
	case FT_STR:
	case FT_BYTES:
		xfree(*AT(rec, f->off, char *));
		if (f->type == FT_BYTES)
			*AT(rec, f->cnt_off, uint32_t) = 0;
		break;
	case FT_STRV:
		strv_free(AT(rec, f->off, strv_t));
		break;
	case FT_U32ARR:
	case FT_I32ARR:
		xfree(*AT(rec, f->off, void *));
		*AT(rec, f->cnt_off, uint32_t) = 0;
		break;
	case FT_LIST: {
		char *a = *AT(rec, f->off, char *);
		uint32_t n = *AT(rec, f->cnt_off, uint32_t);
		if (a)
			for (uint32_t i = 0; i < n; i++)
				codec_free(f->sub, a + (size_t)i * f->sub->size);
		free(a);
		*AT(rec, f->off, char *) = NULL;
		*AT(rec, f->cnt_off, uint32_t) = 0;
		break;
	}
	default:
		break;
	}
}

void codec_free(const proto_schema_t *s, void *rec)
{
	if (!rec)
		return;
	for (size_t i = 0; i < s->nfields; i++)
		free_field(&s->fields[i], rec);
}

/* ---- decoding ---- */

typedef struct dctx {
	size_t budget;           /* bytes we may still allocate */
	char **err;
	int failed;
} dctx_t;

__attribute__((format(printf, 4, 5)))
static int fail(dctx_t *d, const proto_schema_t *s, const proto_field_t *f, const char *fmt, ...)
{
	if (!d->failed && d->err) {
		va_list ap;
		va_start(ap, fmt);
		char *m = xvasprintf(fmt, ap);
		va_end(ap);
		*d->err = xasprintf("malformed %s%s%s: %s", s->name, f ? "." : "",
				    f ? f->name : "", m);
		free(m);
	}
	d->failed = 1;
	return -1;
}

static inline int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;
		if (shift == 63 && b > 1)
			return -1;   /* overflows 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* n bytes (known to hold no NUL) as a string */
static inline char *dupn(const uint8_t *p, size_t n)
{
	char *s = xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

size_t codec_alloc_cost(size_t n)
{
	/* glibc: n + 8 bytes of header rounded up to 16, at least 32 */
	size_t c = n > SIZE_MAX - 32 ? SIZE_MAX : (n + 8 + 15) & ~(size_t)15;
	return c < 32 ? 32 : c;
}

static int charge(dctx_t *d, size_t n)
{
	n = codec_alloc_cost(n);
	if (n > d->budget)
		return -1;
	d->budget -= n;
	return 0;
}

static int decode_fields(const proto_schema_t *s, void *rec, const uint8_t *p,
			 const uint8_t *end, dctx_t *d);

/* Decode a length-delimited value [p, end) into field f. */
static int decode_len(const proto_schema_t *s, const proto_field_t *f, void *rec,
		      const uint8_t *p, const uint8_t *end, dctx_t *d)
{
	size_t n = (size_t)(end - p);
	uint64_t cnt;

	switch (f->type) {
	case FT_STR: {
		if (memchr(p, '\0', n))
			return fail(d, s, f, "string contains a NUL byte");
		if (charge(d, n + 1))
			return fail(d, s, f, "decoded message too large");
		char **dst = AT(rec, f->off, char *);
		free(*dst);
		*dst = dupn(p, n);
		return 0;
	}
	case FT_BYTES: {
		if (n > UINT32_MAX)
			return fail(d, s, f, "too long");
		if (charge(d, n + 1))
			return fail(d, s, f, "decoded message too large");
		uint8_t **dst = AT(rec, f->off, uint8_t *);
		free(*dst);
		*dst = xmalloc(n + 1);
		memcpy(*dst, p, n);
		(*dst)[n] = 0;   /* convenience; not counted in len */
		*AT(rec, f->cnt_off, uint32_t) = (uint32_t)n;
		return 0;
	}
	case FT_STRV: {
		strv_t *sv = AT(rec, f->off, strv_t);
		strv_free(sv);
		if (get_varint(&p, end, &cnt))
			return fail(d, s, f, "bad count");
		/* every string takes at least its length byte */
		if (cnt > (uint64_t)(end - p) || cnt > UINT32_MAX)
			return fail(d, s, f, "count %llu exceeds the data",
				    (unsigned long long)cnt);
		if (!cnt)
			return 0;
		/* capacity a power of two, as strv_push expects */
		size_t cap = 1;
		while (cap < cnt)
			cap *= 2;
		if (charge(d, cap * sizeof(char *)))
			return fail(d, s, f, "decoded message too large");
		sv->v = xcalloc(cap, sizeof(char *));
		sv->n = (uint32_t)cnt;
		for (uint64_t i = 0; i < cnt; i++) {
			uint64_t l;
			if (get_varint(&p, end, &l) || l > (uint64_t)(end - p))
				return fail(d, s, f, "truncated string %llu",
					    (unsigned long long)i);
			if (memchr(p, '\0', l))
				return fail(d, s, f, "string contains a NUL byte");
			if (charge(d, l + 1))
				return fail(d, s, f, "decoded message too large");
			sv->v[i] = dupn(p, l);
			p += l;
		}
		if (p != end)
			return fail(d, s, f, "trailing bytes");
		return 0;
	}
	case FT_U32ARR:
	case FT_I32ARR: {
		uint32_t **dst = AT(rec, f->off, uint32_t *);
		uint32_t *cntp = AT(rec, f->cnt_off, uint32_t);
		xfree(*dst);
		*cntp = 0;
		if (get_varint(&p, end, &cnt))
			return fail(d, s, f, "bad count");
		if (cnt > (uint64_t)(end - p))
			return fail(d, s, f, "count %llu exceeds the data",
				    (unsigned long long)cnt);
		if (!cnt)
			return 0;
		if (charge(d, cnt * sizeof(uint32_t)))
			return fail(d, s, f, "decoded message too large");
		uint32_t *a = xmalloc(cnt * sizeof(uint32_t));
		*dst = a;
		*cntp = (uint32_t)cnt;
		for (uint64_t i = 0; i < cnt; i++) {
			uint64_t v;
			if (get_varint(&p, end, &v))
				return fail(d, s, f, "truncated element %llu",
					    (unsigned long long)i);
			if (f->type == FT_I32ARR) {
				int64_t sv = unzigzag(v);
				if (sv < INT32_MIN || sv > INT32_MAX)
					return fail(d, s, f, "value out of range");
				a[i] = (uint32_t)(int32_t)sv;
			} else {
				if (v > UINT32_MAX)
					return fail(d, s, f, "value out of range");
				a[i] = (uint32_t)v;
			}
		}
		if (p != end)
			return fail(d, s, f, "trailing bytes");
		return 0;
	}
	case FT_LIST: {
		const proto_schema_t *sub = f->sub;
		char **dst = AT(rec, f->off, char *);
		uint32_t *cntp = AT(rec, f->cnt_off, uint32_t);
		free_field(f, rec);
		if (get_varint(&p, end, &cnt))
			return fail(d, s, f, "bad count");
		/* every record takes at least its length byte */
		if (cnt > (uint64_t)(end - p) || cnt > UINT32_MAX)
			return fail(d, s, f, "count %llu exceeds the data",
				    (unsigned long long)cnt);
		if (!cnt)
			return 0;
		if (charge(d, cnt * sub->size))
			return fail(d, s, f, "decoded message too large");
		/* Zeroed up front and counted, so a failure part-way frees
		 * exactly what was built. */
		char *a = xcalloc(cnt, sub->size);
		*dst = a;
		*cntp = (uint32_t)cnt;
		for (uint64_t i = 0; i < cnt; i++) {
			uint64_t l;
			if (get_varint(&p, end, &l) || l > (uint64_t)(end - p))
				return fail(d, s, f, "truncated record %llu",
					    (unsigned long long)i);
			if (decode_fields(sub, a + i * sub->size, p, p + l, d))
				return -1;
			p += l;
		}
		if (p != end)
			return fail(d, s, f, "trailing bytes");
		return 0;
	}
	default:
		return fail(d, s, f, "not a length-delimited field");
	}
}

static const proto_field_t *find_field(const proto_schema_t *s, uint32_t tag, size_t *hint)
{
	/* Schemas number their fields 1, 2, 3...: tag N is usually entry
	 * N - 1 (the scan below walks past every unset field otherwise). */
	if (tag - 1 < s->nfields && s->fields[tag - 1].tag == tag) {
		*hint = tag;
		return &s->fields[tag - 1];
	}
	/* Fields arrive in schema order from our encoder: try the next one. */
	for (size_t i = *hint; i < s->nfields; i++)
		if (s->fields[i].tag == tag) {
			*hint = i + 1;
			return &s->fields[i];
		}
	for (size_t i = 0; i < *hint && i < s->nfields; i++)
		if (s->fields[i].tag == tag) {
			*hint = i + 1;
			return &s->fields[i];
		}
	return NULL;
}

static int decode_fields(const proto_schema_t *s, void *rec, const uint8_t *p,
			 const uint8_t *end, dctx_t *d)
{
	size_t hint = 0;
	while (p < end) {
		uint64_t key, v;
		if (get_varint(&p, end, &key))
			return fail(d, s, NULL, "bad field key");
		uint64_t tag64 = key >> 3;
		int wt = (int)(key & 7);
		if (tag64 == 0 || tag64 > UINT32_MAX)
			return fail(d, s, NULL, "bad field tag %llu", (unsigned long long)tag64);
		const proto_field_t *f = find_field(s, (uint32_t)tag64, &hint);
		if (wt == WT_VARINT) {
			if (get_varint(&p, end, &v))
				return fail(d, s, f, "bad varint");
			if (!f)
				continue;   /* unknown field from a newer peer */
			switch (f->type) {
			case FT_U32:
				if (v > UINT32_MAX)
					return fail(d, s, f, "value out of range");
				*AT(rec, f->off, uint32_t) = (uint32_t)v;
				break;
			case FT_I32: {
				int64_t sv = unzigzag(v);
				if (sv < INT32_MIN || sv > INT32_MAX)
					return fail(d, s, f, "value out of range");
				*AT(rec, f->off, int32_t) = (int32_t)sv;
				break;
			}
			case FT_U64:
				*AT(rec, f->off, uint64_t) = v;
				break;
			case FT_I64:
				*AT(rec, f->off, int64_t) = unzigzag(v);
				break;
			default:
				return fail(d, s, f, "wrong wire type (number)");
			}
		} else if (wt == WT_LEN) {
			if (get_varint(&p, end, &v) || v > (uint64_t)(end - p))
				return fail(d, s, f, "truncated value");
			const uint8_t *vend = p + v;
			if (f) {
				if (f->type <= FT_I64)
					return fail(d, s, f, "wrong wire type (bytes)");
				if (decode_len(s, f, rec, p, vend, d))
					return -1;
			}
			p = vend;
		} else {
			return fail(d, s, f, "unknown wire type %d", wt);
		}
	}
	return 0;
}

int codec_decode(const proto_schema_t *s, void *rec, const void *buf, size_t len, char **err)
{
	size_t budget = DECODE_BUDGET_BASE;
	budget += len > SIZE_MAX / DECODE_BUDGET_PER_BYTE / 2 ? SIZE_MAX / 2
		: len * DECODE_BUDGET_PER_BYTE;
	return codec_decode_budget(s, rec, buf, len, budget, err);
}

int codec_decode_budget(const proto_schema_t *s, void *rec, const void *buf, size_t len,
			size_t budget, char **err)
{
	if (err)
		*err = NULL;
	memset(rec, 0, s->size);
	dctx_t d = { .err = err, .budget = budget };
	const uint8_t *p = buf ? buf : (const uint8_t *)"";
	if (decode_fields(s, rec, p, p + (buf ? len : 0), &d)) {
		codec_free(s, rec);
		memset(rec, 0, s->size);
		return -1;
	}
	return 0;
}

/* ---- proto.h API ---- */

void proto_encode(enum msg_type type, const void *msg, strbuf_t *out)
{
	const proto_schema_t *s = proto_schema(type);
	if (!s || !msg)
		return;
	codec_encode(s, msg, out);
}

int proto_decode(enum msg_type type, void *msg, const void *buf, size_t len, char **err)
{
	const proto_schema_t *s = proto_schema(type);
	if (!s) {
		if (err)
			*err = xasprintf("unknown message type %d", (int)type);
		return -1;
	}
	return codec_decode(s, msg, buf, len, err);
}

int proto_decode_budget(enum msg_type type, void *msg, const void *buf, size_t len,
			size_t budget, char **err)
{
	const proto_schema_t *s = proto_schema(type);
	if (!s) {
		if (err)
			*err = xasprintf("unknown message type %d", (int)type);
		return -1;
	}
	return codec_decode_budget(s, msg, buf, len, budget, err);
}

void proto_free(enum msg_type type, void *msg)
{
	const proto_schema_t *s = proto_schema(type);
	if (s && msg)
		codec_free(s, msg);
}

size_t proto_size(enum msg_type type)
{
	const proto_schema_t *s = proto_schema(type);
	return s ? s->size : 0;
}

const char *proto_name(enum msg_type type)
{
	const char *n = proto_schema_name(type);
	return n ? n : "MSG_UNKNOWN";
}
