/*
 * nccl_log: NCCL's network lines and the port-counter verdict (see
 * nccl_log.h). No allocation: the scanner is one fixed struct. Output
 * without NCCL's tag is passed over with one memmem per piece fed (the
 * lines before a tag need no look of their own); a tagged line costs a
 * memchr and a few memcmp.
 */
#include "nccl_log.h"

#include <string.h>

static const char info_tag[] = "NCCL INFO ";
static const char using_net[] = "Using network ";
static const char via_net[] = " via NET/";

static int has_prefix(const char *s, size_t n, const char *p)
{
	size_t pl = strlen(p);
	return n >= pl && !memcmp(s, p, pl);
}

/* Classify a network name: "Socket" is the socket transport, anything
 * else that NCCL loaded is a fabric. */
static enum nccl_verdict classify(const char *s, size_t n, char name[NCCL_NAME_MAX])
{
	if (!n)
		return NCCL_NONE;
	size_t k = n < NCCL_NAME_MAX - 1 ? n : NCCL_NAME_MAX - 1;
	for (size_t i = 0; i < k; i++)   /* keep it one printable token */
		name[i] = (s[i] > ' ' && s[i] < 0x7f) ? s[i] : '_';
	name[k] = '\0';
	return (n == 6 && !memcmp(s, "Socket", 6)) ? NCCL_SOCKET : NCCL_FABRIC;
}

enum nccl_verdict nccl_line_parse(const char *line, size_t len, char name[NCCL_NAME_MAX])
{
	name[0] = '\0';
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	const char *tag = memmem(line, len, info_tag, sizeof(info_tag) - 1);
	if (!tag)
		return NCCL_NONE;
	const char *m = tag + sizeof(info_tag) - 1;
	size_t n = len - (size_t)(m - line);
	if (has_prefix(m, n, using_net)) {
		/* "Using network AWS Libfabric": the rest of the line */
		const char *v = m + sizeof(using_net) - 1;
		return classify(v, n - (sizeof(using_net) - 1), name);
	}
	if (!has_prefix(m, n, "Channel "))
		return NCCL_NONE;
	/* "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA" */
	const char *v = memmem(m, n, via_net, sizeof(via_net) - 1);
	if (!v)
		return NCCL_NONE;
	v += sizeof(via_net) - 1;
	size_t rest = len - (size_t)(v - line), k = 0;
	while (k < rest && v[k] != '/' && v[k] != ' ')
		k++;
	if (k == rest)      /* NET/NAME must be followed by /DEV */
		return NCCL_NONE;
	return classify(v, k, name);
}

void nccl_scan_init(nccl_scan_t *s)
{
	memset(s, 0, sizeof(*s));
}

static int scan_line(nccl_scan_t *s, const char *line, size_t len)
{
	char name[NCCL_NAME_MAX];
	if (memmem(line, len, info_tag, sizeof(info_tag) - 1))
		s->tagged++;
	enum nccl_verdict v = nccl_line_parse(line, len, name);
	if (v <= s->verdict)
		return 0;
	s->verdict = v;
	memcpy(s->name, name, sizeof(s->name));
	/* the message from "NCCL INFO " on, for the evidence */
	const char *tag = memmem(line, len, info_tag, sizeof(info_tag) - 1);
	size_t off = tag ? (size_t)(tag - line) : 0, n = len - off;
	while (n && (line[off + n - 1] == '\n' || line[off + n - 1] == '\r'))
		n--;
	if (n > sizeof(s->line) - 1)
		n = sizeof(s->line) - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[off + i];
		s->line[i] = c >= ' ' && c < 0x7f ? (char)c : '?';
	}
	s->line[n] = '\0';
	return 1;
}

int nccl_scan_feed(nccl_scan_t *s, const char *buf, size_t len)
{
	int changed = 0;
	while (len) {
		if (!s->ncarry && !s->skipping) {
			/* Whole lines before the first tag cannot decide: skip
			 * them with one search (most of a job's output). */
			const char *tag = memmem(buf, len, info_tag, sizeof(info_tag) - 1);
			const char *nl = memrchr(buf, '\n', tag ? (size_t)(tag - buf) : len);
			if (nl) {
				len -= (size_t)(nl + 1 - buf);
				buf = nl + 1;
				if (!len)
					break;
			}
		}
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) + 1 : len;
		if (s->skipping) {
			if (nl)
				s->skipping = 0;
		} else if (!s->ncarry && nl && take <= sizeof(s->carry)) {
			changed |= scan_line(s, buf, take);
		} else if (s->ncarry + take > sizeof(s->carry)) {
			/* over-long: drop it up to its end, however it
			 * arrives (so the pieces never change the verdict) */
			s->ncarry = 0;
			s->skipping = !nl;
		} else {
			memcpy(s->carry + s->ncarry, buf, take);
			s->ncarry += take;
			if (nl) {
				changed |= scan_line(s, s->carry, s->ncarry);
				s->ncarry = 0;
			}
		}
		buf += take;
		len -= take;
	}
	return changed;
}

int nccl_scan_finish(nccl_scan_t *s)
{
	int changed = 0;
	if (s->ncarry && !s->skipping)
		changed = scan_line(s, s->carry, s->ncarry);
	s->ncarry = 0;
	s->skipping = 0;
	return changed;
}

enum nccl_verdict nccl_counters_verdict(uint64_t bytes, double secs, double window,
					double min_rate)
{
	if (!(secs > 0) || secs < window)
		return NCCL_NONE;
	return (double)bytes / secs < min_rate ? NCCL_SOCKET : NCCL_FABRIC;
}

const char *nccl_source_name(uint32_t src)
{
	switch (src) {
	case NCCL_SRC_LOG: return "log";
	case NCCL_SRC_COUNTERS: return "counters";
	default: return "none";
	}
}
