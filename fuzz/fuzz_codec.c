/*
 * fuzz_codec: libFuzzer target for the message codec. The first byte picks
 * a message type, the rest is a body for proto_decode. A body that decodes
 * must re-encode to bytes that decode again and re-encode identically
 * (encoding is canonical); a body that does not must come with an error
 * text. An accounting answer's cells are read as the commands read them
 * (acct_reply_cells: each must end inside the decoded data). Everything
 * decoded is freed (LeakSanitizer checks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum msg_type t = (enum msg_type)(data[0] % (MSG_TYPE_END + 1));
	size_t sz = proto_size(t);
	char *err = NULL;
	void *m = xcalloc(1, sz ? sz : 8);
	if (proto_decode(t, m, data + 1, size - 1, &err) < 0) {
		if (!err)
			abort();   /* a failure must say why */
		free(err);
		free(m);
		return 0;
	}
	if (t == MSG_ACCT_REPLY) {
		const msg_acct_reply_t *r = m;
		uint32_t n;
		const char **cells = acct_reply_cells(r, &n);
		size_t total = 0;
		for (uint32_t i = 0; i < n; i++)
			total += strlen(cells[i]);   /* ASan: inside the data */
		if (r->table && !r->cells.n && total > r->table_len)
			abort();
		free(cells);
	}
	strbuf_t a = STRBUF_INIT, b = STRBUF_INIT;
	proto_encode(t, m, &a);
	void *m2 = xcalloc(1, sz);
	if (proto_decode(t, m2, a.buf, a.len, &err) < 0)
		abort();   /* our own encoding must decode */
	proto_encode(t, m2, &b);
	if (a.len != b.len || memcmp(a.buf, b.buf, a.len))
		abort();   /* and be canonical */
	proto_free(t, m);
	proto_free(t, m2);
	free(m);
	free(m2);
	strbuf_release(&a);
	strbuf_release(&b);
	return 0;
}
