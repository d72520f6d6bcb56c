/*
 * sha256: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), self-contained.
 *
 * Why not OpenSSL: every command signs one request, and OpenSSL 3's first
 * SHA256()/HMAC()/RAND_bytes() call loads its config file and builds its
 * provider and algorithm tables, about 1.5 ms of a 4 ms sbatch. Hashing a
 * few hundred bytes needs none of that.
 */
#ifndef SLUICE_SHA256_H
#define SLUICE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t buf[64];
	size_t nbuf;
} sha256_ctx_t;

void sha256_init(sha256_ctx_t *c);
void sha256_update(sha256_ctx_t *c, const void *data, size_t len);
void sha256_final(sha256_ctx_t *c, uint8_t out[32]);
void sha256(const void *data, size_t len, uint8_t out[32]);
void hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len, uint8_t out[32]);

#endif
