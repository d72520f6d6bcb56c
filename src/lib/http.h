/*
 * http: a small GET-only HTTP/1.1 server for the daemons' metrics and
 * health endpoints, on libmicrohttpd driven by our own event loop.
 *
 * libmicrohttpd runs without threads of its own (MHD_USE_EPOLL, external
 * polling): its epoll descriptor is watched by the daemon's loop, MHD_run is
 * called from the loop when it is readable and from a timer at
 * MHD_get_timeout, so every request handler runs in the loop turn, between
 * other events, and reads the daemon's live state without a lock.
 *
 * What an unauthenticated client of this port can cost the daemon is
 * bounded, as the RPC listeners' policies bound it (net.h):
 *   - at most max_conns connections (per_ip of them from one address);
 *   - each gets timeout_ms from its start, or from its last response, to
 *     deliver a request, however it trickles bytes (slowloris): the socket
 *     is then shut down;
 *   - a request (line and headers) is at most max_request bytes (MHD's
 *     per-connection memory pool): larger ones get 431/414 and are closed;
 *   - only GET and HEAD, never a body (405, 413), and nothing is parsed
 *     beyond the request line and headers.
 * Optional access control: a list of allowed addresses/CIDRs (403 for
 * others) and a bearer token read from a file at start (401 without it).
 */
#ifndef SLUICE_HTTP_H
#define SLUICE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "loop.h"
#include "strbuf.h"

typedef struct http_server http_server_t;

/* What a handler fills in. status defaults to 200, content_type to
 * "text/plain; charset=utf-8" (a static string). */
typedef struct http_reply {
	int status;
	const char *content_type;
	strbuf_t body;
} http_reply_t;

/* Called in the loop for an admitted GET/HEAD request; path excludes the
 * query string. */
typedef void (*http_handler_f)(void *arg, const char *path, http_reply_t *r);

typedef struct http_opts {
	const char *name;          /* for logs: "controller metrics" */
	const char *addr;          /* numeric address to bind; NULL/"": all IPv4 */
	uint16_t port;             /* 0: any free port (see http_port) */
	unsigned max_conns;        /* 0: 64 */
	unsigned per_ip;           /* 0: max_conns / 4, at least 1 */
	unsigned timeout_ms;       /* 0: 10000 */
	size_t max_request;        /* 0: 16384 bytes */
	const char *token_file;    /* NULL: no token required */
	const char *allow;         /* "10.0.0.0/8,::1,192.168.1.5"; NULL: all */
} http_opts_t;

/* Counters of one server (for its own metrics). */
typedef struct http_stats {
	uint64_t requests;         /* admitted and answered by the handler */
	uint64_t refused_addr;     /* 403 */
	uint64_t refused_token;    /* 401 */
	uint64_t refused_method;   /* 405, 413 */
	uint64_t timed_out;        /* cut by the request deadline */
	uint32_t conns;            /* open now */
} http_stats_t;

/* Start serving on l. Returns the server, or NULL with *err (malloc'd,
 * "metrics token file '/x' is readable by group or others: chmod 600 /x")
 * for a bad address, allow-list or token file, or a port in use. */
http_server_t *http_start(loop_t *l, const http_opts_t *o, http_handler_f cb, void *arg,
			  char **err);
/* Stop: closes the listener and every connection. Accepts NULL. */
void http_stop(http_server_t *s);
/* The port bound (useful with port 0). */
uint16_t http_port(const http_server_t *s);
const http_stats_t *http_get_stats(const http_server_t *s);

/* Parse an allow-list ("ADDR[/BITS],..."): 0, or -1 with *err (malloc'd)
 * naming the bad entry. Exposed for the unit tests and config checks. */
typedef struct http_acl http_acl_t;
http_acl_t *http_acl_parse(const char *list, char **err);
/* Does sa (struct sockaddr *) match an entry? IPv4-mapped IPv6 addresses
 * match the IPv4 entries. */
int http_acl_match(const http_acl_t *a, const void *sa);
void http_acl_free(http_acl_t *a);

/* Read a bearer token file: refused unless it is a regular file of this
 * process's user or root, with no group/other access, non-empty. Returns
 * the token (trailing whitespace stripped, malloc'd) or NULL with *err. */
char *http_token_read(const char *path, char **err);

#endif
