/*
 * test_sha256: SHA-256 and HMAC-SHA256 against the FIPS 180-4 examples and
 * RFC 4231's HMAC-SHA256 test cases, and against OpenSSL on odd lengths
 * (block and padding boundaries).
 */
#include "tap.h"
#include "../../src/lib/sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *hex(const uint8_t *d)
{
	static char s[65];
	for (int i = 0; i < 32; i++)
		snprintf(s + 2 * i, 3, "%02x", d[i]);
	return s;
}

/* lengths 0..300 and HMAC with varied keys: the number of mismatches with
 * OpenSSL (an independent implementation) */
static int compare_openssl(void)
{
	uint8_t buf[300], out[32], ref[32];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	int bad = 0;
	for (size_t n = 0; n <= sizeof(buf); n++) {
		digest_sha256(buf, n, out);
		SHA256(buf, n, ref);
		bad += memcmp(out, ref, 32) != 0;
		unsigned int ml = 32;
		digest_hmac_sha256(buf, n % 100 + 1, buf, n, out);
		HMAC(EVP_sha256(), buf, (int)(n % 100 + 1), buf, n, ref, &ml);
		bad += memcmp(out, ref, 32) != 0;
	}
	return bad;
}

int main(void)
{
	uint8_t out[32];
	digest_sha256("abc", 3, out);
	is_str(hex(out), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256 abc");
	digest_sha256("", 0, out);
	is_str(hex(out), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256 empty");
	const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	digest_sha256(m2, strlen(m2), out);
	is_str(hex(out), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1", "sha256 two blocks");

	/* RFC 4231 test case 1 and 2 */
	uint8_t k1[20];
	memset(k1, 0x0b, sizeof(k1));
	digest_hmac_sha256(k1, sizeof(k1), "Hi There", 8, out);
	is_str(hex(out), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "hmac rfc4231 1");
	digest_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, out);
	is_str(hex(out), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "hmac rfc4231 2");
	/* test case 6: key longer than a block */
	uint8_t k6[131];
	memset(k6, 0xaa, sizeof(k6));
	const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	digest_hmac_sha256(k6, sizeof(k6), m6, strlen(m6), out);
	is_str(hex(out), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", "hmac rfc4231 6");

	int bad = compare_openssl();
	is_int(bad, 0, "matches OpenSSL for lengths 0..300 (SHA extensions where the CPU has them)");
	return done_testing();
}
