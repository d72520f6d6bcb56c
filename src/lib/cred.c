/*
 * cred: launch credentials for job steps (format in cred.h).
 *
 * The signature is an auth_sign credential over the payload text, hex
 * encoded so the whole credential is one printable string that travels in
 * proto string fields. Verification accepts a MUNGE credential that was
 * already decoded on this host (every node of a step checks the same one;
 * virtual nodes share a munged), and is also bounded by AUTH_TTL from the
 * moment of signing, whatever "expires" says.
 */
#include "cred.h"
#include "hostlist.h"
#include "sha256.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define CRED_MAGIC "sluice-cred 1 "

static int bad_word(const char *s)
{
	for (; s && *s; s++)
		if (isspace((unsigned char)*s))
			return 1;
	return 0;
}

/* The digest's input: each field in a fixed order, numbers as 4 bytes
 * big-endian, strings length-prefixed (0xffffffff for NULL), so no two
 * different requests encode alike. */
static void dg_u32(strbuf_t *sb, uint32_t v)
{
	char b[4] = { (char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v };
	strbuf_add(sb, b, 4);
}

static void dg_str(strbuf_t *sb, const char *s)
{
	if (!s) {
		dg_u32(sb, UINT32_MAX);
		return;
	}
	size_t n = strlen(s);
	dg_u32(sb, (uint32_t)n);
	strbuf_add(sb, s, n);
}

static void dg_strv(strbuf_t *sb, const strv_t *v)
{
	dg_u32(sb, v->n);
	for (uint32_t i = 0; i < v->n; i++)
		dg_str(sb, v->v[i]);
}

void cred_launch_digest(const msg_launch_step_t *m, char out[CRED_DIGEST_HEX + 1])
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_add(&sb, "sluice-launch 2", 16);   /* with its NUL */
	dg_u32(&sb, m->user_id);
	dg_u32(&sb, m->group_id);
	dg_u32(&sb, m->flags);
	dg_u32(&sb, m->stdin_task);
	dg_u32(&sb, m->time_limit);
	dg_strv(&sb, &m->argv);
	dg_strv(&sb, &m->env);
	dg_str(&sb, m->cwd);
	dg_str(&sb, m->multi_prog);
	dg_str(&sb, m->task_prolog);
	dg_str(&sb, m->task_epilog);
	uint8_t d[32];
	digest_sha256(sb.buf, sb.len, d);
	strbuf_release(&sb);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static int digest_ok(const char *s);

static void to_hex(const uint8_t d[32], char out[CRED_DIGEST_HEX + 1])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int cred_launch_key(const auth_t *a, const char *cred, char out[CRED_DIGEST_HEX + 1])
{
	uint8_t k[32];
	if (!cred || auth_key_derive(a, "sluice-step-launch", cred, strlen(cred), k) < 0)
		return -1;
	to_hex(k, out);
	explicit_bzero(k, sizeof(k));
	return 0;
}

static int unhex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int cred_launch_mac(const char *key_hex, const msg_launch_step_t *m,
		    char out[CRED_DIGEST_HEX + 1])
{
	uint8_t k[32];
	if (!key_hex || !digest_ok(key_hex))
		return -1;
	for (int i = 0; i < 32; i++)
		k[i] = (uint8_t)(unhex(key_hex[2 * i]) << 4 | unhex(key_hex[2 * i + 1]));
	char digest[CRED_DIGEST_HEX + 1];
	cred_launch_digest(m, digest);
	strbuf_t sb = STRBUF_INIT;
	strbuf_add(&sb, "sluice-launch-mac 1", 20);   /* with its NUL */
	strbuf_add(&sb, digest, CRED_DIGEST_HEX);
	dg_u32(&sb, m->job_id);
	dg_u32(&sb, m->step_id);
	dg_u32(&sb, m->node_id);
	dg_u32(&sb, m->nnodes);
	dg_u32(&sb, m->first_task);
	dg_u32(&sb, m->ntasks);
	dg_u32(&sb, m->total_tasks);
	dg_str(&sb, m->tasks_per_node);
	dg_str(&sb, m->topo_addr);
	dg_str(&sb, m->topo_pattern);
	dg_u32(&sb, m->cpus_on_node);
	dg_str(&sb, m->job_cpus_per_node);
	dg_str(&sb, m->cpu_bind);
	dg_str(&sb, m->cpu_ids);
	dg_u32(&sb, m->cpus_per_task);
	dg_str(&sb, m->gpu_bind);
	dg_u32(&sb, m->pty_rows);
	dg_u32(&sb, m->pty_cols);
	dg_str(&sb, m->cred);
	uint8_t d[32];
	digest_hmac_sha256(k, sizeof(k), sb.buf, sb.len, d);
	explicit_bzero(k, sizeof(k));
	strbuf_release(&sb);
	to_hex(d, out);
	return 0;
}

int cred_launch_mac_check(const auth_t *a, const msg_launch_step_t *m, const char **why)
{
	char key[CRED_DIGEST_HEX + 1], want[CRED_DIGEST_HEX + 1];
	if (!m->launch_mac || !*m->launch_mac) {
		*why = "launch carries no MAC of the step's launch key (not from the step's srun)";
		return -1;
	}
	if (cred_launch_key(a, m->cred, key) < 0 || cred_launch_mac(key, m, want) < 0) {
		explicit_bzero(key, sizeof(key));
		*why = "this node cannot derive the step's launch key";
		return -1;
	}
	explicit_bzero(key, sizeof(key));
	/* constant time (the length is no secret): a forger learns nothing
	 * from how long the comparison took */
	uint8_t diff = 0;
	if (strlen(m->launch_mac) == CRED_DIGEST_HEX)
		for (size_t i = 0; i < CRED_DIGEST_HEX; i++)
			diff |= (uint8_t)(m->launch_mac[i] ^ want[i]);
	else
		diff = 1;
	if (diff) {
		*why = "launch MAC does not match the step's launch key (not from the step's srun)";
		return -1;
	}
	return 0;
}

char *cred_layout_string(const uint32_t *v, uint32_t n)
{
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t i = 0; i < n;) {
		uint32_t k = i + 1;
		while (k < n && v[k] == v[i])
			k++;
		strbuf_addf(&sb, "%s%" PRIu32, sb.len ? "," : "", v[i]);
		if (k - i > 1)
			strbuf_addf(&sb, "(x%" PRIu32 ")", k - i);
		i = k;
	}
	return strbuf_detach(&sb);
}

int cred_layout_parse(const char *s, uint32_t max, uint32_t **out, uint32_t *n)
{
	*out = NULL;
	*n = 0;
	if (!s || !*s)
		return -1;
	uint32_t *v = NULL, have = 0, cap = 0;
	for (const char *p = s;;) {
		char *end;
		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		unsigned long c = strtoul(p, &end, 10), rep = 1;
		if (errno || c > UINT32_MAX)
			goto bad;
		p = end;
		if (!strncmp(p, "(x", 2)) {
			if (!isdigit((unsigned char)p[2]))
				goto bad;
			rep = strtoul(p + 2, &end, 10);
			if (errno || !rep || *end != ')')
				goto bad;
			p = end + 1;
		}
		if (rep > max - have)
			goto bad;
		if (have + rep > cap) {     /* doubling, never past max */
			uint64_t want = (uint64_t)cap * 2;
			if (want < have + rep)
				want = have + rep;
			cap = (uint32_t)(want > max ? max : want);
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		while (rep--)
			v[have++] = (uint32_t)c;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad;
	}
	*out = v;
	*n = have;
	return 0;
bad:
	free(v);
	return -1;
}

int cred_launch_node_check(const cred_t *c, const char *node, const msg_launch_step_t *m,
			   const char **why)
{
	hostlist_t *hl = c->nodes ? hostlist_create(c->nodes, NULL) : NULL;
	long at = hl && node ? hostlist_find(hl, node) : -1;
	uint32_t nn = hl ? (uint32_t)hostlist_count(hl) : 0;
	hostlist_destroy(hl);
	if (at < 0) {
		*why = "this node is not in the credential";
		return -1;
	}
	uint32_t *cnt = NULL, ncnt = 0;
	if (cred_layout_parse(c->layout, nn, &cnt, &ncnt) < 0 || ncnt != nn) {
		free(cnt);
		*why = "credential has no task layout for its nodes";
		return -1;
	}
	uint64_t first = 0, total = 0;
	for (uint32_t i = 0; i < ncnt; i++) {
		if (i < (uint32_t)at)
			first += cnt[i];
		total += cnt[i];
	}
	uint32_t mine = cnt[at];
	free(cnt);
	if (m->node_id != (uint32_t)at) {
		*why = "launch is for another node of the step";
		return -1;
	}
	if (total != c->ntasks || m->total_tasks != c->ntasks || m->nnodes != nn ||
	    m->first_task != first || m->ntasks != mine) {
		*why = "task layout does not match the credential";
		return -1;
	}
	return 0;
}

void cred_stat_digest(char out[CRED_DIGEST_HEX + 1])
{
	uint8_t d[32];
	digest_sha256("sluice-stat 1", 14, d);    /* with its NUL */
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* A digest as the credential carries it: CRED_DIGEST_HEX lowercase hex. */
static int digest_ok(const char *s)
{
	return s && strlen(s) == CRED_DIGEST_HEX &&
		strspn(s, "0123456789abcdef") == CRED_DIGEST_HEX;
}

char *cred_create(auth_t *a, const cred_t *c, char **err)
{
	if (bad_word(c->user) || bad_word(c->nodes) || (c->alloc && (bad_word(c->alloc) || !*c->alloc)) ||
	    (c->gpus && (bad_word(c->gpus) || !*c->gpus)) ||
	    (c->layout && (bad_word(c->layout) || !*c->layout))) {
		if (err)
			*err = xstrdup("credential user or node list contains white space");
		return NULL;
	}
	if (!digest_ok(c->digest)) {
		if (err)
			*err = xstrdup("no valid launch digest for the credential");
		return NULL;
	}
	strbuf_t sb = STRBUF_INIT, sig = STRBUF_INIT;
	strbuf_addf(&sb, CRED_MAGIC "job=%" PRIu32 " step=%" PRIu32 " uid=%" PRIu32
		    " gid=%" PRIu32 " user=%s nodes=%s tasks=%" PRIu32 " digest=%s%s%s%s%s",
		    c->job_id, c->step_id, c->uid, c->gid, c->user ? c->user : "",
		    c->nodes ? c->nodes : "", c->ntasks, c->digest, c->layout ? " layout=" : "",
		    c->layout ? c->layout : "", c->alloc ? " alloc=" : "", c->alloc ? c->alloc : "");
	if (c->gpus)
		strbuf_addf(&sb, " gpus=%s", c->gpus);
	if (c->penv.n) {
		strbuf_addstr(&sb, " penv=");
		for (uint32_t i = 0; i < c->penv.n; i++) {
			for (const char *q = c->penv.v[i]; *q; q++)
				strbuf_addf(&sb, "%02x", (unsigned char)*q);
			strbuf_addstr(&sb, "00");
		}
	}
	strbuf_addf(&sb, " expires=%" PRId64, c->expires);
	size_t plen = sb.len;
	if (auth_sign(a, sb.buf, plen, &sig, err) < 0) {
		strbuf_release(&sb);
		strbuf_release(&sig);
		return NULL;
	}
	strbuf_addch(&sb, '\n');
	strbuf_grow(&sb, sig.len * 2);
	for (size_t i = 0; i < sig.len; i++)
		strbuf_addf(&sb, "%02x", (unsigned char)sig.buf[i]);
	strbuf_release(&sig);
	return strbuf_detach(&sb);
}

static int hexv(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse "key=<unsigned>" at *p (then a space or the end). */
static int take_num(const char **p, const char *key, uint64_t max, uint64_t *out)
{
	size_t kl = strlen(key);
	if (strncmp(*p, key, kl) || (*p)[kl] != '=')
		return -1;
	const char *s = *p + kl + 1;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || v > max || (*end != ' ' && *end != '\0'))
		return -1;
	*out = v;
	*p = *end ? end + 1 : end;
	return 0;
}

static int take_word(const char **p, const char *key, char **out)
{
	size_t kl = strlen(key);
	if (strncmp(*p, key, kl) || (*p)[kl] != '=')
		return -1;
	const char *s = *p + kl + 1;
	const char *end = strchr(s, ' ');
	if (!end)
		return -1;   /* expires always follows */
	*out = xstrndup(s, (size_t)(end - s));
	*p = end + 1;
	return 0;
}

/* The hex of NUL-ended entries into env; -1 if it is not that. */
static int penv_decode(const char *hex, strv_t *env)
{
	size_t n = strlen(hex);
	if (!n || n % 2)
		return -1;
	strbuf_t cur = STRBUF_INIT;
	for (size_t i = 0; i < n; i += 2) {
		int h = hexv(hex[i]), l = hexv(hex[i + 1]);
		if (h < 0 || l < 0) {
			strbuf_release(&cur);
			return -1;
		}
		char ch = (char)(h << 4 | l);
		if (ch) {
			strbuf_addch(&cur, ch);
			continue;
		}
		if (!cur.len || !strchr(cur.buf, '=')) {
			strbuf_release(&cur);
			return -1;         /* every entry is NAME=value */
		}
		strv_push(env, cur.buf);
		strbuf_setlen(&cur, 0);
	}
	int rest = cur.len != 0;   /* not ended by a NUL */
	strbuf_release(&cur);
	return rest ? -1 : 0;
}

int cred_parse(const char *p, cred_t *c)
{
	uint64_t v;
	memset(c, 0, sizeof(*c));
	if (strncmp(p, CRED_MAGIC, strlen(CRED_MAGIC)))
		return -1;
	p += strlen(CRED_MAGIC);
	if (take_num(&p, "job", UINT32_MAX, &v)) return -1;
	c->job_id = (uint32_t)v;
	if (take_num(&p, "step", UINT32_MAX, &v)) return -1;
	c->step_id = (uint32_t)v;
	if (take_num(&p, "uid", UINT32_MAX, &v)) return -1;
	c->uid = (uint32_t)v;
	if (take_num(&p, "gid", UINT32_MAX, &v)) return -1;
	c->gid = (uint32_t)v;
	if (take_word(&p, "user", &c->user) || take_word(&p, "nodes", &c->nodes)
	    || take_num(&p, "tasks", UINT32_MAX, &v)) {
		cred_release(c);
		return -1;
	}
	c->ntasks = (uint32_t)v;
	if (take_word(&p, "digest", &c->digest) || !digest_ok(c->digest)) {
		cred_release(c);
		return -1;
	}
	if (!strncmp(p, "layout=", 7) && take_word(&p, "layout", &c->layout)) {
		cred_release(c);
		return -1;
	}
	if (!strncmp(p, "alloc=", 6) && take_word(&p, "alloc", &c->alloc)) {
		cred_release(c);
		return -1;
	}
	if (!strncmp(p, "gpus=", 5) && take_word(&p, "gpus", &c->gpus)) {
		cred_release(c);
		return -1;
	}
	if (!strncmp(p, "penv=", 5)) {
		char *hex = NULL;
		if (take_word(&p, "penv", &hex) || penv_decode(hex, &c->penv) < 0) {
			free(hex);
			cred_release(c);
			return -1;
		}
		free(hex);
	}
	if (take_num(&p, "expires", INT64_MAX, &v) || *p) {
		cred_release(c);
		return -1;
	}
	c->expires = (int64_t)v;
	return 0;
}

int cred_verify(auth_t *a, const char *s, uint32_t signer_ok_uid, time_t now,
		cred_t *out, char **err)
{
	const char *why = NULL;
	uint8_t *sig = NULL;
	char *payload = NULL;
	cred_t c;

	memset(out, 0, sizeof(*out));
	const char *nl = s ? strchr(s, '\n') : NULL;
	if (!nl) {
		why = "malformed credential";
		goto fail;
	}
	size_t hl = strlen(nl + 1);
	if (hl == 0 || hl % 2) {
		why = "malformed credential signature";
		goto fail;
	}
	sig = xmalloc(hl / 2);
	for (size_t i = 0; i < hl / 2; i++) {
		int h = hexv(nl[1 + 2 * i]), lo = hexv(nl[2 + 2 * i]);
		if (h < 0 || lo < 0) {
			why = "malformed credential signature";
			goto fail;
		}
		sig[i] = (uint8_t)(h << 4 | lo);
	}
	payload = xstrndup(s, (size_t)(nl - s));
	uint32_t uid, gid;
	char *aerr = NULL;
	if (auth_verify_reusable(a, sig, hl / 2, payload, strlen(payload), &uid, &gid, &aerr) < 0) {
		if (err)
			*err = xasprintf("invalid credential: %s", aerr ? aerr : "bad signature");
		free(aerr);
		free(sig);
		free(payload);
		return -1;
	}
	if (uid != 0 && uid != signer_ok_uid) {
		why = "credential not signed by the controller";
		goto fail;
	}
	if (cred_parse(payload, &c) < 0) {
		why = "malformed credential";
		goto fail;
	}
	if (c.expires < (int64_t)now) {
		cred_release(&c);
		why = "credential expired";
		goto fail;
	}
	free(sig);
	free(payload);
	*out = c;
	return 0;
fail:
	if (err)
		*err = xstrdup(why);
	free(sig);
	free(payload);
	return -1;
}

void cred_release(cred_t *c)
{
	if (!c)
		return;
	xfree(c->user);
	xfree(c->nodes);
	xfree(c->digest);
	xfree(c->layout);
	xfree(c->alloc);
	xfree(c->gpus);
	strv_free(&c->penv);
}
