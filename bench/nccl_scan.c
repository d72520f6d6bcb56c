/*
 * nccl_scan: the cost of the NCCL transport check's reading of a job's
 * output (src/lib/nccl_log.c), fed as the batch supervisor feeds it
 * (64 KiB pieces). Two synthetic outputs of 64 MiB: plain training lines
 * (no NCCL tag: the common case after a job's start) and the same with an
 * NCCL INFO channel line every 50 lines (a chatty NCCL_DEBUG=INFO run).
 *
 *   nccl_scan [--mib N] [--iter N]
 *
 * Prints key=value lines (nccl_scan_*): MiB per second (best of --iter)
 * and the CPU time of one look at its 1 MiB cap.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nccl_log.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *make_output(size_t size, int every, size_t *len)
{
	char *b = malloc(size + 256);
	size_t o = 0;
	for (int i = 0; o + 200 < size; i++) {
		if (every && i % every == every - 1)
			o += (size_t)sprintf(b + o, "gpu01:1234:1250 [%d] NCCL INFO Channel %02d/0 : "
					     "0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n", i % 8, i % 32);
		else
			o += (size_t)sprintf(b + o, "step %d loss 0.%06d lr 3.0e-04 throughput "
					     "1234.5 samples/s\n", i, i % 1000000);
	}
	*len = o;
	return b;
}

static double run(const char *b, size_t len, int iter)
{
	double best = 1e30;
	for (int k = 0; k < iter; k++) {
		nccl_scan_t s;
		nccl_scan_init(&s);
		double t0 = now_s();
		for (size_t p = 0; p < len; p += 65536)
			nccl_scan_feed(&s, b + p, len - p < 65536 ? len - p : 65536);
		double t = now_s() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	int mib = 64, iter = 3;
	static const struct option lo[] = { { "mib", 1, NULL, 'm' }, { "iter", 1, NULL, 'i' },
					    { NULL, 0, NULL, 0 } };
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'm')
			mib = atoi(optarg);
		else if (c == 'i')
			iter = atoi(optarg);
		else
			return 2;
	}
	if (mib < 1 || iter < 1)
		return 2;
	const struct { const char *name; int every; } kinds[] = { { "plain", 0 }, { "chatty", 50 } };
	for (size_t k = 0; k < 2; k++) {
		size_t len;
		char *b = make_output((size_t)mib << 20, kinds[k].every, &len);
		double t = run(b, len, iter);
		double mibs = (double)len / 1048576.0 / t;
		printf("nccl_scan_%s_mib_per_s=%.0f\n", kinds[k].name, mibs);
		printf("nccl_scan_%s_ms_per_look=%.2f\n", kinds[k].name, 1000.0 / mibs);
		free(b);
	}
	return 0;
}
