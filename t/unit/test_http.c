/* test_http: the daemons' HTTP server (lib/http.c) under our event loop:
 * routing and the handler's reply, GET only and no body, the request size
 * cap, the request deadline against a slow client, the per-address
 * connection cap, the allow-list (403) and the bearer token (401), token
 * file modes, and allow-list parsing. A client thread makes raw requests
 * while the main thread runs the loop. */
#include "tap.h"
#include "http.h"
#include "log.h"
#include "loop.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static void handler(void *arg, const char *path, http_reply_t *r)
{
	int *calls = arg;
	(*calls)++;
	if (!strcmp(path, "/metrics")) {
		strbuf_addstr(&r->body, "hello 1\n");
		r->content_type = "text/plain; version=0.0.4; charset=utf-8";
	} else {
		r->status = 404;
		strbuf_addstr(&r->body, "not found\n");
	}
}

static int connect_from(const char *src, uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET };
	if (src) {
		inet_pton(AF_INET, src, &sa.sin_addr);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			return -1;
		}
	}
	sa.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	struct timeval tv = { .tv_sec = 5 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Read until EOF; the status code, 0 for a connection closed without an
 * answer, -1 for a timeout. */
static int read_reply(int fd, char *out, size_t outsz)
{
	size_t n = 0;
	for (;;) {
		ssize_t r = recv(fd, out + n, outsz - 1 - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -1;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == outsz - 1)
			break;
	}
	out[n] = 0;
	int code = 0;
	if (sscanf(out, "HTTP/1.%*d %d", &code) != 1)
		return 0;
	return code;
}

static int request(const char *src, uint16_t port, const char *raw, char *out, size_t outsz)
{
	int fd = connect_from(src, port);
	if (fd < 0)
		return -2;
	size_t len = strlen(raw);
	if (send(fd, raw, len, MSG_NOSIGNAL) != (ssize_t)len) {
		close(fd);
		return 0;
	}
	int code = read_reply(fd, out, outsz);
	close(fd);
	return code;
}

static int get(const char *src, uint16_t port, const char *path, const char *extra)
{
	char raw[1024], out[8192];
	snprintf(raw, sizeof(raw), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s\r\n",
		 path, extra ? extra : "");
	return request(src, port, raw, out, sizeof(out));
}

typedef struct client {
	uint16_t port_a, port_b;
	int done_fd;
	/* results */
	int r_ok, r_query, r_404, r_post, r_body, r_huge, r_head;
	char body[8192];
	int slow_closed, slow_ms;
	int cap_refused, cap_other_ip;
	int b_addr, b_none, b_wrong, b_right;
} client_t;

static uint64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *client_main(void *arg)
{
	client_t *c = arg;
	uint16_t pa = c->port_a, pb = c->port_b;
	char out[8192];
	c->r_ok = request(NULL, pa, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
			  c->body, sizeof(c->body));
	c->r_query = get(NULL, pa, "/metrics?x=1", NULL);
	c->r_404 = get(NULL, pa, "/nope", NULL);
	c->r_head = request(NULL, pa, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
			    out, sizeof(out));
	c->r_post = request(NULL, pa, "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			    "Content-Length: 0\r\n\r\n", out, sizeof(out));
	c->r_body = request(NULL, pa, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			    "Content-Length: 5\r\n\r\nhello", out, sizeof(out));
	{
		char *big = xmalloc(20000);
		strcpy(big, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
		size_t n = strlen(big);
		memset(big + n, 'a', 12000);
		strcpy(big + n + 12000, "\r\nConnection: close\r\n\r\n");
		c->r_huge = request(NULL, pa, big, out, sizeof(out));
		free(big);
	}
	/* A client that trickles its request is cut at the deadline (1 s). */
	{
		int fd = connect_from(NULL, pa);
		uint64_t t0 = ms_now();
		const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
		int code = -1;
		for (size_t i = 0; req[i] && ms_now() - t0 < 4000; i++) {
			if (send(fd, req + i, 1, MSG_NOSIGNAL) != 1) {
				code = 0;
				break;
			}
			usleep(150000);
		}
		if (code)
			code = read_reply(fd, out, sizeof(out));
		c->slow_ms = (int)(ms_now() - t0);
		c->slow_closed = code == 0;
		close(fd);
	}
	/* Per-address cap (4): a fifth connection from 127.0.0.1 is refused,
	 * another address is still served. */
	{
		int fds[4];
		for (int i = 0; i < 4; i++)
			fds[i] = connect_from(NULL, pa);
		usleep(200000);
		c->cap_refused = get(NULL, pa, "/metrics", NULL);
		c->cap_other_ip = get("127.0.0.2", pa, "/metrics", NULL);
		for (int i = 0; i < 4; i++)
			close(fds[i]);
	}
	/* Server B: allow 127.0.0.2 only, token "s3cret". */
	c->b_addr = get(NULL, pb, "/metrics", "Authorization: Bearer s3cret\r\n");
	c->b_none = get("127.0.0.2", pb, "/metrics", NULL);
	c->b_wrong = get("127.0.0.2", pb, "/metrics", "Authorization: Bearer s3cre\r\n");
	c->b_right = get("127.0.0.2", pb, "/metrics", "Authorization: Bearer s3cret\r\n");
	(void)!write(c->done_fd, "x", 1);
	return NULL;
}

static void done_cb(loop_t *l, int fd, uint32_t ev, void *arg)
{
	loop_stop(l);
	(void)fd; (void)ev; (void)arg;
}

static void test_server(void)
{
	char dir[] = "/tmp/test_http.XXXXXX";
	ok(mkdtemp(dir) != NULL, "temp dir");
	char *tok = xasprintf("%s/token", dir);
	int fd = open(tok, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	(void)!write(fd, "s3cret\n", 7);
	close(fd);

	loop_t *l = loop_create();
	int calls = 0;
	char *err = NULL;
	http_opts_t oa = { .name = "test a", .addr = "127.0.0.1", .timeout_ms = 1000,
			   .max_conns = 16, .per_ip = 4, .max_request = 4096 };
	http_server_t *a = http_start(l, &oa, handler, &calls, &err);
	ok(a && http_port(a) > 0, "server a listens on a free port (%s)", err ? err : "ok");
	free(err);
	err = NULL;

	http_opts_t ob = { .name = "test b", .addr = "127.0.0.1", .token_file = tok,
			   .allow = "127.0.0.2/32" };
	http_server_t *b = http_start(l, &ob, handler, &calls, &err), *b2;
	ok(!b && err && strstr(err, "chmod 600"), "a token file readable by others is refused: %s",
	   err ? err : "(no error)");
	free(err);
	err = NULL;
	chmod(tok, 0600);
	b = http_start(l, &ob, handler, &calls, &err);
	ok(b != NULL, "server b starts once the token file is 0600 (%s)", err ? err : "ok");
	free(err);
	err = NULL;
	ob.allow = "127.0.0.1,10.0.0.0/33";
	b2 = http_start(l, &ob, handler, &calls, &err);
	ok(!b2 && err && strstr(err, "10.0.0.0/33"), "a bad allow-list entry is named: %s",
	   err ? err : "(none)");
	free(err);
	err = NULL;
	ob.allow = NULL;
	ob.addr = "localhost";
	b2 = http_start(l, &ob, handler, &calls, &err);
	ok(!b2 && err && strstr(err, "numeric"), "a host name as address is refused: %s",
	   err ? err : "(none)");
	free(err);
	err = NULL;

	int pfd[2];
	(void)!pipe(pfd);
	client_t c = { .port_a = http_port(a), .port_b = b ? http_port(b) : 1, .done_fd = pfd[1] };
	loop_add_fd(l, pfd[0], LOOP_READ, done_cb, NULL);
	pthread_t th;
	pthread_create(&th, NULL, client_main, &c);
	loop_run(l);
	pthread_join(th, NULL);

	is_int(c.r_ok, 200, "GET /metrics: 200");
	ok(strstr(c.body, "\r\n\r\nhello 1\n") && strstr(c.body, "version=0.0.4"),
	   "the handler's body and content type are sent");
	is_int(c.r_query, 200, "a query string is ignored for routing");
	is_int(c.r_404, 404, "the handler's status (404)");
	is_int(c.r_head, 200, "HEAD is answered");
	is_int(c.r_post, 405, "POST: 405");
	is_int(c.r_body, 413, "a request with a body: 413");
	ok(c.r_huge == 431 || c.r_huge == 414 || c.r_huge == 0,
	   "a request over the size cap is refused (%d)", c.r_huge);
	ok(c.slow_closed && c.slow_ms >= 900 && c.slow_ms < 4000,
	   "a trickled request is cut at its deadline (%d ms)", c.slow_ms);
	ok(http_get_stats(a)->timed_out >= 1, "the cut is counted");
	ok(c.cap_refused <= 0, "a fifth connection from one address is refused (%d)", c.cap_refused);
	is_int(c.cap_other_ip, 200, "another address is still served");
	is_int(c.b_addr, 403, "an address outside the allow-list: 403");
	is_int(c.b_none, 401, "no token: 401");
	is_int(c.b_wrong, 401, "a wrong token: 401");
	is_int(c.b_right, 200, "the right token: 200");
	ok(b && http_get_stats(b)->refused_addr == 1 && http_get_stats(b)->refused_token == 2,
	   "refusals are counted");
	http_stop(a);
	http_stop(b);
	loop_destroy(l);
	close(pfd[0]);
	close(pfd[1]);
	unlink(tok);
	rmdir(dir);
	free(tok);
}

static void test_acl(void)
{
	char *err = NULL;
	http_acl_t *a = http_acl_parse("10.0.0.0/8, 192.168.1.5 ,fd00::/8,::1", &err);
	ok(a != NULL, "allow-list parses");
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	inet_pton(AF_INET, "10.200.3.4", &s4.sin_addr);
	ok(http_acl_match(a, &s4), "10.200.3.4 in 10.0.0.0/8");
	inet_pton(AF_INET, "11.0.0.1", &s4.sin_addr);
	ok(!http_acl_match(a, &s4), "11.0.0.1 not allowed");
	inet_pton(AF_INET, "192.168.1.5", &s4.sin_addr);
	ok(http_acl_match(a, &s4), "a single address");
	inet_pton(AF_INET, "192.168.1.6", &s4.sin_addr);
	ok(!http_acl_match(a, &s4), "its neighbour is not");
	inet_pton(AF_INET6, "::ffff:10.1.1.1", &s6.sin6_addr);
	ok(http_acl_match(a, &s6), "an IPv4-mapped IPv6 address matches the IPv4 entry");
	inet_pton(AF_INET6, "fd12::1", &s6.sin6_addr);
	ok(http_acl_match(a, &s6), "IPv6 prefix");
	inet_pton(AF_INET6, "fe80::1", &s6.sin6_addr);
	ok(!http_acl_match(a, &s6), "other IPv6 not allowed");
	http_acl_free(a);
	a = http_acl_parse("10.0.0.0/12", &err);
	inet_pton(AF_INET, "10.15.255.255", &s4.sin_addr);
	ok(a && http_acl_match(a, &s4), "/12 includes 10.15.255.255");
	inet_pton(AF_INET, "10.16.0.0", &s4.sin_addr);
	ok(a && !http_acl_match(a, &s4), "/12 excludes 10.16.0.0");
	http_acl_free(a);
	const char *bad[] = { "foo", "10.0.0.0/33", "10.0.0.0/", "::/129", "1.2.3.4/x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		http_acl_t *x = http_acl_parse(bad[i], &err);
		ok(!x && err, "'%s' refused: %s", bad[i], err ? err : "");
		free(err);
	}
}

int main(void)
{
	log_init("test_http", 0, LOG_LVL_ERROR, NULL);
	test_acl();
	test_server();
	return done_testing();
}
