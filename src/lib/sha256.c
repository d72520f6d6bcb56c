/*
 * sha256: SHA-256 and HMAC-SHA256 (see sha256.h for why it is not OpenSSL).
 * Written from FIPS 180-4 section 6.2 and RFC 2104; checked against their
 * test vectors in t/unit/test_sha256.c.
 */
#include "sha256.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void block(sha256_ctx_t *c, const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16
		       | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
	uint32_t e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = cc;
		cc = b;
		b = a;
		a = t1 + t2;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
	c->h[5] += f;
	c->h[6] += g;
	c->h[7] += h;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* The SHA extensions (SHA-NI, most x86 CPUs since 2017) do two rounds per
 * instruction: about 10x the portable code, which matters when the
 * controller signs a multi-megabyte squeue reply. Four rounds per step;
 * w[] holds the last four message-schedule words in groups of four. */
__attribute__((target("sha,sse4.1")))
static void blocks_shani(uint32_t h[8], const uint8_t *p, size_t n)
{
	const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
	__m128i t = _mm_loadu_si128((const __m128i *)&h[0]);
	__m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]);
	t = _mm_shuffle_epi32(t, 0xB1);          /* CDAB */
	s1 = _mm_shuffle_epi32(s1, 0x1B);        /* EFGH */
	__m128i s0 = _mm_alignr_epi8(t, s1, 8);  /* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xF0);       /* CDGH */
	for (; n; n--, p += 64) {
		__m128i save0 = s0, save1 = s1, w[4];
		for (int i = 0; i < 4; i++)
			w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), mask);
		for (int g = 0; g < 16; g++) {
			if (g >= 4) {
				__m128i x = _mm_sha256msg1_epu32(w[g & 3], w[(g - 3) & 3]);
				x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g - 1) & 3], w[(g - 2) & 3], 4));
				w[g & 3] = _mm_sha256msg2_epu32(x, w[(g - 1) & 3]);
			}
			__m128i m = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&K[4 * g]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, m);
			m = _mm_shuffle_epi32(m, 0x0E);
			s0 = _mm_sha256rnds2_epu32(s0, s1, m);
		}
		s0 = _mm_add_epi32(s0, save0);
		s1 = _mm_add_epi32(s1, save1);
	}
	t = _mm_shuffle_epi32(s0, 0x1B);         /* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xB1);        /* DCHG */
	s0 = _mm_blend_epi16(t, s1, 0xF0);       /* DCBA */
	s1 = _mm_alignr_epi8(s1, t, 8);          /* HGFE */
	_mm_storeu_si128((__m128i *)&h[0], s0);
	_mm_storeu_si128((__m128i *)&h[4], s1);
}

static int have_shani(void)
{
	static int have = -1;
	if (have < 0) {
		unsigned a, b, c, d;
		/* SLUICE_NO_SHANI: force the portable code (its unit test) */
		have = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_1) && (c & bit_SSSE3) &&
		       __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA) &&
		       !getenv("SLUICE_NO_SHANI");
	}
	return have;
}
#else
static int have_shani(void)
{
	return 0;
}
static void blocks_shani(uint32_t h[8], const uint8_t *p, size_t n)
{
	(void)h, (void)p, (void)n;
}
#endif

static void blocks(sha256_ctx_t *c, const uint8_t *p, size_t n)
{
	if (have_shani()) {
		blocks_shani(c->h, p, n);
		return;
	}
	for (; n; n--, p += 64)
		block(c, p);
}

void sha256_init(sha256_ctx_t *c)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};
	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
	c->nbuf = 0;
}

void sha256_update(sha256_ctx_t *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	c->len += len;
	if (c->nbuf) {
		size_t n = 64 - c->nbuf < len ? 64 - c->nbuf : len;
		memcpy(c->buf + c->nbuf, p, n);
		c->nbuf += n;
		p += n;
		len -= n;
		if (c->nbuf < 64)
			return;
		blocks(c, c->buf, 1);
		c->nbuf = 0;
	}
	blocks(c, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	if (len) {
		memcpy(c->buf, p, len);
		c->nbuf = len;
	}
}

void sha256_final(sha256_ctx_t *c, uint8_t out[32])
{
	uint64_t bits = c->len * 8;
	c->buf[c->nbuf++] = 0x80;
	if (c->nbuf > 56) {
		memset(c->buf + c->nbuf, 0, 64 - c->nbuf);
		blocks(c, c->buf, 1);
		c->nbuf = 0;
	}
	memset(c->buf + c->nbuf, 0, 56 - c->nbuf);
	for (int i = 0; i < 8; i++)
		c->buf[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
	blocks(c, c->buf, 1);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(c->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)c->h[i];
	}
}

void sha256(const void *data, size_t len, uint8_t out[32])
{
	sha256_ctx_t c;
	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, out);
}

void hmac_sha256(const void *key, size_t keylen, const void *msg, size_t len, uint8_t out[32])
{
	uint8_t k[64] = {0}, pad[64], inner[32];
	sha256_ctx_t c;
	if (keylen > 64)
		sha256(key, keylen, k);
	else
		memcpy(k, key, keylen);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&c);
	sha256_update(&c, pad, 64);
	sha256_update(&c, msg, len);
	sha256_final(&c, inner);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&c);
	sha256_update(&c, pad, 64);
	sha256_update(&c, inner, 32);
	sha256_final(&c, out);
	/* the key and its pads are secrets: do not leave copies on the stack */
	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));
	explicit_bzero(&c, sizeof(c));
}
