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
 *
 * Daemon listeners carry a policy (net_policy_t): which message types a
 * peer may send, which of them it may send without a credential, and how
 * many not yet authenticated connections (and buffered bytes) it may hold
 * and for how long. Every message type has a maximum frame size
 * (net_frame_cap, one table for all daemons). A frame's 16-byte header is
 * checked against both as soon as it is in, before its body is buffered.
 */
#ifndef SLUICE_NET_H
#define SLUICE_NET_H

#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "conf.h"
#include "loop.h"
#include "proto.h"
#include "strbuf.h"

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

/* The largest frame (length field + 4) a daemon accepts for a message
 * type; the whole-frame limit PROTO_MAX_FRAME for types no daemon
 * receives. */
uint32_t net_frame_cap(enum msg_type type);
/* Largest credential in a frame (a MUNGE credential is ~200 bytes). */
#define NET_CRED_MAX 4096u
/* What decoding a frame of type may allocate (see proto_decode_budget):
 * a multiple of its cap. */
size_t net_decode_budget(enum msg_type type);

/* A set of message types: one bit per type (GCC's and Clang's 128-bit
 * integer, so sets stay constant expressions: NET_MSG(a) | NET_MSG(b)). */
typedef unsigned __int128 net_msgset_t;
#define NET_MSG(t) ((net_msgset_t)1 << (t))
_Static_assert(MSG_TYPE_END <= 128, "message types no longer fit net_msgset_t");

/* What a listener accepts. A connection is "authenticated" once it has
 * delivered a frame with a verified credential, or from the start on a
 * Unix socket (SO_PEERCRED). */
typedef struct net_policy {
	const char *name;          /* for logs: "controller port", "step port" */
	net_msgset_t allowed;      /* NET_MSG(type) bits a peer may send */
	net_msgset_t unsigned_ok;  /* of those, accepted without a credential
				    * on TCP (the handler must check its own
				    * proof, e.g. a launch credential) */
	uint32_t max_unauth;       /* unauthenticated conns at once; at the
				    * cap, a new one evicts the oldest */
	uint32_t unauth_ms;        /* an unauthenticated conn must deliver a
				    * verified frame within this (slowloris) */
	size_t unauth_bytes;       /* frame bytes all unauthenticated conns of
				    * this listener may have buffered; past it
				    * the oldest such frames are dropped */
	uint32_t idle_ms;          /* an authenticated conn that neither sends
				    * nor receives for this long, and is not
				    * waiting for the answer to its last
				    * request, is closed; 0 never */
} net_policy_t;

/* Check a frame's first len bytes (its header) against pol (NULL: only
 * the per-type caps), for a conn that is (peercred) or is not on a Unix
 * socket: 1 acceptable so far, 0 need the full FRAME_HDR bytes, -1 refuse
 * with *err (malloc'd). */
int net_frame_admit(const net_policy_t *pol, int peercred, const void *buf, size_t len,
		    char **err);

typedef struct conn conn_t;
/* A decoded, authenticated message arrived. msg belongs to the conn layer
 * and is freed after the callback returns (steal fields by NULLing them). */
typedef void (*conn_msg_f)(conn_t *c, enum msg_type type, void *msg,
			   uint32_t uid, uint32_t gid, void *arg);
typedef void (*conn_close_f)(conn_t *c, void *arg);

/* Listen on a TCP port (addr NULL: all addresses) or a Unix socket path,
 * under pol (which must outlive the listener). Accepted connections are
 * made with conn_create and the given callbacks. Returns the listening fd
 * or -1 with errno. Unix listeners authenticate by SO_PEERCRED.
 *
 * All conns together stay below the descriptor limit (RLIMIT_NOFILE less
 * a few for the daemon): past it a new connection is closed at once. On
 * EMFILE/ENFILE a reserve descriptor is given up to accept and close the
 * pending connection, and an accept error pauses the listener briefly, so
 * the loop never spins. */
int net_listen_tcp(loop_t *l, auth_t *a, const char *addr, uint16_t port,
		   const net_policy_t *pol, conn_msg_f on_msg, conn_close_f on_close, void *arg);
int net_listen_unix(loop_t *l, auth_t *a, const char *path, const net_policy_t *pol,
		    conn_msg_f on_msg, conn_close_f on_close, void *arg);

/* Manage a connected fd (accepted, or connected out by noded: such a conn
 * has no policy but the per-type frame caps, and no timeout). */
conn_t *conn_create(loop_t *l, int fd, auth_t *a, int peercred,
		    conn_msg_f on_msg, conn_close_f on_close, void *arg);
/* Queue a message. Output is held until conn_flush_all() unless the conn
 * was set to autoflush; the controller flushes after its commit. */
void conn_send(conn_t *c, enum msg_type type, const void *msg);
void conn_send_rc(conn_t *c, int rc, const char *msg);
/* Queue a frame encoded elsewhere (net_frame_encode, e.g. by a worker
 * thread), held like conn_send's. Its bytes may be taken over (frame is
 * then left with the conn's empty buffer): release it either way. */
void conn_send_frame(conn_t *c, strbuf_t *frame);
/* Encode an unsigned frame of msg into out (a query answer: any thread
 * may call it). 0, or an errors.h number with *err (malloc'd). */
int net_frame_encode(strbuf_t *out, enum msg_type type, const void *msg, char **err);
void conn_set_autoflush(conn_t *c, int on);
/* Write out every conn's held output (non-blocking; the rest follows on
 * LOOP_WRITE). Call after durable commit. */
void conn_flush_all(loop_t *l);
/* Connections alive (all loops of the process). */
size_t net_conn_count(void);
/* The controller, when a commit failed: on every conn of l with held
 * output that keep(c, arg) does not claim (keep NULL: all), drop that
 * output (it announced changes that are not durable) and hold an MSG_RC
 * reply of rc and msg instead. */
void conn_replace_held(loop_t *l, int (*keep)(conn_t *c, void *arg), void *arg,
		       int rc, const char *msg);
/* Drop c's held output (what it was sent since the last flush): the
 * controller takes back an answer that would announce an uncommitted
 * change and gives it again after the commit. */
void conn_drop_held(conn_t *c);
/* Close after pending output is written; freed outside its callbacks. */
void conn_close(conn_t *c);
void conn_set_data(conn_t *c, void *data);
void *conn_get_data(const conn_t *c);
const char *conn_peer(const conn_t *c);        /* "127.0.0.1:40000" */
int conn_fd(const conn_t *c);
/* Did c come in on a Unix socket (SO_PEERCRED)? Such a peer is on this
 * host and what is sent to it crosses no network. */
int conn_is_peercred(const conn_t *c);

struct sockaddr;
/* Is a TCP peer at address peer on this host, the connection's local end
 * being local? Loopback (127/8, ::1, v4-mapped forms) or the same address
 * as local: a peer elsewhere cannot complete a handshake from either.
 * A Unix socket's peer is local. Pure, for tests. */
int net_addr_same_host(const struct sockaddr *local, const struct sockaddr *peer);
/* net_addr_same_host of c's two ends (0 if they cannot be read). */
int conn_peer_is_local(const conn_t *c);

#endif
