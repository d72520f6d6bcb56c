/*
 * sha256: SHA-256 and HMAC-SHA256 for request credentials, through GNU
 * Nettle (Debian's libnettle, which uses the CPU's SHA instructions where
 * present).
 *
 * Why not OpenSSL: every command signs one request, and OpenSSL 3's first
 * SHA256()/HMAC()/RAND_bytes() call loads its config file and builds its
 * provider and algorithm tables, about 1.5 ms of a 4 ms sbatch. Nettle has
 * no initialisation, so a command pays only for hashing a few hundred bytes.
 */
#ifndef SLUICE_SHA256_H
#define SLUICE_SHA256_H

#include <stddef.h>
#include <stdint.h>

void digest_sha256(const void *data, size_t len, uint8_t out[32]);
/* SHA-256 of a followed by b. */
void digest_sha256_2(const void *a, size_t alen, const void *b, size_t blen, uint8_t out[32]);
void digest_hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len,
			uint8_t out[32]);

#endif
