/*
 * rpc_client: the blocking client side of the protocol (rpc_*, see net.h):
 * what the commands and srun use to talk to the controller and the node
 * daemons. Non-blocking fds driven by poll() with a deadline, so every
 * call is bounded by MessageTimeout. Replies are not authenticated by the
 * client: it chose the peer it connected to, and the expensive part of a
 * big reply (squeue) should not be hashed twice.
 */
#include "net.h"
#include "net_int.h"
#include "errors.h"
#include "log.h"
#include "proto_schema.h"
#include "xalloc.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK (64u << 10)

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (0 = none: -1, wait forever). */
static int ms_left(uint64_t deadline)
{
	if (!deadline)
		return -1;
	uint64_t n = now_ms();
	if (n >= deadline)
		return 0;
	return deadline - n > 0x7fffffff ? 0x7fffffff : (int)(deadline - n);
}

/* ---- client side ---- */

struct rpc {
	int fd;
	int sign;                /* TCP with a usable key: sign frames */
	int timeout_ms;          /* MessageTimeout, for sends */
	auth_t *auth;            /* owned, may be NULL */
	strbuf_t in;
	size_t in_off;
};

static int conf_timeout_ms(const conf_t *conf)
{
	uint32_t s = conf && conf->message_timeout ? conf->message_timeout : 10;
	return (int)(s > 86400 ? 86400000 : s * 1000);
}

static rpc_t *rpc_new(const conf_t *conf, int fd, auth_t *a, int sign)
{
	rpc_t *r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->auth = a;
	r->sign = sign && a && auth_can_sign(a);
	r->timeout_ms = conf_timeout_ms(conf);
	strbuf_init(&r->in);
	net_set_nonblock(fd);
	return r;
}

rpc_t *rpc_from_fd(const conf_t *conf, int fd)
{
	auth_t *a = NULL;
	if (conf) {
		char *err = NULL;
		a = auth_create(conf, &err);
		if (!a)
			debug("auth: %s", err ? err : "unavailable");
		free(err);
	}
	return rpc_new(conf, fd, a, 1);
}

void rpc_close(rpc_t *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	auth_destroy(r->auth);
	strbuf_release(&r->in);
	free(r);
}

int rpc_fd(const rpc_t *r)
{
	return r->fd;
}

/* Connect fd to sa with a timeout. 0 or -1 with errno. */
static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t salen, int timeout_ms)
{
	net_set_nonblock(fd);
	if (connect(fd, sa, salen) == 0)
		return 0;
	if (errno != EINPROGRESS && errno != EAGAIN)
		return -1;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int n;
	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (n < 0)
		return -1;
	int e = 0;
	socklen_t el = sizeof(e);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		return -1;
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* TCP connect to host:port trying every address. fd or -1 (errno). */
static int tcp_connect(const char *host, uint16_t port, int timeout_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char ps[16];
	snprintf(ps, sizeof(ps), "%u", port);
	int gr = getaddrinfo(host, ps, &hints, &res);
	if (gr) {
		debug("unable to resolve '%s': %s", host, gai_strerror(gr));
		errno = EHOSTUNREACH;
		return -1;
	}
	int fd = -1, e = ECONNREFUSED;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect_timeout(fd, ai->ai_addr, ai->ai_addrlen, timeout_ms) == 0) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			break;
		}
		e = errno;
		debug("connect to %s:%u: %s", host, port, strerror(e));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		errno = e;
	return fd;
}

static int unix_connect(const char *path, int timeout_ms)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect_timeout(fd, (struct sockaddr *)&sun, sizeof(sun), timeout_ms) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

rpc_t *rpc_connect_addr(const conf_t *conf, const char *host, uint16_t port, int *err)
{
	char *aerr = NULL;
	auth_t *a = conf ? auth_create(conf, &aerr) : NULL;
	if (conf && !a)
		debug("auth: %s", aerr ? aerr : "unavailable");
	free(aerr);
	int fd = tcp_connect(host, port, conf_timeout_ms(conf));
	if (fd < 0) {
		auth_destroy(a);
		if (err)
			*err = errno == ETIMEDOUT ? SLUICE_E_TIMEOUT : SLUICE_E_CONNECT;
		return NULL;
	}
	return rpc_new(conf, fd, a, 1);
}

rpc_t *rpc_connect_ctld(const conf_t *conf, int *err)
{
	char *aerr = NULL;
	auth_t *a = auth_create(conf, &aerr);
	int tmo = conf_timeout_ms(conf);
	int fd = -1, e = ECONNREFUSED;

	if (!a)
		debug("auth: %s", aerr ? aerr : "unavailable");
	free(aerr);
	if (!conf) {
		if (err)
			*err = SLUICE_E_CONNECT;
		auth_destroy(a);
		return NULL;
	}

	const char *over = getenv("SLUICE_CTLD_ADDR");
	if (over && *over) {
		/* host:port, or [v6]:port */
		char *h = xstrdup(over);
		char *colon = strrchr(h, ':');
		char *host = h;
		long port = colon ? strtol(colon + 1, NULL, 10) : 0;
		if (colon)
			*colon = '\0';
		if (*host == '[' && host[strlen(host) - 1] == ']') {
			host[strlen(host) - 1] = '\0';
			host++;
		}
		if (port > 0 && port < 65536) {
			fd = tcp_connect(host, (uint16_t)port, tmo);
			e = errno;
		} else {
			debug("ignoring malformed SLUICE_CTLD_ADDR '%s'", over);
		}
		free(h);
		if (fd >= 0)
			return rpc_new(conf, fd, a, 1);
		if (port > 0 && port < 65536)
			goto fail;
	}

	if (a && auth_can_sign(a)) {
		for (size_t i = 0; i < conf->nctld_hosts && fd < 0; i++) {
			const char *h = conf->ctld_addrs && conf->ctld_addrs[i]
				? conf->ctld_addrs[i] : conf->ctld_hosts[i];
			if (!h)
				continue;
			fd = tcp_connect(h, conf->ctld_port ? conf->ctld_port : 6817, tmo);
			e = errno;
		}
		if (fd >= 0)
			return rpc_new(conf, fd, a, 1);
		goto fail;
	}

	/* Cannot sign: the controller's local socket, identified by the
	 * kernel's peer credentials. It lives in the controller's run
	 * directory, which users can reach, not in the private state. */
	char *path = conf_ctld_socket(conf);
	fd = unix_connect(path, tmo);
	e = errno;
	if (fd < 0)
		debug("connect to '%s': %s", path, strerror(e));
	free(path);
	if (fd >= 0)
		return rpc_new(conf, fd, a, 0);
fail:
	auth_destroy(a);
	if (err)
		*err = e == ETIMEDOUT ? SLUICE_E_TIMEOUT : SLUICE_E_CONNECT;
	return NULL;
}

int rpc_send(rpc_t *r, enum msg_type type, const void *msg)
{
	strbuf_t out = STRBUF_INIT;
	char *err = NULL;
	int rc = net_frame_append(&out, r->auth, r->sign, type, msg, &err);
	if (rc) {
		error("%s", err);
		free(err);
		strbuf_release(&out);
		return rc;
	}
	uint64_t deadline = now_ms() + (uint64_t)r->timeout_ms;
	size_t off = 0;
	while (off < out.len) {
		ssize_t n = send(r->fd, out.buf + off, out.len - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { .fd = r->fd, .events = POLLOUT };
			int left = ms_left(deadline);
			int pn = left ? poll(&p, 1, left) : 0;
			if (pn == 0) {
				rc = SLUICE_E_TIMEOUT;
				break;
			}
			if (pn < 0 && errno != EINTR) {
				rc = SLUICE_E_CONNECT;
				break;
			}
			continue;
		}
		debug("send: %s", n < 0 ? strerror(errno) : "connection closed");
		rc = SLUICE_E_CONNECT;
		break;
	}
	strbuf_release(&out);
	return rc;
}

int rpc_recv(rpc_t *r, enum msg_type *type, void **msg, int timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : now_ms() + (uint64_t)timeout_ms + (timeout_ms == 0);
	frame_t f;
	char *err = NULL;

	*msg = NULL;
	for (;;) {
		int pr = net_frame_parse(r->in.buf + r->in_off, r->in.len - r->in_off, &f, &err);
		if (pr < 0) {
			debug("bad frame from peer: %s", err);
			free(err);
			return SLUICE_E_PROTOCOL;
		}
		if (pr > 0)
			break;
		/* Compact, then make room: the whole frame once its length is
		 * known (it was bounds-checked), else a chunk. */
		if (r->in_off) {
			size_t rest = r->in.len - r->in_off;
			memmove(r->in.buf, r->in.buf + r->in_off, rest);
			strbuf_setlen(&r->in, rest);
			r->in_off = 0;
		}
		size_t want = READ_CHUNK;
		if (r->in.len >= 4) {
			size_t flen = (size_t)get32((const uint8_t *)r->in.buf) + 4;
			if (flen > r->in.len)
				want = flen - r->in.len;
		}
		strbuf_grow(&r->in, want);
		ssize_t n = read(r->fd, r->in.buf + r->in.len, want);
		if (n > 0) {
			strbuf_setlen(&r->in, r->in.len + (size_t)n);
			continue;
		}
		if (n == 0) {
			debug("connection closed by peer");
			return SLUICE_E_CONNECT;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			debug("read: %s", strerror(errno));
			return SLUICE_E_CONNECT;
		}
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		int left = ms_left(deadline);
		int pn = left ? poll(&p, 1, left) : 0;
		if (pn == 0)
			return SLUICE_E_TIMEOUT;
		if (pn < 0 && errno != EINTR)
			return SLUICE_E_CONNECT;
	}
	void *m = xcalloc(1, proto_size((enum msg_type)f.type));
	if (proto_decode((enum msg_type)f.type, m, f.body, f.body_len, &err)) {
		debug("%s", err ? err : "undecodable message");
		free(err);
		free(m);
		r->in_off += f.total;
		return SLUICE_E_PROTOCOL;
	}
	r->in_off += f.total;
	if (r->in_off == r->in.len) {
		strbuf_setlen(&r->in, 0);
		r->in_off = 0;
	}
	*type = (enum msg_type)f.type;
	*msg = m;
	return 0;
}

int rpc_has_frame(const rpc_t *r)
{
	if (!r || r->in.len <= r->in_off)
		return 0;
	frame_t f;
	char *err = NULL;
	int pr = net_frame_parse(r->in.buf + r->in_off, r->in.len - r->in_off, &f, &err);
	free(err);
	return pr != 0;
}

void proto_msg_destroy(enum msg_type type, void *msg)
{
	if (!msg)
		return;
	proto_free(type, msg);
	free(msg);
}

int rpc_call_ctld(const conf_t *conf, enum msg_type type, const void *req,
		  enum msg_type *rtype, void **reply)
{
	int err = 0;
	*reply = NULL;
	rpc_t *r = rpc_connect_ctld(conf, &err);
	if (!r)
		return err ? err : SLUICE_E_CONNECT;
	int rc = rpc_send(r, type, req);
	if (!rc)
		rc = rpc_recv(r, rtype, reply, conf_timeout_ms(conf));
	rpc_close(r);
	return rc;
}

int rpc_call_ctld_rc(const conf_t *conf, enum msg_type type, const void *req, char **msg)
{
	enum msg_type rt = MSG_NONE;
	void *reply = NULL;
	if (msg)
		*msg = NULL;
	int rc = rpc_call_ctld(conf, type, req, &rt, &reply);
	if (rc)
		return rc;
	if (rt != MSG_RC) {
		debug("expected MSG_RC, got %s", proto_name(rt));
		proto_msg_destroy(rt, reply);
		return SLUICE_E_PROTOCOL;
	}
	msg_rc_t *m = reply;
	rc = m->rc;
	if (msg) {
		*msg = m->msg;
		m->msg = NULL;
	}
	proto_msg_destroy(rt, reply);
	return rc;
}
