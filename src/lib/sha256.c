/* sha256: thin wrappers over Nettle; see sha256.h. */
#include "sha256.h"

#include <nettle/hmac.h>
#include <nettle/sha2.h>

void digest_sha256(const void *data, size_t len, uint8_t out[32])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, len, data);
	sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

void digest_sha256_2(const void *a, size_t alen, const void *b, size_t blen, uint8_t out[32])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, alen, a);
	if (blen)
		sha256_update(&c, blen, b);
	sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

void digest_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
			uint8_t out[32])
{
	struct hmac_sha256_ctx c;
	hmac_sha256_set_key(&c, keylen, key);
	hmac_sha256_update(&c, len, msg);
	hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}
