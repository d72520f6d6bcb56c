/* test_auth: shared-key (auth/slurm) credentials, key files, MUNGE (when
 * munged can be started here) and step launch credentials. */
#include "tap.h"
#include "auth.h"
#include "cred.h"
#include "xalloc.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[64];

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/* A credential built by hand from the documented format (version 2,
 * timestamp in microseconds), to forge times and uids. */
static void forge_us(const uint8_t *key, size_t kl, uint32_t uid, uint32_t gid, int64_t ts_us,
		     const void *payload, size_t plen, strbuf_t *out)
{
	static uint8_t nonce;
	uint8_t c[97];
	unsigned int ml = 32;
	c[0] = 2;
	put_be(c + 1, uid, 4);
	put_be(c + 5, gid, 4);
	put_be(c + 9, (uint64_t)ts_us, 8);
	memset(c + 17, 7, 16);
	c[17] = nonce++;
	SHA256(payload, plen, c + 33);
	HMAC(EVP_sha256(), key, (int)kl, c, 65, c + 65, &ml);
	strbuf_add(out, c, sizeof(c));
}

static int read_key(const char *path, uint8_t *key);

static void forge(const uint8_t *key, size_t kl, uint32_t uid, uint32_t gid, int64_t ts,
		  const void *payload, size_t plen, strbuf_t *out)
{
	forge_us(key, kl, uid, gid, ts * 1000000, payload, plen, out);
}

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Key files granting group/other access, not regular or owned by someone
 * else are refused with the fix in the message, as munged does. */
static void test_key_modes(void)
{
	char *dir = xasprintf("%s/km", tmpdir);
	char *key = xasprintf("%s/slurm.key", dir);
	char *err = NULL;
	mkdir(dir, 0700);
	ok(auth_keygen(key, &err) == 0, "keygen");
	conf_t c = { .dir = dir, .auth_type = (char *)"auth/slurm" };
	auth_t *a = auth_create(&c, &err);
	ok(a && auth_can_sign(a), "0600 key accepted");
	auth_destroy(a);
	static const mode_t bad[] = { 0644, 0640, 0604, 0620, 0602, 0610 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		chmod(key, bad[i]);
		err = NULL;
		a = auth_create(&c, &err);
		ok(!a && err && strstr(err, key) && strstr(err, "chmod 600"),
		   "mode %04o refused: %s", (unsigned)bad[i], err ? err : "accepted");
		auth_destroy(a);
		free(err);
	}
	chmod(key, 0400);
	err = NULL;
	a = auth_create(&c, &err);
	ok(a && auth_can_sign(a), "0400 key accepted");
	auth_destroy(a);
	if (geteuid() == 0) {
		ok(chown(key, 12345, 12345) == 0, "chown to another user");
		err = NULL;
		a = auth_create(&c, &err);
		ok(!a && err && strstr(err, "owned by uid 12345"), "key of another user refused: %s",
		   err ? err : "accepted");
		free(err);
		c.slurm_user = (char *)"root";
		(void)!chown(key, 0, 0);
		err = NULL;
		a = auth_create(&c, &err);
		ok(a != NULL, "root's key accepted");
		auth_destroy(a);
		c.slurm_user = NULL;
	}
	unlink(key);
	mkdir(key, 0700);
	err = NULL;
	a = auth_create(&c, &err);
	ok(!a && err && strstr(err, "not a regular file"), "a directory is not a key: %s",
	   err ? err : "accepted");
	free(err);
	rmdir(key);
	rmdir(dir);
	free(key);
	free(dir);
}

/* A credential checked before its payload has arrived. */
static void test_verify_cred(void)
{
	char *key = xasprintf("%s/vc.key", tmpdir);
	char *err = NULL;
	ok(auth_keygen(key, &err) == 0, "keygen");
	conf_t c = { .dir = tmpdir, .auth_type = (char *)"auth/slurm",
		     .auth_info = xasprintf("key=%s", key) };
	auth_t *a = auth_create(&c, &err);
	strbuf_t cr = STRBUF_INIT;
	const char *body = "the payload";
	uint8_t d[32], want[32];
	uint32_t uid = 1, gid = 1;
	ok(a && auth_sign(a, body, strlen(body), &cr, &err) == 0, "sign");
	SHA256((const uint8_t *)body, strlen(body), want);
	ok(auth_verify_cred(a, cr.buf, cr.len, d, &uid, &gid, &err) == 0 && uid == geteuid() &&
	   gid == getegid() && !memcmp(d, want, 32),
	   "the credential alone verifies and names the payload's digest");
	ok(auth_verify_cred(a, cr.buf, cr.len, d, &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "Replayed credential"), "... once");
	free(err);
	err = NULL;
	cr.buf[40] ^= 1;   /* the digest */
	ok(auth_verify_cred(a, cr.buf, cr.len, d, &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "bad signature"), "a changed digest breaks the signature");
	free(err);
	err = NULL;
	uint8_t junk[97] = { 2 };
	ok(auth_verify_cred(a, junk, sizeof(junk), d, &uid, &gid, &err) < 0 && err,
	   "garbage refused without any payload");
	free(err);
	strbuf_release(&cr);
	auth_destroy(a);
	unlink(key);
	free(c.auth_info);
	free(key);
}

/* Credentials issued before the daemon started are refused, to the
 * microsecond, so a capture replayed after a restart fails. */
static void test_not_before(void)
{
	char *key = xasprintf("%s/nb.key", tmpdir);
	char *err = NULL;
	ok(auth_keygen(key, &err) == 0, "keygen");
	conf_t c = { .dir = tmpdir, .auth_type = (char *)"auth/slurm",
		     .auth_info = xasprintf("key=%s", key) };
	auth_t *a = auth_create(&c, &err);
	uint8_t k[32];
	ok(a && read_key(key, k) == 0, "auth and key");
	const char *body = "body";
	uint32_t uid, gid;
	int64_t start = now_us();
	strbuf_t before = STRBUF_INIT, same_sec = STRBUF_INIT, after = STRBUF_INIT;
	forge_us(k, 32, 0, 0, start - 1, body, 4, &before);
	forge_us(k, 32, 0, 0, start - start % 1000000, body, 4, &same_sec);
	forge_us(k, 32, 0, 0, start + 1, body, 4, &after);
	auth_set_not_before(a, start);
	err = NULL;
	ok(auth_verify(a, before.buf, before.len, body, 4, &uid, &gid, &err) < 0 && err &&
	   strstr(err, "before this daemon started"), "signed 1 us before the start: refused (%s)",
	   err ? err : "accepted");
	free(err);
	err = NULL;
	if (start % 1000000)
		ok(auth_verify(a, same_sec.buf, same_sec.len, body, 4, &uid, &gid, &err) < 0,
		   "signed earlier in the same second: refused");
	else
		ok(1, "# skip start on a whole second");
	free(err);
	err = NULL;
	ok(auth_verify(a, after.buf, after.len, body, 4, &uid, &gid, &err) == 0,
	   "signed 1 us after the start: accepted");
	strbuf_t now = STRBUF_INIT;
	ok(auth_sign(a, body, 4, &now, &err) == 0 &&
	   auth_verify(a, now.buf, now.len, body, 4, &uid, &gid, &err) == 0,
	   "a credential signed now verifies");
	ok(auth_verify_reusable(a, before.buf, before.len, body, 4, &uid, &gid, &err) == 0,
	   "reusable (launch) credentials from before the start still verify");
	strbuf_release(&before);
	strbuf_release(&same_sec);
	strbuf_release(&after);
	strbuf_release(&now);
	auth_destroy(a);
	unlink(key);
	free(c.auth_info);
	free(key);
}

static int read_key(const char *path, uint8_t *key)
{
	FILE *f = fopen(path, "r");
	char hex[80] = "";
	if (!f)
		return -1;
	if (!fgets(hex, sizeof(hex), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (int i = 0; i < 32; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		key[i] = (uint8_t)v;
	}
	return 0;
}

static void test_hmac(void)
{
	char *key = xasprintf("%s/slurm.key", tmpdir);
	char *err = NULL;
	ok(auth_keygen(key, &err) == 0, "keygen: %s", err ? err : "");
	struct stat st;
	ok(stat(key, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size == 65,
	   "key file is 0600, 64 hex digits and a newline");
	char *tmp = xasprintf("%s.new", key);
	ok(access(tmp, F_OK) < 0, "no .new left behind");
	free(tmp);

	conf_t c = { .dir = tmpdir, .auth_type = (char *)"auth/slurm" };
	auth_t *a = auth_create(&c, &err);
	ok(a && auth_can_sign(a) && auth_kind(a) == AUTH_HMAC, "auth/slurm from slurm.key in conf dir");

	strbuf_t cr = STRBUF_INIT;
	const char *body = "hello body";
	uint32_t uid = 1, gid = 1;
	ok(auth_sign(a, body, strlen(body), &cr, &err) == 0, "sign");
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) == 0 &&
	   uid == geteuid() && gid == getegid(), "verify gives our uid/gid");
	err = NULL;
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "Replayed credential"), "the same credential again: replayed (%s)",
	   err ? err : "accepted");
	free(err);
	err = NULL;
	{
		strbuf_t r = STRBUF_INIT;
		auth_sign(a, body, strlen(body), &r, NULL);
		ok(auth_verify_reusable(a, r.buf, r.len, body, strlen(body), &uid, &gid, &err) == 0 &&
		   auth_verify_reusable(a, r.buf, r.len, body, strlen(body), &uid, &gid, &err) == 0,
		   "reusable verification passes twice");
		/* enough credentials to make the cache grow several times */
		strbuf_t first = STRBUF_INIT;
		int bad = 0;
		for (int i = 0; i < 5000; i++) {
			strbuf_reset(&r);
			auth_sign(a, body, strlen(body), &r, NULL);
			if (i == 0)
				strbuf_add(&first, r.buf, r.len);
			bad += auth_verify(a, r.buf, r.len, body, strlen(body), &uid, &gid, NULL) != 0;
		}
		ok(bad == 0, "5000 fresh credentials accepted");
		ok(auth_verify(a, first.buf, first.len, body, strlen(body), &uid, &gid, NULL) < 0,
		   "... and the first of them is still remembered after growing");
		strbuf_release(&first);
		strbuf_release(&r);
	}
	ok(auth_verify(a, cr.buf, cr.len, "hello bodY", 10, &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "bad signature"), "tampered body: bad signature");
	free(err);
	err = NULL;
	cr.buf[3] ^= 1;   /* the uid */
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) < 0,
	   "tampered uid refused");
	free(err);
	err = NULL;
	ok(auth_verify(a, cr.buf, cr.len - 1, body, strlen(body), &uid, &gid, &err) < 0 && err,
	   "short credential refused");
	free(err);
	err = NULL;
	ok(auth_verify(a, "", 0, body, strlen(body), &uid, &gid, &err) < 0 && err,
	   "empty credential refused");
	free(err);
	err = NULL;

	uint8_t k[32];
	ok(read_key(key, k) == 0, "key file readable as hex");
	strbuf_reset(&cr);
	forge(k, 32, 4242, 77, time(NULL) - 10, body, strlen(body), &cr);
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) == 0 &&
	   uid == 4242 && gid == 77, "hand-made credential verifies (format as documented)");
	strbuf_reset(&cr);
	forge(k, 32, 0, 0, time(NULL) - AUTH_TTL - 5, body, strlen(body), &cr);
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "credential expired"), "expired timestamp refused");
	free(err);
	err = NULL;
	strbuf_reset(&cr);
	forge(k, 32, 0, 0, time(NULL) + AUTH_TTL + 60, body, strlen(body), &cr);
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) < 0,
	   "future timestamp refused");
	free(err);
	err = NULL;

	/* wrong key */
	char *okey = xasprintf("%s/other.key", tmpdir);
	auth_keygen(okey, NULL);
	char *info = xasprintf("key=%s", okey);
	conf_t c2 = { .dir = tmpdir, .auth_type = (char *)"auth/slurm", .auth_info = info };
	auth_t *b = auth_create(&c2, &err);
	ok(b && auth_can_sign(b), "AuthInfo key=PATH");
	strbuf_reset(&cr);
	auth_sign(b, body, strlen(body), &cr, NULL);
	ok(auth_verify(a, cr.buf, cr.len, body, strlen(body), &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "bad signature"), "wrong key: bad signature");
	free(err);
	err = NULL;
	auth_destroy(b);

	/* missing key: error; unreadable: can't sign */
	conf_t c3 = { .dir = (char *)"/nonexistent", .auth_type = (char *)"auth/slurm" };
	ok(auth_create(&c3, &err) == NULL && err && strstr(err, "/nonexistent/slurm.key"),
	   "missing key refused: %s", err ? err : "");
	free(err);
	err = NULL;
	if (geteuid() == 0) {
		ok(1, "# skip unreadable key: running as root");
	} else {
		chmod(okey, 0);
		b = auth_create(&c2, &err);
		ok(b && !auth_can_sign(b), "unreadable key: auth without signing");
		ok(b && auth_sign(b, "x", 1, &cr, &err) < 0, "... and sign fails");
		free(err);
		err = NULL;
		auth_destroy(b);
	}
	/* raw (non-hex) key file */
	FILE *f = fopen(okey, "w");
	fputs("this is a raw key of some length!", f);
	fclose(f);
	b = auth_create(&c2, &err);
	ok(b && auth_can_sign(b), "raw key file accepted");
	auth_destroy(b);
	f = fopen(okey, "w");
	fputs("short", f);
	fclose(f);
	ok(auth_create(&c2, &err) == NULL && err && strstr(err, "too short"), "short key refused");
	free(err);
	err = NULL;
	conf_t c4 = { .auth_type = (char *)"auth/none" };
	ok(auth_create(&c4, &err) == NULL && err, "unknown AuthType refused");
	free(err);
	err = NULL;
	ok(auth_keygen("/nonexistent/dir/k", &err) < 0 && err, "keygen error reported");
	free(err);
	err = NULL;

	/* step credentials */
	char dg[CRED_DIGEST_HEX + 1];
	memset(dg, 'a', CRED_DIGEST_HEX);
	dg[CRED_DIGEST_HEX] = '\0';
	cred_t in = { .job_id = 12, .step_id = 3, .uid = 1000, .gid = 100,
		      .user = (char *)"alice", .nodes = (char *)"gpu[001-004]",
		      .ntasks = 7, .digest = dg, .expires = time(NULL) + 60 };
	char *s = cred_create(a, &in, &err);
	ok(s && !strncmp(s, "sluice-cred 1 job=12 step=3 uid=1000 gid=100 user=alice "
			 "nodes=gpu[001-004] tasks=7 digest=aaaa", 93), "cred format");
	cred_t o;
	ok(cred_verify(a, s, 999, time(NULL), &o, &err) == 0 && o.job_id == 12 && o.step_id == 3 &&
	   o.uid == 1000 && o.gid == 100 && !strcmp(o.user, "alice") &&
	   !strcmp(o.nodes, "gpu[001-004]") && o.ntasks == 7 && o.digest &&
	   !strcmp(o.digest, dg) && o.expires == in.expires, "cred verifies, with tasks and digest");
	cred_release(&o);
	ok(cred_verify(a, s, 999, time(NULL), &o, &err) == 0, "cred verifies twice");
	ok(o.alloc == NULL, "cred without the nodes' shares");
	cred_release(&o);
	/* with each node's share of the job (cgroups) */
	in.alloc = (char *)"gpu001=0-3:1024:3;gpu002=4:512:0";
	char *sa = cred_create(a, &in, &err);
	ok(sa && strstr(sa, " alloc=gpu001=0-3:1024:3;gpu002=4:512:0 expires="), "cred with alloc");
	ok(sa && cred_verify(a, sa, 999, time(NULL), &o, &err) == 0 && o.alloc &&
	   !strcmp(o.alloc, in.alloc), "alloc verifies and comes back");
	cred_release(&o);
	if (sa) {
		char *p = strstr(sa, "1024");
		if (p)
			p[0] = '9';      /* more memory: the signature no longer holds */
		ok(cred_verify(a, sa, 999, time(NULL), &o, &err) < 0, "a changed alloc is refused");
		free(err);
		err = NULL;
	}
	free(sa);
	in.alloc = (char *)"a b";
	ok(cred_create(a, &in, &err) == NULL && err, "white space in alloc refused");
	free(err);
	err = NULL;
	in.alloc = NULL;
	ok(cred_verify(a, s, 999, time(NULL) + 61, &o, &err) < 0 && err &&
	   !strcmp(err, "credential expired"), "cred expiry");
	free(err);
	err = NULL;
	char *t = xstrdup(s);
	t[19] = '9';   /* job=12 -> job=92 */
	ok(cred_verify(a, t, 999, time(NULL), &o, &err) < 0 && err && strstr(err, "bad signature"),
	   "tampered cred refused: %s", err ? err : "");
	free(err);
	err = NULL;
	free(t);
	t = xstrdup(s);
	t[strlen(t) - 1] = 'z';
	ok(cred_verify(a, t, 999, time(NULL), &o, &err) < 0 && err, "bad hex refused");
	free(err);
	err = NULL;
	free(t);
	ok(cred_verify(a, "garbage", 999, time(NULL), &o, &err) < 0 && err, "garbage refused");
	free(err);
	err = NULL;
	free(s);

	/* signed by someone who is neither root nor SlurmUser */
	const char *pl = "sluice-cred 1 job=1 step=0 uid=5 gid=5 user=eve nodes=n1 tasks=1 "
		"digest=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef expires=99999999999";
	strbuf_reset(&cr);
	forge(k, 32, 4242, 4242, time(NULL), pl, strlen(pl), &cr);
	strbuf_t cs = STRBUF_INIT;
	strbuf_addf(&cs, "%s\n", pl);
	for (size_t i = 0; i < cr.len; i++)
		strbuf_addf(&cs, "%02x", (unsigned char)cr.buf[i]);
	ok(cred_verify(a, cs.buf, 999, time(NULL), &o, &err) < 0 && err &&
	   !strcmp(err, "credential not signed by the controller"), "signer must be root or SlurmUser");
	free(err);
	err = NULL;
	ok(cred_verify(a, cs.buf, 4242, time(NULL), &o, &err) == 0, "... SlurmUser accepted");
	cred_release(&o);
	strbuf_release(&cs);
	in.digest = NULL;
	ok(cred_create(a, &in, &err) == NULL && err, "no credential without a launch digest");
	free(err);
	err = NULL;
	in.digest = (char *)"0123";
	ok(cred_create(a, &in, &err) == NULL && err, "no credential with a malformed digest");
	free(err);
	err = NULL;
	in.digest = dg;
	in.user = (char *)"a b";
	ok(cred_create(a, &in, &err) == NULL && err, "white space in user refused");
	free(err);

	strbuf_release(&cr);
	auth_destroy(a);
	unlink(key);
	unlink(okey);
	free(key);
	free(okey);
	free(info);
}

static void test_munge(void)
{
	if (access("/usr/sbin/munged", X_OK) < 0 || geteuid() != 0) {
		ok(1, "# skip no munged");
		return;
	}
	char *key = xasprintf("%s/munge.key", tmpdir), *sock = xasprintf("%s/munge.sock", tmpdir);
	char *pid = xasprintf("%s/munged.pid", tmpdir), *log = xasprintf("%s/munged.log", tmpdir);
	char *seed = xasprintf("%s/munged.seed", tmpdir);
	FILE *f = fopen(key, "w");
	for (int i = 0; i < 128; i++)
		fputc('k' + i % 7, f);
	fclose(f);
	chmod(key, 0600);
	char *cmd = xasprintf("/usr/sbin/munged --socket=%s --key-file=%s --pid-file=%s "
			      "--log-file=%s --seed-file=%s --force >/dev/null 2>&1",
			      sock, key, pid, log, seed);
	int rc = system(cmd);
	free(cmd);
	for (int i = 0; i < 100 && access(sock, F_OK) < 0; i++)
		usleep(20000);
	if (rc != 0 || access(sock, F_OK) < 0) {
		ok(1, "# skip no munged (could not start one)");
		goto out;
	}
	char *info = xasprintf("socket=%s", sock);
	conf_t c = { .auth_type = (char *)"auth/munge", .auth_info = info };
	char *err = NULL;
	auth_t *a = auth_create(&c, &err);
	ok(a && auth_can_sign(a) && auth_kind(a) == AUTH_MUNGE, "auth/munge: %s", err ? err : "");
	strbuf_t cr = STRBUF_INIT;
	uint32_t uid = 1, gid = 1;
	ok(a && auth_sign(a, "body", 4, &cr, &err) == 0, "munge sign");
	ok(a && auth_verify(a, cr.buf, cr.len, "body", 4, &uid, &gid, &err) == 0 && uid == geteuid(),
	   "munge verify");
	ok(a && auth_verify(a, cr.buf, cr.len, "body", 4, &uid, &gid, &err) < 0 && err,
	   "munge replay refused: %s", err ? err : "");
	free(err);
	err = NULL;
	ok(a && auth_verify_reusable(a, cr.buf, cr.len, "body", 4, &uid, &gid, &err) == 0,
	   "replay allowed for reusable credentials");
	ok(a && auth_verify_reusable(a, cr.buf, cr.len, "bodY", 4, &uid, &gid, &err) < 0 && err &&
	   !strcmp(err, "bad signature"), "munge: tampered body");
	free(err);
	err = NULL;
	{
		/* encoded a second before the daemon's start (whole seconds) */
		strbuf_t old = STRBUF_INIT;
		uint8_t d[32];
		ok(a && auth_sign(a, "body", 4, &old, &err) == 0, "munge sign");
		auth_set_not_before(a, now_us() + 1000000);
		ok(a && auth_verify_cred(a, old.buf, old.len, d, &uid, &gid, &err) < 0 && err &&
		   strstr(err, "before this daemon started"), "munge: encoded before the start: refused");
		free(err);
		err = NULL;
		auth_set_not_before(a, now_us() - 2000000);
		strbuf_reset(&old);
		ok(a && auth_sign(a, "body", 4, &old, &err) == 0 &&
		   auth_verify(a, old.buf, old.len, "body", 4, &uid, &gid, &err) == 0,
		   "munge: encoded after the start: accepted");
		strbuf_release(&old);
	}
	conf_t c2 = { .auth_type = (char *)"auth/munge", .auth_info = (char *)"socket=/nonexistent/s" };
	ok(auth_create(&c2, &err) == NULL && err, "missing munged socket refused: %s", err ? err : "");
	free(err);
	strbuf_release(&cr);
	auth_destroy(a);
	free(info);
	/* stop the munged we started, by its pid */
	f = fopen(pid, "r");
	int p = 0;
	if (f) {
		if (fscanf(f, "%d", &p) != 1)
			p = 0;
		fclose(f);
	}
	if (p > 0)
		kill(p, SIGTERM);
	for (int i = 0; i < 100 && p > 0 && kill(p, 0) == 0; i++)
		usleep(20000);
out:
	unlink(key); unlink(sock); unlink(pid); unlink(log); unlink(seed);
	char *lock = xasprintf("%s.lock", sock);
	unlink(lock);
	free(lock);
	free(key); free(sock); free(pid); free(log); free(seed);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_auth.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_hmac();
	test_key_modes();
	test_not_before();
	test_verify_cred();
	test_munge();
	rmdir(tmpdir);
	return done_testing();
}
