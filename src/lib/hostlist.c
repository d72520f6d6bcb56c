/*
 * hostlist: parse, sort and compress Slurm hostlist expressions.
 *
 * A list is a flat array of hosts. Each host keeps its name plus the split
 * Slurm uses for ranges: a prefix and a numeric suffix of L digits
 * (L == 0: the name does not end in digits, or the digit run is too long to
 * be a number, and the host is printed as is). A host with value v and L
 * digits prints as "%0*llu" of the range width w exactly when
 * L == max(w, ndigits(v)); that one rule decides both whether a host extends
 * a range while compressing ("n[08-10]", "n[8-10]" but not "n[9,010]") and
 * how ranges are expanded while parsing.
 *
 * Everything is linear except sorting (n log n), so a list of ten thousand
 * hosts parses and compresses in well under a millisecond per thousand.
 */
#include "hostlist.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

/* Longest digit run taken as a number: 18 digits always fits 64 bits. */
#define NUM_MAX_DIGITS 18

struct host {
	char *name;
	size_t plen;             /* prefix length: name[0..plen) */
	unsigned char ndig;      /* digits in the numeric suffix, 0 if none */
	unsigned long long num;  /* value of the suffix */
};

struct hostlist {
	struct host *h;
	size_t n, alloc;
};

static int ndigits(unsigned long long v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* Write v zero-padded to width into out (no NUL); returns the length.
 * Hand-rolled because printf dominated the cost of expanding big ranges. */
static size_t fmt_num(char *out, unsigned long long v, int width)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)n < width)
		tmp[n++] = '0';
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static void host_split(struct host *h, size_t len)
{
	size_t i = len;
	while (i > 0 && h->name[i - 1] >= '0' && h->name[i - 1] <= '9')
		i--;
	size_t nd = len - i;
	h->plen = len;
	h->ndig = 0;
	h->num = 0;
	if (nd == 0 || nd > NUM_MAX_DIGITS)
		return;
	h->plen = i;
	h->ndig = (unsigned char)nd;
	for (; i < len; i++)
		h->num = h->num * 10 + (unsigned long long)(h->name[i] - '0');
}

/* Append a host whose name is taken over (not copied). */
static void push_owned(hostlist_t *hl, char *name, size_t len)
{
	hl->h = xgrow(hl->h, sizeof(*hl->h), hl->n + 1, &hl->alloc);
	struct host *h = &hl->h[hl->n++];
	h->name = name;
	host_split(h, len);
}

hostlist_t *hostlist_create_empty(void)
{
	return xcalloc(1, sizeof(hostlist_t));
}

void hostlist_destroy(hostlist_t *hl)
{
	if (!hl)
		return;
	for (size_t i = 0; i < hl->n; i++)
		free(hl->h[i].name);
	free(hl->h);
	free(hl);
}

static void truncate_to(hostlist_t *hl, size_t n)
{
	while (hl->n > n)
		free(hl->h[--hl->n].name);
}

void hostlist_push_host(hostlist_t *hl, const char *name)
{
	size_t len = strlen(name);
	push_owned(hl, xstrndup(name, len), len);
}

/* ---- parsing ---- */

struct range {
	unsigned long long lo, hi;
	int width;               /* digits of lo as written: zero padding */
};

struct group {                   /* one [...] with the literal text before it */
	const char *lit;
	size_t litlen;
	struct range *r;
	size_t nr, ralloc;
	size_t count;            /* hosts in this group */
};

__attribute__((format(printf, 2, 3)))
static int set_err(char **err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		*err = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int parse_num(const char **pp, const char *end, unsigned long long *v, int *width)
{
	const char *p = *pp;
	unsigned long long x = 0;
	int d = 0;
	while (p < end && *p >= '0' && *p <= '9') {
		if (d == NUM_MAX_DIGITS)
			return -1;
		x = x * 10 + (unsigned long long)(*p - '0');
		p++;
		d++;
	}
	if (d == 0)
		return -1;
	*pp = p;
	*v = x;
	*width = d;
	return 0;
}

/* Parse the inside of one bracket, [b, e), into g. */
static int parse_bracket(struct group *g, const char *b, const char *e,
			 const char *expr, char **err)
{
	const char *p = b;
	if (b == e)
		return set_err(err, "empty brackets in '%s'", expr);
	for (;;) {
		const char *item = p;
		struct range r;
		int wh;
		if (parse_num(&p, e, &r.lo, &r.width) < 0)
			goto bad;
		r.hi = r.lo;
		if (p < e && *p == '-') {
			p++;
			if (parse_num(&p, e, &r.hi, &wh) < 0)
				goto bad;
			if (r.hi < r.lo)
				goto bad;
		}
		if (p < e && *p != ',')
			goto bad;
		unsigned long long cnt = r.hi - r.lo + 1;
		if (cnt > HOSTLIST_MAX || g->count + cnt > HOSTLIST_MAX)
			return set_err(err, "too many hosts in '%s' (at most %d)", expr, HOSTLIST_MAX);
		g->count += (size_t)cnt;
		g->r = xgrow(g->r, sizeof(*g->r), g->nr + 1, &g->ralloc);
		g->r[g->nr++] = r;
		if (p == e)
			return 0;
		p++;   /* ',' */
		continue;
bad:
		{
			const char *ie = item;
			while (ie < e && *ie != ',')
				ie++;
			if (ie == item)
				return set_err(err, "empty range in '%s'", expr);
			return set_err(err, "invalid range '%.*s' in '%s'", (int)(ie - item), item, expr);
		}
	}
}

/* One whitespace/comma-free token of an expression, parsed: groups (a
 * literal and a bracket each) and the literal after the last bracket.
 * Its text points into the expression it was parsed from. */
struct token {
	struct group *g;
	size_t ng, galloc;
	const char *tail;
	size_t taillen;
	size_t count;            /* hosts it names, at most HOSTLIST_MAX */
};

static void token_release(struct token *t)
{
	for (size_t i = 0; i < t->ng; i++)
		free(t->g[i].r);
	free(t->g);
	memset(t, 0, sizeof(*t));
}

/* Parse the token [b, e) of expr into t (released on error). */
static int token_parse(struct token *t, const char *b, const char *e, const char *expr, char **err)
{
	const char *p = b, *lit = b;
	memset(t, 0, sizeof(*t));
	t->count = 1;
	while (p < e) {
		if (*p == ']') {
			set_err(err, "unbalanced ']' in '%s'", expr);
			goto bad;
		}
		if (*p != '[') {
			p++;
			continue;
		}
		const char *close = memchr(p + 1, ']', (size_t)(e - p - 1));
		const char *open2 = memchr(p + 1, '[', (size_t)(e - p - 1));
		if (!close || (open2 && open2 < close)) {
			set_err(err, "unbalanced '[' in '%s'", expr);
			goto bad;
		}
		t->g = xgrow(t->g, sizeof(*t->g), t->ng + 1, &t->galloc);
		struct group *cur = &t->g[t->ng++];
		memset(cur, 0, sizeof(*cur));
		cur->lit = lit;
		cur->litlen = (size_t)(p - lit);
		if (parse_bracket(cur, p + 1, close, expr, err) < 0)
			goto bad;
		if (t->count > HOSTLIST_MAX / cur->count) {
			set_err(err, "too many hosts in '%s' (at most %d)", expr, HOSTLIST_MAX);
			goto bad;
		}
		t->count *= cur->count;
		p = close + 1;
		lit = p;
	}
	t->tail = lit;
	t->taillen = (size_t)(e - lit);
	return 0;
bad:
	token_release(t);
	return -1;
}

/* Expand one whitespace/comma-free token [b, e) into hl, which may then
 * hold at most max hosts. */
static int push_token(hostlist_t *hl, const char *b, const char *e, const char *expr, size_t max,
		      char **err)
{
	struct token t;
	if (token_parse(&t, b, e, expr, err) < 0)
		return -1;
	if (hl->n + t.count > max) {
		token_release(&t);
		return set_err(err, "too many hosts in '%s' (at most %zu)", expr, max);
	}
	const struct group *g = t.g;
	size_t ng = t.ng;

	/* Odometer over (range, value) per group; last group fastest. */
	if (ng == 0) {
		push_owned(hl, xstrndup(t.tail, t.taillen), t.taillen);
		token_release(&t);
		return 0;
	}
	size_t *ri = xcalloc(ng, sizeof(size_t));
	unsigned long long *val = xcalloc(ng, sizeof(*val));
	strbuf_t sb = STRBUF_INIT;
	for (size_t i = 0; i < ng; i++)
		val[i] = g[i].r[0].lo;
	hl->h = xgrow(hl->h, sizeof(*hl->h), hl->n + t.count, &hl->alloc);
	for (;;) {
		strbuf_reset(&sb);
		for (size_t i = 0; i < ng; i++) {
			strbuf_add(&sb, g[i].lit, g[i].litlen);
			strbuf_grow(&sb, 24);
			strbuf_setlen(&sb, sb.len + fmt_num(sb.buf + sb.len, val[i], g[i].r[ri[i]].width));
		}
		strbuf_add(&sb, t.tail, t.taillen);
		push_owned(hl, xstrndup(sb.buf, sb.len), sb.len);
		/* advance */
		size_t i = ng;
		while (i-- > 0) {
			if (val[i] < g[i].r[ri[i]].hi) {
				val[i]++;
				break;
			}
			if (ri[i] + 1 < g[i].nr) {
				ri[i]++;
				val[i] = g[i].r[ri[i]].lo;
				break;
			}
			ri[i] = 0;
			val[i] = g[i].r[0].lo;
		}
		if (i == (size_t)-1)
			break;
	}
	strbuf_release(&sb);
	free(ri);
	free(val);
	token_release(&t);
	return 0;
}

/* Call fn on each token [b, e) of expr (separators outside brackets
 * split them); stops at the first that fails. */
static int each_token(const char *expr, int (*fn)(void *arg, const char *b, const char *e),
		      void *arg)
{
	const char *p = expr ? expr : "";
	while (*p) {
		while (*p && is_sep(*p))
			p++;
		if (!*p)
			break;
		const char *b = p;
		int depth = 0;
		while (*p && (depth > 0 || !is_sep(*p))) {
			if (*p == '[')
				depth++;
			else if (*p == ']' && depth > 0)
				depth--;
			p++;
		}
		if (fn(arg, b, p) < 0)
			return -1;
	}
	return 0;
}

struct push_arg {
	hostlist_t *hl;
	const char *expr;
	size_t max;
	char **err;
};

static int push_one(void *arg, const char *b, const char *e)
{
	struct push_arg *a = arg;
	return push_token(a->hl, b, e, a->expr, a->max, a->err);
}

static int push_max(hostlist_t *hl, const char *expr, size_t max, char **err)
{
	size_t n0 = hl->n;
	struct push_arg a = { hl, expr ? expr : "", max, err };
	if (err)
		*err = NULL;
	if (each_token(expr, push_one, &a) < 0) {
		truncate_to(hl, n0);
		return -1;
	}
	return 0;
}

int hostlist_push(hostlist_t *hl, const char *expr, char **err)
{
	return push_max(hl, expr, HOSTLIST_MAX, err);
}

hostlist_t *hostlist_create_max(const char *expr, size_t max, char **err)
{
	hostlist_t *hl = hostlist_create_empty();
	if (push_max(hl, expr, max < HOSTLIST_MAX ? max : HOSTLIST_MAX, err) < 0) {
		hostlist_destroy(hl);
		return NULL;
	}
	return hl;
}

hostlist_t *hostlist_create(const char *expr, char **err)
{
	return hostlist_create_max(expr, HOSTLIST_MAX, err);
}

/* ---- sets: expressions tested without expanding them ---- */

struct hostset {
	char *expr;              /* the tokens point into it */
	struct token *t;
	size_t nt, talloc;
};

struct set_arg {
	hostset_t *hs;
	char **err;
};

static int set_one(void *arg, const char *b, const char *e)
{
	struct set_arg *a = arg;
	hostset_t *hs = a->hs;
	hs->t = xgrow(hs->t, sizeof(*hs->t), hs->nt + 1, &hs->talloc);
	if (token_parse(&hs->t[hs->nt], b, e, hs->expr, a->err) < 0)
		return -1;
	hs->nt++;
	return 0;
}

hostset_t *hostset_create(const char *expr, char **err)
{
	hostset_t *hs = xcalloc(1, sizeof(*hs));
	hs->expr = xstrdup(expr ? expr : "");
	struct set_arg a = { hs, err };
	if (err)
		*err = NULL;
	if (each_token(hs->expr, set_one, &a) < 0) {
		hostset_destroy(hs);
		return NULL;
	}
	return hs;
}

void hostset_destroy(hostset_t *hs)
{
	if (!hs)
		return;
	for (size_t i = 0; i < hs->nt; i++)
		token_release(&hs->t[i]);
	free(hs->t);
	free(hs->expr);
	free(hs);
}

/* Do the n digits at s print a value of g, as expansion prints it (the
 * value zero-padded to its range's width)? */
static int group_has(const struct group *g, const char *s, size_t n)
{
	unsigned long long v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned long long)(s[i] - '0');
	int nd = ndigits(v);
	for (size_t i = 0; i < g->nr; i++) {
		const struct range *r = &g->r[i];
		if (v >= r->lo && v <= r->hi && (size_t)(r->width > nd ? r->width : nd) == n)
			return 1;
	}
	return 0;
}

/* Does t name [s, s+n)? A digit run may split between two brackets
 * ("n[1-20][1-9]"), so this walks the name once per group with the set of
 * positions the groups so far can end at: linear in the name and the
 * ranges, whatever the expression. */
static int token_has(const struct token *t, const char *s, size_t n)
{
	unsigned char small[2 * 128];
	unsigned char *buf = n < 128 ? small : xmalloc(2 * (n + 1));
	unsigned char *cur = buf, *nxt = buf + n + 1;
	memset(cur, 0, n + 1);
	cur[0] = 1;
	int any = 1;
	for (size_t gi = 0; gi < t->ng && any; gi++) {
		const struct group *g = &t->g[gi];
		memset(nxt, 0, n + 1);
		any = 0;
		for (size_t pos = 0; pos <= n; pos++) {
			if (!cur[pos] || n - pos < g->litlen || memcmp(s + pos, g->lit, g->litlen))
				continue;
			size_t p = pos + g->litlen;
			for (size_t d = 1; d <= NUM_MAX_DIGITS && p + d <= n && s[p + d - 1] >= '0' &&
			     s[p + d - 1] <= '9'; d++)
				if (group_has(g, s + p, d))
					nxt[p + d] = any = 1;
		}
		unsigned char *x = cur;
		cur = nxt;
		nxt = x;
	}
	int hit = 0;
	for (size_t pos = 0; any && pos <= n && !hit; pos++)
		hit = cur[pos] && n - pos == t->taillen && !memcmp(s + pos, t->tail, t->taillen);
	if (buf != small)
		free(buf);
	return hit;
}

int hostset_has(const hostset_t *hs, const char *name)
{
	if (!hs || !name)
		return 0;
	size_t n = strlen(name);
	for (size_t i = 0; i < hs->nt; i++)
		if (token_has(&hs->t[i], name, n))
			return 1;
	return 0;
}

/* ---- queries ---- */

size_t hostlist_count(const hostlist_t *hl)
{
	return hl ? hl->n : 0;
}

const char *hostlist_nth(const hostlist_t *hl, size_t i)
{
	return hl && i < hl->n ? hl->h[i].name : NULL;
}

long hostlist_find(const hostlist_t *hl, const char *name)
{
	if (!hl || !name)
		return -1;
	for (size_t i = 0; i < hl->n; i++)
		if (!strcmp(hl->h[i].name, name))
			return (long)i;
	return -1;
}

/* ---- sorting ---- */

/* Natural order of [a, a+an) and [b, b+bn): digit runs compare by value
 * ("rack2n" < "rack10n"), ties on value by run length. */
static int natcmp(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0, j = 0;
	while (i < an && j < bn) {
		int da = a[i] >= '0' && a[i] <= '9', db = b[j] >= '0' && b[j] <= '9';
		if (da && db) {
			size_t si = i, sj = j;
			while (si < an && a[si] == '0')
				si++;
			while (sj < bn && b[sj] == '0')
				sj++;
			size_t ei = si, ej = sj;
			while (ei < an && a[ei] >= '0' && a[ei] <= '9')
				ei++;
			while (ej < bn && b[ej] >= '0' && b[ej] <= '9')
				ej++;
			if (ei - si != ej - sj)
				return ei - si < ej - sj ? -1 : 1;
			int c = memcmp(a + si, b + sj, ei - si);
			if (c)
				return c;
			if (ei - i != ej - j)
				return ei - i < ej - j ? -1 : 1;
			i = ei;
			j = ej;
			continue;
		}
		if (a[i] != b[j])
			return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
		i++;
		j++;
	}
	if (i < an)
		return 1;
	if (j < bn)
		return -1;
	return 0;
}

/* Prefix (natural), hosts without a number first, then digit count, then
 * value. Ordering by digit count before value keeps equal-width hosts
 * together ("n[1-9]" then "n[01-02]") and still sorts "n9" before "n10". */
static int host_cmp(const void *va, const void *vb)
{
	const struct host *a = va, *b = vb;
	int c = natcmp(a->name, a->plen, b->name, b->plen);
	if (c)
		return c;
	if (a->ndig != b->ndig)
		return a->ndig < b->ndig ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return strcmp(a->name, b->name);
}

void hostlist_sort(hostlist_t *hl)
{
	if (hl && hl->n > 1)
		qsort(hl->h, hl->n, sizeof(*hl->h), host_cmp);
}

void hostlist_uniq(hostlist_t *hl)
{
	if (!hl || hl->n < 2)
		return;
	hostlist_sort(hl);
	size_t w = 1;
	for (size_t i = 1; i < hl->n; i++) {
		if (!strcmp(hl->h[i].name, hl->h[w - 1].name))
			free(hl->h[i].name);
		else
			hl->h[w++] = hl->h[i];
	}
	hl->n = w;
}

/* ---- compression ---- */

static int same_prefix(const struct host *a, const struct host *b)
{
	return a->plen == b->plen && !memcmp(a->name, b->name, a->plen);
}

/* Does host h continue the range (.., hi, width w) of a same-prefix host? */
static int extends(const struct host *h, unsigned long long hi, int w)
{
	if (hi == UINT64_MAX || h->num != hi + 1)
		return 0;
	int nd = ndigits(h->num);
	return h->ndig == (nd > w ? nd : w);
}

char *hostlist_ranged_string(const hostlist_t *hl)
{
	strbuf_t sb = STRBUF_INIT;
	size_t i = 0, n = hostlist_count(hl);

	while (i < n) {
		const struct host *first = &hl->h[i];
		if (sb.len)
			strbuf_addch(&sb, ',');
		if (!first->ndig) {
			strbuf_addstr(&sb, first->name);
			i++;
			continue;
		}
		/* the group: following numeric hosts with the same prefix */
		size_t j = i + 1;
		while (j < n && hl->h[j].ndig && same_prefix(&hl->h[j], first))
			j++;
		strbuf_add(&sb, first->name, first->plen);
		if (j - i == 1) {
			strbuf_addstr(&sb, first->name + first->plen);
			i = j;
			continue;
		}
		strbuf_addch(&sb, '[');
		while (i < j) {
			int w = hl->h[i].ndig;
			unsigned long long lo = hl->h[i].num, hi = lo;
			size_t k = i + 1;
			while (k < j && extends(&hl->h[k], hi, w))
				hi = hl->h[k++].num;
			strbuf_grow(&sb, 50);
			size_t l = sb.len + fmt_num(sb.buf + sb.len, lo, w);
			if (hi != lo) {
				sb.buf[l++] = '-';
				l += fmt_num(sb.buf + l, hi, w);
			}
			strbuf_setlen(&sb, l);
			i = k;
			if (i < j)
				strbuf_addch(&sb, ',');
		}
		strbuf_addch(&sb, ']');
	}
	return strbuf_detach(&sb);
}

char *hostlist_compress(const char *const *names, size_t n)
{
	hostlist_t *hl = hostlist_create_empty();
	for (size_t i = 0; i < n; i++)
		hostlist_push_host(hl, names[i]);
	char *s = hostlist_ranged_string(hl);
	hostlist_destroy(hl);
	return s;
}
