/*
 * http.c: the daemons' GET-only HTTP server (see http.h): libmicrohttpd
 * in external-epoll mode under our event loop, with the limits and the
 * access control of the metrics port.
 *
 * Connections are tracked from MHD's connection notifications in a list
 * (a few dozen at most: max_conns) so that a 1 s tick can cut those past
 * their request deadline: shutdown() of the socket, which MHD then sees as
 * the peer gone and closes on its next run; the descriptor stays MHD's.
 *
 * libmicrohttpd is opened with dlopen() by the first http_start(), not
 * linked: every command is a process of the same binary, and loading it
 * (with GnuTLS, p11-kit and their constructors) cost each process start
 * about 3.5 ms of CPU, several times what sacct -j or sbatch do
 * (docs/benchmarks.md). The MHD_* calls below go through the table.
 */
#include "http.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "xalloc.h"

#define TICK_MS 1000

/* The library's entry points, filled by mhd_load(); each MHD_x used
 * below is a call through mhd.x (the header's declarations stay as they
 * are: the macros come after it). */
static struct mhd_api {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_get_daemon_info) get_daemon_info;
	__typeof__(&MHD_run) run;
	__typeof__(&MHD_get_timeout) get_timeout;
	__typeof__(&MHD_get_connection_info) get_connection_info;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
} mhd;
#define MHD_start_daemon mhd.start_daemon
#define MHD_stop_daemon mhd.stop_daemon
#define MHD_get_daemon_info mhd.get_daemon_info
#define MHD_run mhd.run
#define MHD_get_timeout mhd.get_timeout
#define MHD_get_connection_info mhd.get_connection_info
#define MHD_lookup_connection_value mhd.lookup_connection_value
#define MHD_create_response_from_buffer mhd.create_response_from_buffer
#define MHD_add_response_header mhd.add_response_header
#define MHD_queue_response mhd.queue_response
#define MHD_destroy_response mhd.destroy_response

/* Open libmicrohttpd once (its handle is kept for the process's life).
 * Returns 0, or -1 with *err naming what is missing. Called from the
 * daemon's loop thread only. */
static int mhd_load(char **err)
{
	static void *lib;
	if (lib)
		return 0;
	void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		*err = xasprintf("cannot load libmicrohttpd (package libmicrohttpd12): %s",
				 e ? e : "not found");
		return -1;
	}
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_get_daemon_info", "MHD_run",
		"MHD_get_timeout", "MHD_get_connection_info", "MHD_lookup_connection_value",
		"MHD_create_response_from_buffer", "MHD_add_response_header",
		"MHD_queue_response", "MHD_destroy_response",
	};
	void *fn[sizeof(names) / sizeof(names[0])];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(fn[i] = dlsym(h, names[i]))) {
			*err = xasprintf("libmicrohttpd has no %s", names[i]);
			dlclose(h);
			return -1;
		}
	}
	_Static_assert(sizeof(fn) == sizeof(mhd), "one name per entry point");
	/* POSIX: a function pointer and void * share their representation
	 * (dlsym relies on it) */
	memcpy(&mhd, fn, sizeof(mhd));
	lib = h;
	return 0;
}

typedef struct http_conn {
	struct MHD_Connection *mc;
	int fd;
	uint64_t deadline_ms;      /* loop ms by which a request must be in */
	struct http_conn *prev, *next;
} http_conn_t;

struct http_acl {
	struct acl_ent {
		int family;        /* AF_INET or AF_INET6 */
		unsigned bits;
		uint8_t addr[16];
	} *v;
	size_t n;
};

struct http_server {
	loop_t *loop;
	struct MHD_Daemon *d;
	char *name;
	int epfd;
	uint16_t port;
	unsigned timeout_ms;
	uint64_t mhd_timer, tick_timer;
	http_handler_f cb;
	void *arg;
	char *token;
	size_t token_len;
	http_acl_t *acl;
	http_conn_t *conns;
	http_stats_t stats;
};

/* ---- access control ---- */

void http_acl_free(http_acl_t *a)
{
	if (!a)
		return;
	free(a->v);
	free(a);
}

http_acl_t *http_acl_parse(const char *list, char **err)
{
	http_acl_t *a = xcalloc(1, sizeof(*a));
	size_t alloc = 0;
	const char *p = list ? list : "";
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *item = xstrndup(p, len);
		char *s = item;
		while (*s == ' ')
			s++;
		char *end = s + strlen(s);
		while (end > s && end[-1] == ' ')
			*--end = 0;
		if (*s) {
			struct acl_ent ent = { 0 };
			char *slash = strchr(s, '/');
			long bits = -1;
			if (slash) {
				char *q;
				*slash = 0;
				errno = 0;
				bits = strtol(slash + 1, &q, 10);
				if (!slash[1] || *q || errno || bits < 0)
					bits = 999;
			}
			if (inet_pton(AF_INET, s, ent.addr) == 1) {
				ent.family = AF_INET;
				ent.bits = bits < 0 ? 32 : (unsigned)bits;
			} else if (inet_pton(AF_INET6, s, ent.addr) == 1) {
				ent.family = AF_INET6;
				ent.bits = bits < 0 ? 128 : (unsigned)bits;
			}
			if (!ent.family || ent.bits > (ent.family == AF_INET ? 32u : 128u)) {
				if (slash)
					*slash = '/';
				if (err)
					*err = xasprintf("'%s' is not an address or CIDR (expected e.g. "
							 "10.0.0.0/8 or fd00::/8)", s);
				free(item);
				http_acl_free(a);
				return NULL;
			}
			a->v = xgrow(a->v, sizeof(*a->v), a->n + 1, &alloc);
			a->v[a->n++] = ent;
		}
		free(item);
		p = e ? e + 1 : p + len;
	}
	return a;
}

static int prefix_eq(const uint8_t *x, const uint8_t *y, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	if (memcmp(x, y, whole))
		return 0;
	if (!rest)
		return 1;
	uint8_t mask = (uint8_t)(0xffu << (8 - rest));
	return (x[whole] & mask) == (y[whole] & mask);
}

int http_acl_match(const http_acl_t *a, const void *sa_)
{
	const struct sockaddr *sa = sa_;
	uint8_t v4[4], v6[16];
	int has4 = 0, has6 = 0;
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET) {
		memcpy(v4, &((const struct sockaddr_in *)sa_)->sin_addr, 4);
		has4 = 1;
	} else if (sa->sa_family == AF_INET6) {
		const struct in6_addr *in6 = &((const struct sockaddr_in6 *)sa_)->sin6_addr;
		memcpy(v6, in6, 16);
		has6 = 1;
		if (IN6_IS_ADDR_V4MAPPED(in6)) {
			memcpy(v4, v6 + 12, 4);
			has4 = 1;
		}
	}
	for (size_t i = 0; a && i < a->n; i++) {
		const struct acl_ent *e = &a->v[i];
		if (e->family == AF_INET && has4 && prefix_eq(v4, e->addr, e->bits))
			return 1;
		if (e->family == AF_INET6 && has6 && prefix_eq(v6, e->addr, e->bits))
			return 1;
	}
	return 0;
}

/* ---- token ---- */

char *http_token_read(const char *path, char **err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		*err = xasprintf("cannot open token file '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*err = xasprintf("token file '%s' is not a regular file", path);
		close(fd);
		return NULL;
	}
	if (st.st_mode & 077) {
		*err = xasprintf("token file '%s' is mode %04o, readable by group or others: "
				 "chmod 600 %s", path, (unsigned)(st.st_mode & 07777), path);
		close(fd);
		return NULL;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		*err = xasprintf("token file '%s' belongs to uid %u, not to this daemon's user or root",
				 path, (unsigned)st.st_uid);
		close(fd);
		return NULL;
	}
	char buf[4097];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		*err = xasprintf("cannot read token file '%s': %s", path, strerror(errno));
		return NULL;
	}
	if ((size_t)n == sizeof(buf)) {
		*err = xasprintf("token file '%s' is longer than 4096 bytes", path);
		return NULL;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		n--;
	buf[n] = 0;
	if (!n || memchr(buf, '\n', (size_t)n) || memchr(buf, 0, (size_t)n)) {
		*err = xasprintf("token file '%s' must hold one non-empty line", path);
		return NULL;
	}
	return xstrndup(buf, (size_t)n);
}

/* Constant time in the length of the presented value. */
static int token_ok(const http_server_t *s, const char *hdr)
{
	static const char scheme[] = "Bearer ";
	if (!hdr || strncasecmp(hdr, scheme, sizeof(scheme) - 1))
		return 0;
	const char *t = hdr + sizeof(scheme) - 1;
	size_t len = strlen(t);
	unsigned diff = len != s->token_len;
	for (size_t i = 0; i < len; i++)
		diff |= (unsigned char)t[i] ^ (unsigned char)s->token[i % s->token_len];
	return diff == 0;
}

/* ---- the loop side ---- */

static void mhd_run(http_server_t *s);

static void mhd_timer_cb(loop_t *l, void *arg)
{
	http_server_t *s = arg;
	s->mhd_timer = 0;
	mhd_run(s);
	(void)l;
}

static void epoll_cb(loop_t *l, int fd, uint32_t events, void *arg)
{
	mhd_run(arg);
	(void)l; (void)fd; (void)events;
}

/* Run MHD, then re-arm the timer at what MHD asks for (at most a tick
 * away, so its own idle timeouts are enforced). */
static void mhd_run(http_server_t *s)
{
	MHD_run(s->d);
	MHD_UNSIGNED_LONG_LONG to = 0;
	uint64_t ms = TICK_MS;
	if (MHD_get_timeout(s->d, &to) == MHD_YES && to < ms)
		ms = to;
	if (s->mhd_timer)
		loop_cancel_timer(s->loop, s->mhd_timer);
	s->mhd_timer = loop_add_timer(s->loop, ms, mhd_timer_cb, s);
}

/* Every second: cut connections past their request deadline. */
static void tick_cb(loop_t *l, void *arg)
{
	http_server_t *s = arg;
	uint64_t now = loop_now_ms(l);
	for (http_conn_t *c = s->conns; c; c = c->next)
		if (c->deadline_ms && now >= c->deadline_ms && c->fd >= 0) {
			shutdown(c->fd, SHUT_RDWR);
			c->deadline_ms = 0;    /* once */
			s->stats.timed_out++;
		}
	s->tick_timer = loop_add_timer(l, TICK_MS, tick_cb, s);
}

static void notify_cb(void *cls, struct MHD_Connection *mc, void **socket_ctx,
		      enum MHD_ConnectionNotificationCode toe)
{
	http_server_t *s = cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		http_conn_t *c = xcalloc(1, sizeof(*c));
		c->mc = mc;
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
		c->fd = ci ? ci->connect_fd : -1;
		c->deadline_ms = loop_now_ms(s->loop) + s->timeout_ms;
		c->next = s->conns;
		if (s->conns)
			s->conns->prev = c;
		s->conns = c;
		*socket_ctx = c;
		s->stats.conns++;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		http_conn_t *c = *socket_ctx;
		if (!c)
			return;
		if (c->prev)
			c->prev->next = c->next;
		else
			s->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		free(c);
		*socket_ctx = NULL;
		s->stats.conns--;
	}
}

static enum MHD_Result send_text(struct MHD_Connection *mc, unsigned status, const char *text,
				 const char *hname, const char *hval)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (hname)
		MHD_add_response_header(r, hname, hval);
	enum MHD_Result rc = MHD_queue_response(mc, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* Push the connection's deadline past the response: the next request on
 * it gets timeout_ms again. */
static void conn_answered(http_server_t *s, struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	http_conn_t *c = ci ? ci->socket_context : NULL;
	if (c)
		c->deadline_ms = loop_now_ms(s->loop) + s->timeout_ms;
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *mc, const char *url,
				 const char *method, const char *version, const char *upload,
				 size_t *upload_size, void **req_ctx)
{
	http_server_t *s = cls;
	(void)version; (void)upload;
	/* A second call only happens for a request with a body we refused
	 * on the first: drop what is uploaded. */
	if (*req_ctx) {
		*upload_size = 0;
		return MHD_YES;
	}
	*req_ctx = s;
	conn_answered(s, mc);
	if (s->acl) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (!ci || !http_acl_match(s->acl, ci->client_addr)) {
			s->stats.refused_addr++;
			return send_text(mc, MHD_HTTP_FORBIDDEN, "403 forbidden: address not allowed\n",
					 NULL, NULL);
		}
	}
	if (s->token && !token_ok(s, MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
								  MHD_HTTP_HEADER_AUTHORIZATION))) {
		s->stats.refused_token++;
		return send_text(mc, MHD_HTTP_UNAUTHORIZED, "401 unauthorized: bearer token required\n",
				 MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		s->stats.refused_method++;
		return send_text(mc, MHD_HTTP_METHOD_NOT_ALLOWED, "405 method not allowed: GET only\n",
				 MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	}
	const char *cl = MHD_lookup_connection_value(mc, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);
	if ((cl && strcmp(cl, "0")) ||
	    MHD_lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		s->stats.refused_method++;
		return send_text(mc, MHD_HTTP_CONTENT_TOO_LARGE,
				 "413 request body not accepted\n", MHD_HTTP_HEADER_CONNECTION, "close");
	}
	http_reply_t rep = { .status = 200, .content_type = "text/plain; charset=utf-8" };
	strbuf_init(&rep.body);
	char *path = xstrdup(url);
	char *q = strchr(path, '?');
	if (q)
		*q = 0;
	s->cb(s->arg, path, &rep);
	free(path);
	s->stats.requests++;
	size_t len = rep.body.len;
	char *body = strbuf_detach(&rep.body);
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rep.content_type);
	enum MHD_Result rc = MHD_queue_response(mc, (unsigned)rep.status, r);
	MHD_destroy_response(r);
	return rc;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	http_server_t *s = cls;
	char *msg = xvasprintf(fmt, ap);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = 0;
	verbose("%s: %s", s->name, msg);
	free(msg);
}

static void server_free(http_server_t *s)
{
	if (!s)
		return;
	free(s->name);
	if (s->token) {
		explicit_bzero(s->token, s->token_len);
		free(s->token);
	}
	http_acl_free(s->acl);
	free(s);
}

http_server_t *http_start(loop_t *l, const http_opts_t *o, http_handler_f cb, void *arg,
			  char **err)
{
	char *le = NULL;
	if (mhd_load(&le)) {
		*err = xasprintf("%s: %s", o->name ? o->name : "http", le);
		free(le);
		return NULL;
	}
	http_server_t *s = xcalloc(1, sizeof(*s));
	s->loop = l;
	s->cb = cb;
	s->arg = arg;
	s->name = xstrdup(o->name ? o->name : "http");
	s->timeout_ms = o->timeout_ms ? o->timeout_ms : 10000;
	unsigned max_conns = o->max_conns ? o->max_conns : 64;
	unsigned per_ip = o->per_ip ? o->per_ip : (max_conns / 4 ? max_conns / 4 : 1);
	size_t max_req = o->max_request ? o->max_request : 16384;
	if (o->allow && *o->allow) {
		char *e = NULL;
		if (!(s->acl = http_acl_parse(o->allow, &e))) {
			*err = xasprintf("%s: allowed addresses: %s", s->name, e);
			free(e);
			server_free(s);
			return NULL;
		}
	}
	if (o->token_file && *o->token_file) {
		char *e = NULL;
		if (!(s->token = http_token_read(o->token_file, &e))) {
			*err = xasprintf("%s: %s", s->name, e);
			free(e);
			server_free(s);
			return NULL;
		}
		s->token_len = strlen(s->token);
	}
	/* The address: numeric only (no resolver at start-up either). */
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	if (o->addr && *o->addr) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		const char *a = o->addr;
		char *tmp = NULL;
		if (a[0] == '[' && a[strlen(a) - 1] == ']')
			a = tmp = xstrndup(a + 1, strlen(a) - 2);
		if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
			s4->sin_family = AF_INET;
			s4->sin_port = htons(o->port);
		} else if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons(o->port);
			flags |= MHD_USE_IPv6;
		} else {
			*err = xasprintf("%s: '%s' is not a numeric IPv4 or IPv6 address", s->name,
					 o->addr);
			free(tmp);
			server_free(s);
			return NULL;
		}
		free(tmp);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(o->port);
	}
	errno = 0;
	s->d = MHD_start_daemon(flags, o->port, NULL, NULL, access_cb, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, max_conns,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
				MHD_OPTION_CONNECTION_TIMEOUT, (s->timeout_ms + 999) / 1000,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, max_req,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, 1,
				MHD_OPTION_NOTIFY_CONNECTION, notify_cb, s,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
				MHD_OPTION_END);
	if (!s->d) {
		int e = errno;
		*err = xasprintf("%s: cannot listen on %s:%u: %s", s->name,
				 o->addr && *o->addr ? o->addr : "*", (unsigned)o->port,
				 e ? strerror(e) : "libmicrohttpd refused to start");
		server_free(s);
		return NULL;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
	s->epfd = di ? di->epoll_fd : -1;
	di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = di ? di->port : o->port;
	if (s->epfd < 0 || loop_add_fd(l, s->epfd, LOOP_READ, epoll_cb, s)) {
		*err = xasprintf("%s: cannot watch libmicrohttpd's epoll descriptor", s->name);
		MHD_stop_daemon(s->d);
		server_free(s);
		return NULL;
	}
	s->tick_timer = loop_add_timer(l, TICK_MS, tick_cb, s);
	mhd_run(s);
	return s;
}

void http_stop(http_server_t *s)
{
	if (!s)
		return;
	loop_del_fd(s->loop, s->epfd);
	if (s->mhd_timer)
		loop_cancel_timer(s->loop, s->mhd_timer);
	if (s->tick_timer)
		loop_cancel_timer(s->loop, s->tick_timer);
	MHD_stop_daemon(s->d);   /* closes every connection (notify frees them) */
	server_free(s);
}

uint16_t http_port(const http_server_t *s)
{
	return s->port;
}

const http_stats_t *http_get_stats(const http_server_t *s)
{
	return &s->stats;
}
