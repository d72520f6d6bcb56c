/*
 * metrics_scrape: the cost of the controller's /metrics at scale.
 *
 * Builds a controller state in memory (t/unit/ctld_fixture.h) with NODES
 * nodes (8 CPUs, 8 GPUs each) and JOBS jobs of 1,000 users in 200 accounts
 * (half running, one CPU and one GPU each, as many as fit; a third of the
 * rest pending on Resources, Priority or held; the rest completed), then
 *   1. renders /metrics REPS times in-process: median and max time, size;
 *   2. serves it for real (lib/http.c on loopback, the controller's loop
 *      with a 1 ms timer standing in for other work) and scrapes it REPS
 *      times over HTTP from a client thread: median and max wall time per
 *      scrape, and the loop's longest turn while the scrapes ran.
 * Prints key=value lines (bench/results/README.md).
 *
 * usage: metrics_scrape [NODES [JOBS [REPS]]]   (default 10000 100000 20)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../t/unit/ctld_fixture.h"
#include "log.h"

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* CPU time of the calling thread: on a loaded machine wall time measures
 * the machine, this measures the work. */
static uint64_t cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

typedef struct client {
	uint16_t port;
	int reps, done_fd;
	uint64_t *wall_us;
	size_t bytes;
	int failed;
} client_t;

static void *client_main(void *arg)
{
	client_t *c = arg;
	size_t cap = 64u << 20;
	char *buf = xmalloc(cap);
	for (int r = 0; r < c->reps; r++) {
		uint64_t t0 = now_us();
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(c->port) };
		inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			c->failed++;
			close(fd);
			continue;
		}
		const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
		(void)!write(fd, req, strlen(req));
		size_t n = 0;
		ssize_t k;
		while ((k = read(fd, buf + n, cap - n)) > 0)
			n += (size_t)k;
		close(fd);
		c->wall_us[r] = now_us() - t0;
		c->bytes = n;
		if (n < 100 || strncmp(buf, "HTTP/1.1 200", 12))
			c->failed++;
	}
	free(buf);
	(void)!write(c->done_fd, "x", 1);
	return NULL;
}

static void done_cb(loop_t *l, int fd, uint32_t ev, void *arg)
{
	loop_stop(l);
	(void)fd; (void)ev; (void)arg;
}

static void busy_cb(loop_t *l, void *arg)
{
	loop_add_timer(l, 1, busy_cb, arg);
}

static uint64_t max_turn;
static void turn_cb(loop_t *l, uint64_t us, void *arg)
{
	if (us > max_turn)
		max_turn = us;
	(void)l; (void)arg;
}

int main(int argc, char **argv)
{
	uint32_t nnodes = argc > 1 ? (uint32_t)atoi(argv[1]) : 10000;
	uint32_t njobs = argc > 2 ? (uint32_t)atoi(argv[2]) : 100000;
	int reps = argc > 3 ? atoi(argv[3]) : 20;
	log_init("metrics_scrape", 0, LOG_LVL_ERROR, NULL);
	char dir[] = "/tmp/metrics_scrape.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	/* The fixture's config plus the metrics keys (port 0: any free one). */
	ctld_t *cd = fixture_ctld(dir, nnodes,
				  "MetricsType=metrics/openmetrics\nMetricsPort=0\nMetricsAddress=127.0.0.1\n");

	uint64_t t0 = now_us();
	uint32_t running = njobs / 2, cap = nnodes * 8;
	if (running > cap)
		running = cap;
	char users[1000][16], accts[200][16];
	for (int i = 0; i < 1000; i++)
		snprintf(users[i], sizeof(users[i]), "user%03d", i);
	for (int i = 0; i < 200; i++)
		snprintf(accts[i], sizeof(accts[i]), "acct%03d", i);
	for (uint32_t i = 0; i < njobs; i++) {
		uint32_t u = i % 1000, a = u % 200, part = i % 3 == 0 ? 1 : 0;
		if (i < running) {
			uint32_t node = i % nnodes, slot = i / nnodes;
			fixture_job(cd, JOB_RUNNING, 10000 + u, users[u], accts[a], part, node, 1, 1ull << slot);
		} else if (i < running + (njobs - running) * 2 / 3) {
			job_t *j = fixture_job(cd, JOB_PENDING, 10000 + u, users[u], accts[a], part, 0, 0, 0);
			j->reason = i % 3 == 0 ? WAIT_PRIORITY : WAIT_RESOURCES;
			if (i % 10 == 0)
				j->hold = WAIT_HELD_USER, j->reason = WAIT_HELD_USER;
		} else {
			fixture_job(cd, JOB_COMPLETE, 10000 + u, users[u], accts[a], part, 0, 0, 0);
		}
	}
	/* A few drained and down nodes. */
	for (uint32_t i = 0; i < nnodes; i += 97) {
		cd->nodes[i].flags |= NODE_FLAG_DRAIN;
		cd->nodes[i].reason = xstrdup("bench drain");
	}
	printf("nodes=%u\njobs=%zu\njobs_running=%u\nbuild_s=%.2f\n", cd->nnodes, cd->njobs, running,
	       (double)(now_us() - t0) / 1e6);

	/* 1. In-process rendering. */
	uint64_t *us = xcalloc((size_t)reps, sizeof(uint64_t));
	uint64_t *cpu = xcalloc((size_t)reps, sizeof(uint64_t));
	size_t bytes = 0;
	for (int r = 0; r < reps; r++) {
		strbuf_t sb = STRBUF_INIT;
		uint64_t a = now_us(), b = cpu_us();
		ctld_metrics_render(cd, NULL, &sb);
		us[r] = now_us() - a;
		cpu[r] = cpu_us() - b;
		bytes = sb.len;
		strbuf_release(&sb);
	}
	qsort(us, (size_t)reps, sizeof(uint64_t), cmp_u64);
	qsort(cpu, (size_t)reps, sizeof(uint64_t), cmp_u64);
	printf("render_ms_median=%.1f\nrender_ms_min=%.1f\nrender_ms_max=%.1f\nrender_cpu_ms_min=%.1f\nrender_cpu_ms_median=%.1f\n"
	       "render_cpu_ms_max=%.1f\nmetrics_bytes=%zu\n", us[reps / 2] / 1e3, us[0] / 1e3,
	       us[reps - 1] / 1e3, cpu[0] / 1e3, cpu[reps / 2] / 1e3, cpu[reps - 1] / 1e3, bytes);

	/* 2. Over HTTP, through the controller's code path and loop. */
	cd->loop = loop_create();
	char *err = NULL;
	if (ctld_metrics_start(cd, &err)) {
		fprintf(stderr, "metrics_scrape: %s\n", err);
		return 1;
	}
	loop_set_turn_hook(cd->loop, turn_cb, NULL);
	loop_add_timer(cd->loop, 1, busy_cb, NULL);
	int pfd[2];
	(void)!pipe(pfd);
	loop_add_fd(cd->loop, pfd[0], LOOP_READ, done_cb, NULL);
	client_t c = { .port = http_port(cd->mstats.http), .reps = reps, .done_fd = pfd[1],
		       .wall_us = xcalloc((size_t)reps, sizeof(uint64_t)) };
	pthread_t th;
	max_turn = 0;
	pthread_create(&th, NULL, client_main, &c);
	loop_run(cd->loop);
	pthread_join(th, NULL);
	qsort(c.wall_us, (size_t)reps, sizeof(uint64_t), cmp_u64);
	printf("scrape_ms_min=%.1f\n", c.wall_us[0] / 1e3);
	printf("scrape_ms_median=%.1f\nscrape_ms_max=%.1f\nscrape_http_bytes=%zu\n"
	       "loop_max_turn_ms_during_scrapes=%.1f\nscrape_failures=%d\n",
	       c.wall_us[reps / 2] / 1e3, c.wall_us[reps - 1] / 1e3, c.bytes, max_turn / 1e3, c.failed);
	char *rm = xasprintf("rm -rf %s", dir);
	(void)!system(rm);
	return c.failed ? 1 : 0;
}
