/* Unit tests for the NCCL transport check's pure parts (src/lib/nccl_log.c):
 * the line parser on NCCL's own formats (debug.cc's "HOST:PID:TID [DEV]
 * NCCL INFO " prefix, init.cc's "Using network NAME", transport/net.cc's
 * channel lines), the scanner over output fed in arbitrary pieces, the
 * port-counter verdict, and health.conf's nccl line. */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "health_conf.h"
#include "nccl_log.h"

static void line_is(const char *line, enum nccl_verdict want, const char *want_name)
{
	char name[NCCL_NAME_MAX];
	enum nccl_verdict v = nccl_line_parse(line, strlen(line), name);
	int n = (int)strcspn(line, "\r\n");
	is_int(v, want, "verdict of '%.*s'", n < 60 ? n : 60, line);
	is_str(name, want_name, "name of '%.*s'", n < 60 ? n : 60, line);
}

/* Feed text to a scanner in pieces of size step. */
static void scan_steps(const char *text, size_t step, nccl_scan_t *s)
{
	nccl_scan_init(s);
	size_t n = strlen(text);
	for (size_t i = 0; i < n; i += step)
		nccl_scan_feed(s, text + i, n - i < step ? n - i : step);
}

int main(void)
{
	/* the lines NCCL prints */
	line_is("gpu01:12345:12345 [0] NCCL INFO Using network Socket\n", NCCL_SOCKET, "Socket");
	line_is("gpu01:12345:12345 [0] NCCL INFO Using network IB", NCCL_FABRIC, "IB");
	line_is("gpu01:1:2 [7] NCCL INFO Using network IBext_v8\r\n", NCCL_FABRIC, "IBext_v8");
	line_is("[2026-12-01 10:00:00] gpu01:1:2 [0] NCCL INFO Using network AWS Libfabric",
		NCCL_FABRIC, "AWS_Libfabric");
	line_is("gpu01:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0",
		NCCL_SOCKET, "Socket");
	line_is("gpu02:1:2 [3] NCCL INFO Channel 01/0 : 8[3] -> 0[3] [receive] via NET/IB/3/GDRDMA",
		NCCL_FABRIC, "IB");
	line_is("gpu02:1:2 [3] NCCL INFO Channel 02/1 : 8[3] -> 0[3] [send] via NET/IBext/1(9)/GDRDMA(PCI)/Shared",
		NCCL_FABRIC, "IBext");
	/* a torchrun rank prefix before NCCL's own */
	line_is("[rank3]: gpu01:1:2 [3] NCCL INFO Using network Socket", NCCL_SOCKET, "Socket");
	/* what does not decide */
	line_is("gpu01:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>", NCCL_NONE, "");
	line_is("gpu01:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>", NCCL_NONE, "");
	line_is("gpu01:1:2 [0] NCCL INFO NET/IB : No device found.", NCCL_NONE, "");
	line_is("gpu01:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", NCCL_NONE, "");
	line_is("gpu01:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", NCCL_NONE, "");
	line_is("Using network Socket", NCCL_NONE, "");
	line_is("echo NCCL INFO Using network ", NCCL_NONE, "");
	line_is("gpu01:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket", NCCL_NONE, "");
	line_is("gpu01:1:2 [0] NCCL WARN Using network Socket", NCCL_NONE, "");
	line_is("", NCCL_NONE, "");

	/* the scanner: pieces of any size give the same verdict */
	const char *out =
		"epoch 0 loading data\n"
		"gpu01:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
		"gpu01:1:2 [0] NCCL INFO Using network IB\n"
		"gpu01:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n"
		"gpu01:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 9[1] [send] via NET/Socket/0\n"
		"gpu01:1:2 [1] NCCL INFO Channel 01/0 : 1[1] -> 9[1] [send] via NET/IB/1\n"
		"loss 0.1\n";
	size_t steps[] = { 1, 2, 7, 64, 4096 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		nccl_scan_t s;
		scan_steps(out, steps[i], &s);
		is_int(s.verdict, NCCL_SOCKET, "socket outweighs IB (pieces of %zu)", steps[i]);
		is_str(s.name, "Socket", "its name (pieces of %zu)", steps[i]);
		is_int(s.tagged, 5, "5 NCCL INFO lines (pieces of %zu)", steps[i]);
		ok(!strncmp(s.line, "NCCL INFO Channel 00/0 : 1[1] -> 9[1]", 36),
		   "evidence from NCCL INFO on: %s", s.line);
	}
	nccl_scan_t s;
	scan_steps("gpu01:1:2 [0] NCCL INFO Using network IB\n", 5, &s);
	is_int(s.verdict, NCCL_FABRIC, "IB alone is the fabric");
	/* a last line without newline counts once the file is finished */
	scan_steps("x\ngpu01:1:2 [0] NCCL INFO Using network Socket", 3, &s);
	is_int(s.verdict, NCCL_NONE, "partial line waits");
	nccl_scan_finish(&s);
	is_int(s.verdict, NCCL_SOCKET, "finished: the partial line counts");
	/* an over-long line is skipped whole, the next one still counts */
	size_t big = NCCL_LINE_MAX * 3;
	char *lng = malloc(big + 200);
	memset(lng, 'a', big);
	strcpy(lng + big, " NCCL INFO Using network Socket\ngpu01:1:2 [0] NCCL INFO Using network IB\n");
	scan_steps(lng, 1000, &s);
	is_int(s.verdict, NCCL_FABRIC, "an over-long line is dropped, the next parsed");
	free(lng);
	/* binary junk in the evidence is made printable */
	scan_steps("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] \x01\xff via NET/Socket/0\n", 4, &s);
	ok(!strchr(s.line, '\x01') && !strchr(s.line, '\xff'), "evidence is printable");

	/* the counters */
	is_int(nccl_counters_verdict(0, 100, 300, 1e6), NCCL_NONE, "too early");
	is_int(nccl_counters_verdict(1000, 300, 300, 1e6), NCCL_SOCKET, "still: 3 B/s");
	is_int(nccl_counters_verdict((uint64_t)3e9, 300, 300, 1e6), NCCL_FABRIC, "busy: 10 MB/s");
	is_int(nccl_counters_verdict((uint64_t)299e6, 300, 300, 1e6), NCCL_SOCKET, "just below");
	is_int(nccl_counters_verdict((uint64_t)300e6, 300, 300, 1e6), NCCL_FABRIC, "at the rate");
	is_int(nccl_counters_verdict(0, 0, 0, 1e6), NCCL_NONE, "no time, no verdict");
	is_str(nccl_source_name(NCCL_SRC_LOG), "log", "source log");
	is_str(nccl_source_name(NCCL_SRC_COUNTERS), "counters", "source counters");

	/* health.conf's nccl line */
	hc_check_t c;
	health_nccl_settings(NULL, &c);
	ok(c.nccl_log && c.nccl_counters && c.nccl_interval == 10 && c.nccl_window == 300 &&
	   c.nccl_min_rate == 1 << 20, "defaults without a line");
	health_conf_t *hc = health_conf_parse("nccl interval=2 window=5 min_rate=100k counters=no\n",
					      "health.conf");
	is_int(hc->nerrors, 0, "nccl line parses");
	health_nccl_settings(hc, &c);
	ok(c.nccl_log && !c.nccl_counters && c.nccl_interval == 2 && c.nccl_window == 5 &&
	   c.nccl_min_rate == 100 * 1024, "settings from the line");
	health_conf_free(hc);
	hc = health_conf_parse("nccl interval=0\nnccl window=x\nnccl log=maybe\nnccl rate=1\n",
			       "health.conf");
	is_int(hc->nerrors, 4, "bad nccl lines are errors");
	if (hc->nerrors == 4) {
		is_str(hc->errors[0], "health.conf:1: interval '0': seconds, 1 to 86400", "interval error");
		is_str(hc->errors[2], "health.conf:3: log 'maybe': yes or no", "log error");
		ok(strstr(hc->errors[3], "'rate' is not a key of check 'nccl'") != NULL, "%s",
		   hc->errors[3]);
	}
	health_conf_free(hc);
	hc = health_conf_parse("gate checks=nccl\n", "health.conf");
	is_int(hc->nerrors, 1, "nccl cannot gate a job");
	health_conf_free(hc);
	return done_testing();
}
