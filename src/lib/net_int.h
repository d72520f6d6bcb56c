/*
 * net_int.h: what net.c (frames, daemon side) and rpc_client.c (the
 * blocking client side) share; not for use outside src/lib/net*.
 */
#ifndef SLUICE_NET_INT_H
#define SLUICE_NET_INT_H

#include <stdint.h>

#include "auth.h"
#include "proto.h"
#include "strbuf.h"

/* Big-endian fields of the frame header. */
static inline void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Append a frame for msg to out, signed when sign is set and a can sign.
 * 0, or an errors.h number (*err says why). */
int net_frame_append(strbuf_t *out, auth_t *a, int sign, enum msg_type type,
		     const void *msg, char **err);
void net_set_nonblock(int fd);

#endif
