/*
 * test_intern: the controller's refcounted string table (src/ctld/intern.c):
 * equal strings share one copy, references are counted, the last
 * intern_put frees the entry, and the table survives growth and removals
 * in the middle of a chain. Also the JINFO_* field selection of the wire
 * format: an unset string costs nothing on the wire.
 */
#include <stdio.h>
#include <string.h>

#include "ctld/intern.h"
#include "proto.h"
#include "tap.h"
#include "xalloc.h"

int main(void)
{
	is_int(intern_count(), 0, "empty table");
	ok(intern_get(NULL) == NULL, "NULL interns to NULL");
	intern_put(NULL);

	char *a = intern_get("alice");
	char *b = intern_take(xstrdup("alice"));
	ok(a == b, "equal strings share one copy");
	is_str(a, "alice", "content kept");
	char *c = intern_get("bob");
	ok(c != a, "different strings differ");
	is_int(intern_count(), 2, "two distinct strings");
	intern_put(a);
	is_int(intern_count(), 2, "still referenced");
	is_str(b, "alice", "survives one put");
	intern_put(b);
	is_int(intern_count(), 1, "last put frees");
	char *a2 = intern_get("alice");
	is_str(a2, "alice", "re-interned after free");
	intern_put(a2);
	intern_put(c);
	is_int(intern_count(), 0, "all freed");

	/* Many strings: growth, lookups, removal from chains in any order. */
	enum { N = 5000 };
	static char *p[N];
	char buf[32];
	int same = 1;
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		p[i] = intern_get(buf);
	}
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		char *q = intern_get(buf);
		same &= q == p[i] && !strcmp(q, buf);
		intern_put(q);
	}
	ok(same, "every string found again after growth");
	is_int(intern_count(), N, "N distinct strings");
	for (int i = 0; i < N; i += 2)
		intern_put(p[i]);
	is_int(intern_count(), N / 2, "half released");
	same = 1;
	for (int i = 1; i < N; i += 2) {
		snprintf(buf, sizeof(buf), "s%d", i);
		same &= !strcmp(p[i], buf);
		intern_put(p[i]);
	}
	ok(same, "the others intact");
	is_int(intern_count(), 0, "all released");

	/* The field mask's premise: NULL strings are not on the wire. */
	job_info_t full = { .job_id = 7, .name = (char *)"wrap", .work_dir = (char *)"/home/a",
			    .std_out = (char *)"/home/a/out" };
	job_info_t basic = full;
	basic.work_dir = basic.std_out = NULL;
	msg_job_info_t m1 = { .njobs = 1, .jobs = &full }, m2 = { .njobs = 1, .jobs = &basic };
	strbuf_t s1 = STRBUF_INIT, s2 = STRBUF_INIT;
	proto_encode(MSG_JOB_INFO, &m1, &s1);
	proto_encode(MSG_JOB_INFO, &m2, &s2);
	/* each: a 2-byte key (tag > 15), a 1-byte length, the bytes */
	is_int(s1.len - s2.len, 3 + strlen("/home/a") + 3 + strlen("/home/a/out"),
	       "unset strings cost nothing on the wire");
	msg_job_info_t d;
	ok(proto_decode(MSG_JOB_INFO, &d, s2.buf, s2.len, NULL) == 0 && d.njobs == 1 &&
	   d.jobs[0].job_id == 7 && !d.jobs[0].work_dir && !strcmp(d.jobs[0].name, "wrap"),
	   "decodes with the unset strings NULL");
	proto_free(MSG_JOB_INFO, &d);
	strbuf_release(&s1);
	strbuf_release(&s2);

	msg_info_req_t rq = { .job_id = 0, .fields = JINFO_BASIC | JINFO_PATHS }, rd;
	strbuf_t s3 = STRBUF_INIT;
	proto_encode(MSG_JOB_INFO_REQ, &rq, &s3);
	ok(proto_decode(MSG_JOB_INFO_REQ, &rd, s3.buf, s3.len, NULL) == 0 &&
	   rd.fields == (JINFO_BASIC | JINFO_PATHS), "fields round-trips");
	proto_free(MSG_JOB_INFO_REQ, &rd);
	strbuf_release(&s3);
	return done_testing();
}
