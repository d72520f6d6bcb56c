/*
 * net: frames on a stream socket, client RPCs, and the daemon side
 * connection object.
 *
 * A frame is: u32 total length (big-endian, excluding itself), u16 magic
 * 0x534c ("SL"), u16 PROTO_VERSION, u16 msg_type, u16 auth kind, u32 cred
 * length, cred bytes, body (proto_encode output). The credential covers the
 * body (and type). Frames above PROTO_MAX_FRAME, a bad magic, an unknown
 * version or type, a body that does not decode, or a bad credential get an
 * MSG_RC error reply (where possible) and the connection closed; the daemon
 * goes on.
 */
#ifndef SLUICE_NET_H
#define SLUICE_NET_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "conf.h"
#include "loop.h"
#include "proto.h"

#define FRAME_MAGIC 0x534cu

/* ---- client side (blocking, with timeouts) ---- */

typedef struct rpc rpc_t;

/* Connect to the controller named in conf: TCP with a credential when this
 * process can sign, else the controller's local Unix socket (peer
 * credentials). Returns NULL and *err (an errors.h number; SLUICE_E_CONNECT
 * prints as "Unable to contact slurm controller (connect failure)"). */
rpc_t *rpc_connect_ctld(const conf_t *conf, int *err);
/* Connect to any Sluice daemon at host:port (srun -> noded). */
rpc_t *rpc_connect_addr(const conf_t *conf, const char *host, uint16_t port, int *err);
/* Wrap an already connected fd (tests, socketpairs). Takes ownership. */
rpc_t *rpc_from_fd(const conf_t *conf, int fd);
void rpc_close(rpc_t *r);                 /* accepts NULL */
int rpc_fd(const rpc_t *r);
/* Send one message. 0 or an errors.h number. */
int rpc_send(rpc_t *r, enum msg_type type, const void *msg);
/* Receive one message; *msg is malloc'd (proto_size) and decoded; free with
 * proto_msg_destroy. timeout_ms < 0 waits forever. 0 or an errors.h
 * number (SLUICE_E_TIMEOUT -> "Socket timed out on send/recv operation"). */
int rpc_recv(rpc_t *r, enum msg_type *type, void **msg, int timeout_ms);
/* Is a whole frame already buffered (rpc_recv returns it without reading
 * the socket, so poll() on rpc_fd would not say so)? Bad bytes count as
 * one: rpc_recv reports them. */
int rpc_has_frame(const rpc_t *r);
/* Connect to the controller, send req, wait for one reply (MessageTimeout).
 * Returns 0 with *rtype and *reply, or an errors.h number. */
int rpc_call_ctld(const conf_t *conf, enum msg_type type, const void *req,
		  enum msg_type *rtype, void **reply);
/* Same, for calls answered by MSG_RC: returns the rc (0 on success); *msg
 * gets the detail text if non-NULL (malloc'd, may be NULL). */
int rpc_call_ctld_rc(const conf_t *conf, enum msg_type type, const void *req, char **msg);
void proto_msg_destroy(enum msg_type type, void *msg);  /* proto_free + free */

/* ---- daemon side ---- */

typedef struct conn conn_t;
/* A decoded, authenticated message arrived. msg belongs to the conn layer
 * and is freed after the callback returns (steal fields by NULLing them). */
typedef void (*conn_msg_f)(conn_t *c, enum msg_type type, void *msg,
			   uint32_t uid, uint32_t gid, void *arg);
typedef void (*conn_close_f)(conn_t *c, void *arg);

/* Listen on a TCP port (addr NULL: all addresses) or a Unix socket path.
 * Accepted connections are made with conn_create and the given callbacks.
 * Returns the listening fd or -1 with errno. Unix listeners authenticate by
 * SO_PEERCRED. */
int net_listen_tcp(loop_t *l, auth_t *a, const char *addr, uint16_t port,
		   conn_msg_f on_msg, conn_close_f on_close, void *arg);
int net_listen_unix(loop_t *l, auth_t *a, const char *path,
		    conn_msg_f on_msg, conn_close_f on_close, void *arg);

/* Manage a connected fd (accepted, or connected out by noded). */
conn_t *conn_create(loop_t *l, int fd, auth_t *a, int peercred,
		    conn_msg_f on_msg, conn_close_f on_close, void *arg);
/* Queue a message. Output is held until conn_flush_all() unless the conn
 * was set to autoflush; the controller flushes after its commit. */
void conn_send(conn_t *c, enum msg_type type, const void *msg);
void conn_send_rc(conn_t *c, int rc, const char *msg);
void conn_set_autoflush(conn_t *c, int on);
/* Write out every conn's held output (non-blocking; the rest follows on
 * LOOP_WRITE). Call after durable commit. */
void conn_flush_all(loop_t *l);
/* The controller, when a commit failed: on every conn of l with held
 * output that keep(c, arg) does not claim (keep NULL: all), drop that
 * output (it announced changes that are not durable) and hold an MSG_RC
 * reply of rc and msg instead. */
void conn_replace_held(loop_t *l, int (*keep)(conn_t *c, void *arg), void *arg,
		       int rc, const char *msg);
/* Close after pending output is written; freed outside its callbacks. */
void conn_close(conn_t *c);
void conn_set_data(conn_t *c, void *data);
void *conn_get_data(const conn_t *c);
const char *conn_peer(const conn_t *c);        /* "127.0.0.1:40000" */
int conn_fd(const conn_t *c);

#endif
