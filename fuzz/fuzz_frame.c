/*
 * fuzz_frame: libFuzzer target for the frame parser and what a daemon does
 * with a frame: arbitrary bytes are parsed as a stream of frames
 * (net_frame_parse); each frame's credential is checked with a shared key
 * (auth_verify) and its body decoded for its type. The bytes are also
 * given to cred_verify as a launch credential string.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "cred.h"
#include "net.h"
#include "proto_schema.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static auth_t *auth;

static void setup(void)
{
	static char dir[] = "/tmp/fuzz_frame.XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char *key = xasprintf("%s/slurm.key", dir);
	if (auth_keygen(key, NULL) < 0)
		abort();
	conf_t c = { .dir = dir, .auth_type = (char *)"auth/slurm" };
	auth = auth_create(&c, NULL);
	if (!auth)
		abort();
	unlink(key);
	rmdir(dir);
	free(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!auth)
		setup();
	/* Exact-size copy, so reads past the end are caught. */
	uint8_t *buf = xmalloc(size ? size : 1);
	memcpy(buf, data, size);
	size_t off = 0;
	for (;;) {
		frame_t f;
		char *err = NULL;
		/* the daemons' header admission on the same bytes */
		if (net_frame_admit(NULL, 0, buf + off, size - off, &err) < 0 && !err)
			abort();
		free(err);
		err = NULL;
		int r = net_frame_parse(buf + off, size - off, &f, &err);
		if (r < 0) {
			if (!err)
				abort();
			free(err);
			break;
		}
		if (r == 0)
			break;
		if (f.total > size - off || f.body + f.body_len != buf + off + f.total)
			abort();
		uint32_t uid, gid;
		uint8_t digest[32];
		if (f.cred_len && auth_verify(auth, f.cred, f.cred_len, f.body, f.body_len,
					      &uid, &gid, &err) == 0)
			abort();   /* nobody can forge a MAC */
		free(err);
		err = NULL;
		if (f.cred_len && auth_verify_cred(auth, f.cred, f.cred_len, digest, &uid, &gid,
						   &err) == 0)
			abort();   /* nor the credential alone */
		free(err);
		err = NULL;
		void *m = xcalloc(1, proto_size((enum msg_type)f.type));
		if (proto_decode((enum msg_type)f.type, m, f.body, f.body_len, &err) < 0)
			free(err);
		else
			proto_free((enum msg_type)f.type, m);
		free(m);
		off += f.total;
	}
	/* as a launch credential */
	char *s = xstrndup((const char *)data, size);
	cred_t c;
	char *err = NULL;
	if (cred_verify(auth, s, 0, time(NULL), &c, &err) == 0)
		abort();
	free(err);
	free(s);
	free(buf);
	return 0;
}
