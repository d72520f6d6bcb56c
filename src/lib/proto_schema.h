/*
 * proto_schema: the schema tables that drive the generic codec (codec.c).
 * Private to src/lib (codec.c, proto_schema.c, fuzz and unit tests).
 *
 * Each message struct has one schema: a list of fields, each with a tag
 * that never changes once shipped (new fields get new tags), a type, the
 * field's offset and, for counted arrays/lists/byte buffers, the offset of
 * the uint32_t count that goes with the pointer.
 */
#ifndef SLUICE_PROTO_SCHEMA_H
#define SLUICE_PROTO_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

enum ft {
	FT_U32 = 1,   /* uint32_t */
	FT_I32,       /* int32_t */
	FT_U64,       /* uint64_t */
	FT_I64,       /* int64_t */
	FT_STR,       /* char *, NULL = absent */
	FT_STRV,      /* strv_t */
	FT_U32ARR,    /* uint32_t *, count at cnt_off */
	FT_I32ARR,    /* int32_t *, count at cnt_off */
	FT_BYTES,     /* uint8_t *, length at cnt_off */
	FT_LIST,      /* records of schema sub, count at cnt_off */
};

typedef struct proto_schema proto_schema_t;

typedef struct proto_field {
	uint32_t tag;
	uint8_t type;              /* enum ft */
	uint32_t off;
	uint32_t cnt_off;          /* FT_U32ARR/FT_I32ARR/FT_BYTES/FT_LIST */
	const proto_schema_t *sub; /* FT_LIST */
	const char *name;
} proto_field_t;

struct proto_schema {
	const char *name;
	size_t size;
	const proto_field_t *fields;
	size_t nfields;
};

/* Schema of a message type, or NULL for unknown types / MSG_NONE. */
const proto_schema_t *proto_schema(enum msg_type type);
/* Name of a message type ("MSG_SUBMIT"), NULL if unknown. */
const char *proto_schema_name(enum msg_type type);

/* Schema-level codec (used by proto_* and by tests on record schemas). */
void codec_encode(const proto_schema_t *s, const void *rec, strbuf_t *out);
int codec_decode(const proto_schema_t *s, void *rec, const void *buf, size_t len, char **err);
/* With an explicit budget (bytes of memory, see proto_decode_budget). */
int codec_decode_budget(const proto_schema_t *s, void *rec, const void *buf, size_t len,
			size_t budget, char **err);
/* What malloc(n) really costs (header and rounding), as the decoder
 * charges it. */
size_t codec_alloc_cost(size_t n);
void codec_free(const proto_schema_t *s, void *rec);

#endif

/* ---- frames (net.c), exposed for tests and the fuzzers ---- */

#define FRAME_HDR 16u     /* u32 length + magic, version, type, auth, u32 cred len */

typedef struct frame {
	uint16_t type;
	uint16_t auth;            /* enum auth_kind */
	const uint8_t *cred;
	uint32_t cred_len;
	const uint8_t *body;
	size_t body_len;
	size_t total;             /* bytes of buf the frame occupies */
} frame_t;

/* Parse one frame at the start of buf. 1: *f filled; 0: need more bytes
 * (only a prefix is there and it is valid so far); -1: malformed, *err
 * (malloc'd) says why. Never reads past len. */
int net_frame_parse(const void *buf, size_t len, frame_t *f, char **err);
