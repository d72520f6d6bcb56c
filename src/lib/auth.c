/*
 * auth: credentials for frames and launch credentials (see auth.h).
 *
 * auth/slurm (shared key): the credential is 97 bytes,
 *   u8 version (2) | u32 uid | u32 gid | i64 timestamp | 16-byte nonce |
 *   SHA-256(payload) | mac
 * all big-endian, with mac = HMAC-SHA256(key, everything before it). The
 * digest travels in the credential so that a daemon can check the
 * credential as soon as it has arrived, before it reads (and buffers) the
 * payload (auth_verify_cred), and compare the payload's digest after. Any key holder may vouch for any uid (key holders are
 * root, SlurmUser and the daemons), as with Slurm's auth/slurm. The nonce
 * makes two credentials for the same payload in the same second differ,
 * and auth_verify remembers each accepted nonce until its credential
 * expires (AUTH_TTL), so a captured frame cannot be replayed: the cache is
 * an open-addressing set of {nonce, timestamp} (20 bytes a slot, kept at
 * most half full), rebuilt without the expired entries whenever it fills,
 * so its size follows the request rate (~300k entries, ~12 MiB at 1,000
 * requests/s). auth_verify_reusable (launch credentials, checked by every
 * node of a step) neither consults nor fills it. The timestamp is in
 * microseconds (version 2; version 1 had seconds), so that
 * auth_set_not_before can tell a credential signed just before a daemon
 * started (a capture an attacker replays after a restart, when the
 * in-memory cache is empty) from one signed just after.
 *
 * auth/munge: the MUNGE credential's payload is SHA-256(payload); munged
 * supplies uid/gid, TTL and replay detection (its cache outlives our
 * restarts as long as munged runs); the not-before rule uses the
 * credential's encode time, whole seconds: one encoded in the second of
 * the start is let through to munged's own replay check. Encoding and decoding use
 * separate MUNGE contexts: munge_decode() overwrites its context with the
 * decoded credential's settings (TTL, restrictions, or garbage when the
 * credential is invalid), which must never leak into our own credentials.
 *
 * Key file: 64 hex digits (what auth_keygen writes); a file that is not
 * hex is used as raw key bytes (as a key made by other tools would be).
 * Like munged with its key, a key file that is not a regular file, grants
 * any access to group or others, or belongs to someone other than this
 * process's user, root or SlurmUser is refused (whoever can read it can
 * sign as root; whoever can write it can replace it).
 */
#include "auth.h"
#include "sha256.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <munge.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HMAC_CRED_VERSION 2
#define HMAC_CRED_LEN (1 + 4 + 4 + 8 + 16 + 32 + 32)
#define HMAC_SIGNED_LEN (HMAC_CRED_LEN - 32)
#define KEY_MAX 4096
#define KEY_MIN 16

/* A replay-cache slot: ts 0 marks it free (no valid credential has ts 0). */
struct seen {
	uint8_t nonce[16];
	uint32_t ts;
};

struct auth {
	enum auth_kind kind;
	int can_sign;
	uint8_t *key;
	size_t keylen;
	munge_ctx_t ctx;	/* munge_encode only */
	munge_ctx_t dctx;	/* munge_decode only (see the top comment) */
	struct seen *seen;	/* replay cache (auth/slurm), power-of-two slots */
	size_t seen_cap, seen_n;
	int64_t not_before_us;	/* auth_set_not_before; 0 none */
};

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void auth_set_not_before(auth_t *a, int64_t usec)
{
	if (a)
		a->not_before_us = usec ? usec : now_us();
}

static char *info_get(const char *info, const char *name)
{
	if (!info)
		return NULL;
	size_t nl = strlen(name);
	const char *p = info;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > nl && !strncmp(p, name, nl) && p[nl] == '=')
			return xstrndup(p + nl + 1, len - nl - 1);
		p += len + (end ? 1 : 0);
	}
	return NULL;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* uid of SlurmUser, or 0 (root, or unknown) */
static uid_t slurm_user_uid(const conf_t *conf)
{
	if (!conf || !conf->slurm_user)
		return 0;
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwnam_r(conf->slurm_user, &pw, buf, sizeof(buf), &res) == 0 && res)
		return res->pw_uid;
	return 0;
}

/* 0 if fd (the key file at path) is safe to use, else -1 with *err. */
static int key_check(int fd, const char *path, const conf_t *conf, char **err)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		*err = xasprintf("unable to stat key '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = xasprintf("key '%s' is not a regular file", path);
		return -1;
	}
	/* SlurmUser is looked up only when it matters: every command reads
	 * the key, and a passwd lookup (NSS) costs more than the rest */
	if (st.st_uid != geteuid() && st.st_uid != 0 && st.st_uid != slurm_user_uid(conf)) {
		*err = xasprintf("key '%s' is owned by uid %u, not by this user, root or SlurmUser "
				 "(fix: chown it to SlurmUser or root)", path, (unsigned)st.st_uid);
		return -1;
	}
	if (st.st_mode & 077) {
		*err = xasprintf("key '%s' is accessible by group or others (mode %04o): "
				 "anyone who can read it can sign as root (fix: chmod 600 %s)",
				 path, (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

/* 0 ok; 1 cannot read (permission); -1 error (*err). */
static int key_load(auth_t *a, const char *path, const conf_t *conf, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM)
			return 1;
		*err = xasprintf("unable to read key '%s': %s", path, strerror(errno));
		return -1;
	}
	if (key_check(fd, path, conf, err) < 0) {
		close(fd);
		return -1;
	}
	uint8_t *buf = xmalloc(KEY_MAX + 1);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, KEY_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*err = xasprintf("unable to read key '%s': %s", path, strerror(errno));
			close(fd);
			free(buf);
			return -1;
		}
		if (n == 0 || (len += (size_t)n) > KEY_MAX)
			break;
	}
	close(fd);
	if (len > KEY_MAX) {
		*err = xasprintf("key '%s' is larger than %d bytes", path, KEY_MAX);
		free(buf);
		return -1;
	}
	/* hex text (trailing whitespace allowed)? */
	size_t t = len;
	while (t && (buf[t - 1] == '\n' || buf[t - 1] == '\r' || buf[t - 1] == ' ' || buf[t - 1] == '\t'))
		t--;
	int hex = t >= 2 * KEY_MIN && t % 2 == 0;
	for (size_t i = 0; hex && i < t; i++)
		if (hexval(buf[i]) < 0)
			hex = 0;
	if (hex) {
		for (size_t i = 0; i < t / 2; i++)
			buf[i] = (uint8_t)(hexval(buf[2 * i]) << 4 | hexval(buf[2 * i + 1]));
		len = t / 2;
	}
	if (len < KEY_MIN) {
		*err = xasprintf("key '%s' is too short (%zu bytes, need %d)", path, len, KEY_MIN);
		explicit_bzero(buf, KEY_MAX + 1);
		free(buf);
		return -1;
	}
	a->key = buf;
	a->keylen = len;
	return 0;
}

char *auth_key_path(const conf_t *conf)
{
	const char *type = conf && conf->auth_type ? conf->auth_type : "auth/munge";
	if (strcmp(type, "auth/slurm"))
		return NULL;
	char *path = info_get(conf ? conf->auth_info : NULL, "key");
	if (!path)
		path = xasprintf("%s/slurm.key", conf && conf->dir ? conf->dir : ".");
	return path;
}

auth_t *auth_create(const conf_t *conf, char **err)
{
	const char *type = conf && conf->auth_type ? conf->auth_type : "auth/munge";
	const char *ainfo = conf ? conf->auth_info : NULL;
	char *e = NULL;
	auth_t *a = xcalloc(1, sizeof(*a));

	if (!strcmp(type, "auth/slurm")) {
		a->kind = AUTH_HMAC;
		char *path = auth_key_path(conf);
		int r = key_load(a, path, conf, &e);
		free(path);
		if (r < 0)
			goto fail;
		a->can_sign = r == 0;
		return a;
	}
	if (!strcmp(type, "auth/munge")) {
		a->kind = AUTH_MUNGE;
		a->ctx = munge_ctx_create();
		if (!a->ctx) {
			e = xstrdup("unable to create a MUNGE context");
			goto fail;
		}
		char *sock = info_get(ainfo, "socket");
		if (sock && munge_ctx_set(a->ctx, MUNGE_OPT_SOCKET, sock) != EMUNGE_SUCCESS) {
			e = xasprintf("unable to set MUNGE socket '%s': %s", sock,
				      munge_ctx_strerror(a->ctx));
			free(sock);
			goto fail;
		}
		a->dctx = munge_ctx_copy(a->ctx);
		if (!a->dctx) {
			e = xstrdup("unable to create a MUNGE context");
			free(sock);
			goto fail;
		}
		free(sock);
		char *path = NULL;
		struct stat st;
		if (munge_ctx_get(a->ctx, MUNGE_OPT_SOCKET, &path) == EMUNGE_SUCCESS && path
		    && stat(path, &st) < 0) {
			e = xasprintf("munged socket '%s' not found (is munged running?)", path);
			goto fail;
		}
		a->can_sign = 1;
		return a;
	}
	e = xasprintf("unsupported AuthType '%s' (use auth/munge or auth/slurm)", type);
fail:
	if (err)
		*err = e;
	else
		free(e);
	auth_destroy(a);
	return NULL;
}

void auth_destroy(auth_t *a)
{
	if (!a)
		return;
	if (a->key) {
		explicit_bzero(a->key, a->keylen);
		free(a->key);
	}
	if (a->ctx)
		munge_ctx_destroy(a->ctx);
	if (a->dctx)
		munge_ctx_destroy(a->dctx);
	free(a->seen);
	free(a);
}

int auth_can_sign(const auth_t *a)
{
	return a && a->can_sign;
}

enum auth_kind auth_kind(const auth_t *a)
{
	return a ? a->kind : AUTH_NONE;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* constant-time comparison, so a forger learns nothing from timing */
static int ct_memcmp(const void *x, const void *y, size_t n)
{
	const volatile uint8_t *p = x, *q = y;
	uint8_t d = 0;
	for (size_t i = 0; i < n; i++)
		d |= p[i] ^ q[i];
	return d != 0;
}

/* mac over the credential's first HMAC_SIGNED_LEN bytes (digest included) */
static void hmac_mac(const auth_t *a, const uint8_t *c, uint8_t *mac)
{
	digest_hmac_sha256(a->key, a->keylen, c, HMAC_SIGNED_LEN, mac);
}

int auth_key_derive(const auth_t *a, const char *label, const void *data, size_t len,
		    uint8_t out[32])
{
	if (!a || a->kind != AUTH_HMAC || !a->key)
		return -1;
	strbuf_t sb = STRBUF_INIT;
	strbuf_add(&sb, label, strlen(label) + 1);
	strbuf_add(&sb, data, len);
	digest_hmac_sha256(a->key, a->keylen, sb.buf, sb.len, out);
	explicit_bzero(sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}

int auth_sign(auth_t *a, const void *payload, size_t len, strbuf_t *cred, char **err)
{
	uint8_t digest[32];
	if (!a || !a->can_sign) {
		if (err)
			*err = xstrdup("this process cannot sign credentials (no key)");
		return -1;
	}
	digest_sha256(payload, len, digest);
	if (a->kind == AUTH_HMAC) {
		uint8_t c[HMAC_CRED_LEN];
		c[0] = HMAC_CRED_VERSION;
		put_be(c + 1, geteuid(), 4);
		put_be(c + 5, getegid(), 4);
		put_be(c + 9, (uint64_t)now_us(), 8);
		if (getrandom(c + 17, 16, 0) != 16) {
			if (err)
				*err = xstrdup("unable to get random bytes");
			return -1;
		}
		memcpy(c + 33, digest, 32);
		hmac_mac(a, c, c + HMAC_SIGNED_LEN);
		strbuf_add(cred, c, sizeof(c));
		return 0;
	}
	char *mc = NULL;
	munge_err_t me = munge_encode(&mc, a->ctx, digest, sizeof(digest));
	if (me != EMUNGE_SUCCESS) {
		if (err)
			*err = xasprintf("munge_encode: %s", munge_strerror(me));
		free(mc);
		return -1;
	}
	strbuf_addstr(cred, mc);
	free(mc);
	return 0;
}

#define SEEN_MIN 1024

/* Nonces are random and only inserted once the MAC checked out (nobody
 * without the key can choose them), so their bytes are the hash. */
static size_t seen_slot(const struct seen *t, size_t cap, const uint8_t *nonce)
{
	uint64_t h;
	memcpy(&h, nonce, sizeof(h));
	size_t i = (size_t)h & (cap - 1);
	while (t[i].ts && memcmp(t[i].nonce, nonce, 16) != 0)
		i = (i + 1) & (cap - 1);
	return i;
}

/* Rebuild with only the unexpired entries, at four times their number (so
 * the table also shrinks after a burst). */
static void seen_rebuild(auth_t *a, int64_t now)
{
	size_t live = 0;
	for (size_t i = 0; i < a->seen_cap; i++)
		if (a->seen[i].ts && (int64_t)a->seen[i].ts >= now - AUTH_TTL)
			live++;
	size_t cap = SEEN_MIN;
	while (cap < 4 * (live + 1))
		cap *= 2;
	struct seen *t = xcalloc(cap, sizeof(*t));
	for (size_t i = 0; i < a->seen_cap; i++) {
		const struct seen *e = &a->seen[i];
		if (e->ts && (int64_t)e->ts >= now - AUTH_TTL)
			t[seen_slot(t, cap, e->nonce)] = *e;
	}
	free(a->seen);
	a->seen = t;
	a->seen_cap = cap;
	a->seen_n = live;
}

/* 0 and remembered, or -1 if this nonce was already accepted. */
static int seen_add(auth_t *a, const uint8_t *nonce, int64_t ts, int64_t now)
{
	if (2 * (a->seen_n + 1) > a->seen_cap)
		seen_rebuild(a, now);
	size_t i = seen_slot(a->seen, a->seen_cap, nonce);
	if (a->seen[i].ts)
		return -1;
	memcpy(a->seen[i].nonce, nonce, 16);
	a->seen[i].ts = ts > 0 ? (uint32_t)ts : 1;
	a->seen_n++;
	return 0;
}

/* The credential alone: 0 with *uid, *gid and the digest of the payload
 * it vouches for, or -1 with *err. remember: record an auth/slurm nonce in
 * the replay cache (and refuse one seen before); reusable: launch
 * credentials (no replay or start-time rule). */
static int verify_cred(auth_t *a, const void *cred, size_t cred_len, uint8_t digest[32],
		       uint32_t *uid, uint32_t *gid, char **err, int remember, int reusable)
{
	char *e = NULL;

	if (!a) {
		e = xstrdup("no authentication configured");
		goto fail;
	}
	if (a->kind == AUTH_HMAC) {
		const uint8_t *c = cred;
		uint8_t mac[32];
		if (!a->key) {
			e = xstrdup("no key to verify the credential");
			goto fail;
		}
		if (cred_len != HMAC_CRED_LEN || c[0] != HMAC_CRED_VERSION) {
			e = xstrdup("malformed credential");
			goto fail;
		}
		hmac_mac(a, c, mac);
		if (ct_memcmp(mac, c + HMAC_SIGNED_LEN, 32) != 0) {
			e = xstrdup("bad signature");
			goto fail;
		}
		int64_t ts_us = (int64_t)get_be(c + 9, 8);
		int64_t ts = ts_us / 1000000;
		int64_t now = (int64_t)time(NULL);
		if (!reusable && ts_us < a->not_before_us) {
			e = xstrdup("credential issued before this daemon started (replayed?)");
			goto fail;
		}
		if (ts < now - AUTH_TTL) {
			e = xstrdup("credential expired");
			goto fail;
		}
		if (ts > now + AUTH_TTL) {
			e = xstrdup("credential from the future (clock skew?)");
			goto fail;
		}
		if (remember && !reusable && seen_add(a, c + 17, ts, now) < 0) {
			e = xstrdup("Replayed credential");
			goto fail;
		}
		memcpy(digest, c + 33, 32);
		*uid = (uint32_t)get_be(c + 1, 4);
		*gid = (uint32_t)get_be(c + 5, 4);
		return 0;
	}
	if (a->kind != AUTH_MUNGE || !a->dctx) {
		e = xstrdup("unsupported credential kind");
		goto fail;
	}
	char *s = xstrndup(cred, cred_len);
	void *pl = NULL;
	int plen = 0;
	uid_t u;
	gid_t g;
	munge_err_t me = munge_decode(s, a->dctx, &pl, &plen, &u, &g);
	free(s);
	if (me == EMUNGE_CRED_REPLAYED && reusable)
		me = EMUNGE_SUCCESS;
	if (me != EMUNGE_SUCCESS) {
		e = me == EMUNGE_CRED_EXPIRED ? xstrdup("credential expired")
			: xasprintf("%s", munge_strerror(me));
		free(pl);
		goto fail;
	}
	int sized = pl && plen == 32;
	if (sized)
		memcpy(digest, pl, 32);
	free(pl);
	if (!sized) {
		e = xstrdup("bad signature");
		goto fail;
	}
	time_t enc = 0;
	if (!reusable && a->not_before_us
	    && (munge_ctx_get(a->dctx, MUNGE_OPT_ENCODE_TIME, &enc) != EMUNGE_SUCCESS
		|| (int64_t)enc < a->not_before_us / 1000000)) {
		e = xstrdup("credential issued before this daemon started (replayed?)");
		goto fail;
	}
	*uid = (uint32_t)u;
	*gid = (uint32_t)g;
	return 0;
fail:
	if (err)
		*err = e;
	else
		free(e);
	return -1;
}

static int verify(auth_t *a, const void *cred, size_t cred_len, const void *payload,
		  size_t len, uint32_t *uid, uint32_t *gid, char **err, int reusable)
{
	uint8_t want[32], got[32];
	uint32_t u, g;
	/* auth/slurm: the nonce is remembered only once the payload matched
	 * (a forged payload under a captured credential must not burn it) */
	if (verify_cred(a, cred, cred_len, want, &u, &g, err, 0, reusable) < 0)
		return -1;
	digest_sha256(payload, len, got);
	if (ct_memcmp(want, got, 32) != 0) {
		if (err)
			*err = xstrdup("bad signature");
		return -1;
	}
	if (a->kind == AUTH_HMAC && !reusable) {
		const uint8_t *c = cred;
		int64_t ts = (int64_t)get_be(c + 9, 8) / 1000000;
		if (seen_add(a, c + 17, ts, (int64_t)time(NULL)) < 0) {
			if (err)
				*err = xstrdup("Replayed credential");
			return -1;
		}
	}
	*uid = u;
	*gid = g;
	return 0;
}

int auth_verify(auth_t *a, const void *cred, size_t cred_len,
		const void *payload, size_t len, uint32_t *uid, uint32_t *gid, char **err)
{
	return verify(a, cred, cred_len, payload, len, uid, gid, err, 0);
}

int auth_verify_reusable(auth_t *a, const void *cred, size_t cred_len,
			 const void *payload, size_t len, uint32_t *uid, uint32_t *gid,
			 char **err)
{
	return verify(a, cred, cred_len, payload, len, uid, gid, err, 1);
}

int auth_verify_cred(auth_t *a, const void *cred, size_t cred_len, uint8_t digest[32],
		     uint32_t *uid, uint32_t *gid, char **err)
{
	return verify_cred(a, cred, cred_len, digest, uid, gid, err, 1, 0);
}

int auth_keygen(const char *path, char **err)
{
	uint8_t key[32];
	char hex[65 + 1];
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
		if (err)
			*err = xstrdup("unable to get random bytes");
		return -1;
	}
	for (size_t i = 0; i < sizeof(key); i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	hex[64] = '\n';
	hex[65] = '\0';
	explicit_bzero(key, sizeof(key));

	char *tmp = xasprintf("%s.new", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok = fd >= 0 && fchmod(fd, 0600) == 0;
	size_t off = 0;
	while (ok && off < 65) {
		ssize_t n = write(fd, hex + off, 65 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ok = 0;
		else
			off += (size_t)n;
	}
	if (ok && fsync(fd) < 0)
		ok = 0;
	int e = errno;
	if (fd >= 0 && close(fd) < 0 && ok) {
		ok = 0;
		e = errno;
	}
	if (ok && rename(tmp, path) < 0) {
		ok = 0;
		e = errno;
	}
	explicit_bzero(hex, sizeof(hex));
	if (!ok) {
		if (fd >= 0)
			unlink(tmp);
		if (err)
			*err = xasprintf("unable to write key '%s': %s", path, strerror(e));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
