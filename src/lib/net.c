/*
 * net: frames on stream sockets (see net.h for the layout) and the daemon
 * side connection object (conn_*); the blocking client side (rpc_*) is in
 * rpc_client.c.
 *
 * Daemon: each conn has an input buffer that assembles frames and an
 * output buffer. Output is "held" until conn_flush_all() (the controller
 * makes its state durable first), except on autoflush conns; out_limit
 * marks how much of the output buffer may be written. A conn that dies or
 * is closed is freed from a 0 ms timer, i.e. never inside one of its own
 * callbacks, and its on_close runs exactly once, right before it is freed,
 * whatever the reason (peer closed, I/O error, protocol error, conn_close).
 *
 * Signing: frames on TCP carry a credential when the process can sign
 * (daemons always can); frames on Unix-socket conns carry none (the peer
 * is identified by SO_PEERCRED and could not verify one anyway), and
 * neither do query answers (see reply_signed).
 *
 * Defences of an accepted conn (its listener's net_policy_t):
 *   - the header of every frame is checked as soon as its 16 bytes are in
 *     (net_frame_admit): a type this listener does not take, a frame over
 *     the type's cap (net_frame_cap), a credential over NET_CRED_MAX, or
 *     no credential where one is required: error reply and close, before
 *     the body is read. Then the credential is verified on its own as soon
 *     as it is in (auth_verify_cred: it carries the digest of the payload
 *     it covers), still before the body is read; once the body is in, its
 *     digest must match. So a peer without a valid credential never makes
 *     a daemon buffer a body (beyond one READ_CHUNK) or decode anything;
 *     decoding is bounded by net_decode_budget;
 *   - until it delivers a verified frame a TCP conn is "unauthenticated":
 *     at most max_unauth of them per listener (a new one evicts the
 *     oldest, so a flood of idle conns cannot lock out real clients, who
 *     send their request right after connecting), each must finish within
 *     unauth_ms of its accept whatever it trickles (slowloris), and the
 *     frames they are receiving may add up to unauth_bytes (past it, the
 *     oldest conns with frames in flight are dropped);
 *   - an authenticated conn is closed after idle_ms without traffic,
 *     unless it is waiting for the answer to its last frame (a node
 *     daemon's link after a heartbeat, an srun/sbatch --wait waiter);
 *   - all conns stay below the descriptor limit (conn_limit), the reserve
 *     descriptor sheds connections on EMFILE, and a failing accept pauses
 *     the listener for ACCEPT_PAUSE_MS instead of spinning.
 * A sweep timer per listener (SWEEP_MS) enforces the timeouts.
 */
#include "net.h"
#include "net_int.h"
#include "errors.h"
#include "log.h"
#include "proto_schema.h"
#include "sha256.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK (64u << 10)
#define READ_PER_EVENT (1u << 20)
#define SWEEP_MS 1000
#define ACCEPT_PAUSE_MS 100
#define FD_SPARE 32            /* descriptors kept for the daemon itself */

/* ---- frames ---- */

int net_frame_parse(const void *buf, size_t len, frame_t *f, char **err)
{
	const uint8_t *p = buf;
	if (err)
		*err = NULL;
	if (len < 4)
		return 0;
	uint32_t flen = get32(p);
	if (flen > PROTO_MAX_FRAME) {
		if (err)
			*err = xasprintf("frame of %u bytes exceeds the limit of %u",
					 flen, PROTO_MAX_FRAME);
		return -1;
	}
	if (flen < FRAME_HDR - 4) {
		if (err)
			*err = xasprintf("frame of %u bytes is too short", flen);
		return -1;
	}
	/* Check the fixed header as soon as it is there, so garbage is
	 * refused before we wait for (and buffer) a bogus length. */
	if (len >= 6 && get16(p + 4) != FRAME_MAGIC) {
		if (err)
			*err = xasprintf("bad frame magic 0x%04x", get16(p + 4));
		return -1;
	}
	if (len >= 8 && get16(p + 6) != PROTO_VERSION) {
		if (err)
			*err = xasprintf("unsupported protocol version %u", get16(p + 6));
		return -1;
	}
	if (len >= 10 && !proto_schema((enum msg_type)get16(p + 8))) {
		if (err)
			*err = xasprintf("unknown message type %u", get16(p + 8));
		return -1;
	}
	if (len >= 12 && get16(p + 10) > AUTH_MUNGE) {
		if (err)
			*err = xasprintf("unknown auth kind %u", get16(p + 10));
		return -1;
	}
	if (len >= FRAME_HDR && get32(p + 12) > flen - (FRAME_HDR - 4)) {
		if (err)
			*err = xasprintf("credential length %u exceeds the frame", get32(p + 12));
		return -1;
	}
	if (len < (size_t)flen + 4)
		return 0;
	f->type = get16(p + 8);
	f->auth = get16(p + 10);
	f->cred_len = get32(p + 12);
	f->cred = p + FRAME_HDR;
	f->body = f->cred + f->cred_len;
	f->body_len = (size_t)flen + 4 - FRAME_HDR - f->cred_len;
	f->total = (size_t)flen + 4;
	return 1;
}

uint32_t net_frame_cap(enum msg_type type)
{
	/* Generous for real use (the largest legitimate frames seen in the
	 * tests and benchmarks are far below), small where a request is a
	 * few numbers. Frames only commands receive (query answers, step
	 * I/O) keep the whole-frame limit: a command chose its peer. */
	switch (type) {
	case MSG_PING: case MSG_CONFIG_REQ: case MSG_RECONFIGURE: case MSG_SHUTDOWN:
	case MSG_CONFIG_FILES_REQ:
	case MSG_SET_DEBUG: case MSG_JOB_NCCL:
	case MSG_STEP_COMPLETE: case MSG_STATS_REQ: case MSG_JOB_WAIT: case MSG_STEP_CREATE:
	case MSG_SIGNAL_JOB: case MSG_NODE_ACK: case MSG_NODE_PING: case MSG_PROLOG_COMPLETE:
	case MSG_LIST_PIDS_REQ:
	case MSG_STEP_STAT_AUTH: case MSG_STEP_STAT:   /* ids and a credential */
		return 64u << 10;
	case MSG_LAUNCH_PROLOG:     /* the job's own variables */
		return 1u << 20;
	case MSG_JOB_INFO_REQ: case MSG_NODE_INFO_REQ: case MSG_PART_INFO_REQ:
	case MSG_PRIO_INFO_REQ: case MSG_UPDATE_NODE: case MSG_UPDATE_PART: case MSG_HEALTH_CHECK:
	case MSG_UPDATE_JOB: case MSG_JOB_COMPLETE: case MSG_STEP_INFO_REQ:
	case MSG_SUBMIT_REPLY: case MSG_CANCEL_REPLY:
	case MSG_RESV_UPDATE: case MSG_RESV_INFO_REQ:
		return 1u << 20;
	case MSG_NODE_REGISTER: case MSG_NODE_HEARTBEAT:
		return 4u << 20;
	case MSG_CANCEL:            /* a million job ids */
		return 8u << 20;
	case MSG_SUBMIT:            /* script (Slurm's default cap: 4 MB) + env */
	case MSG_RC:                /* scontrol write batch_script: the script */
	case MSG_ACCT_REQ:          /* sacctmgr load: a whole tree's file */
	case MSG_LAUNCH_STEP:       /* argv + env + credential */
		return 16u << 20;
	case MSG_LAUNCH_JOB:        /* a submission and what the controller adds */
		return 32u << 20;
	default:
		return PROTO_MAX_FRAME + 4;
	}
}

size_t net_decode_budget(enum msg_type type)
{
	/* The memory of a legitimate message is a small multiple of its
	 * wire size; 4x the cap (plus room for the struct) leaves room for
	 * any real one and stops a frame of tiny fields early. */
	return (size_t)4 * net_frame_cap(type) + (64u << 10);
}

int net_frame_admit(const net_policy_t *pol, int peercred, const void *buf, size_t len,
		    char **err)
{
	const uint8_t *p = buf;
	frame_t f;
	*err = NULL;
	if (net_frame_parse(buf, len, &f, err) < 0)
		return -1;
	if (len < FRAME_HDR)
		return 0;
	uint32_t total = get32(p) + 4;   /* <= PROTO_MAX_FRAME + 4: parsed */
	enum msg_type type = (enum msg_type)get16(p + 8);
	uint16_t kind = get16(p + 10);
	uint32_t cred_len = get32(p + 12);
	if (pol && (type >= MSG_TYPE_END || !(pol->allowed & NET_MSG(type)))) {
		*err = xasprintf("%s is not accepted on the %s", proto_name(type), pol->name);
		return -1;
	}
	if (total > net_frame_cap(type)) {
		*err = xasprintf("%s of %u bytes exceeds its limit of %u", proto_name(type),
				 total, net_frame_cap(type));
		return -1;
	}
	if (cred_len > NET_CRED_MAX) {
		*err = xasprintf("credential of %u bytes exceeds the limit of %u", cred_len,
				 NET_CRED_MAX);
		return -1;
	}
	if (pol && !peercred && kind == AUTH_NONE && !(pol->unsigned_ok & NET_MSG(type))) {
		*err = xasprintf("authentication required: unsigned %s", proto_name(type));
		return -1;
	}
	return 1;
}

/* The signed bytes: u16 type (big-endian) followed by the body. */
static void signed_bytes(strbuf_t *sb, uint16_t type, const void *body, size_t len)
{
	uint8_t t[2];
	put16(t, type);
	strbuf_add(sb, t, 2);
	if (len)
		strbuf_add(sb, body, len);
}

/* Append a frame for msg to out. 0, or an errors.h number (*err says why). */
int net_frame_append(strbuf_t *out, auth_t *a, int sign, enum msg_type type,
			const void *msg, char **err)
{
	strbuf_t pl = STRBUF_INIT, cred = STRBUF_INIT;
	uint16_t kind = AUTH_NONE;
	int rc = 0;

	*err = NULL;
	if (!proto_schema(type)) {
		*err = xasprintf("cannot send unknown message type %d", (int)type);
		return SLUICE_E_PROTOCOL;
	}
	if (!sign || !a || !auth_can_sign(a)) {
		/* Unsigned (query answers, Unix-socket conns): encode the body
		 * straight into out behind a header filled in after, instead of
		 * building it aside and copying it (a 1 MB squeue reply). */
		size_t at = out->len;
		strbuf_grow(out, FRAME_HDR);
		out->len += FRAME_HDR;
		proto_encode(type, msg, out);
		size_t total = out->len - at;
		if (total - 4 > PROTO_MAX_FRAME) {
			*err = xasprintf("%s of %zu bytes exceeds the frame limit",
					 proto_name(type), total);
			strbuf_setlen(out, at);
			return SLUICE_E_PROTOCOL;
		}
		uint8_t *h = (uint8_t *)out->buf + at;
		put32(h, (uint32_t)(total - 4));
		put16(h + 4, FRAME_MAGIC);
		put16(h + 6, PROTO_VERSION);
		put16(h + 8, (uint16_t)type);
		put16(h + 10, AUTH_NONE);
		put32(h + 12, 0);
		return 0;
	}
	signed_bytes(&pl, (uint16_t)type, NULL, 0);
	proto_encode(type, msg, &pl);
	if (sign && a && auth_can_sign(a)) {
		char *aerr = NULL;
		if (auth_sign(a, pl.buf, pl.len, &cred, &aerr) == 0) {
			kind = (uint16_t)auth_kind(a);
		} else {
			*err = xasprintf("unable to sign %s: %s", proto_name(type),
					 aerr ? aerr : "unknown error");
			free(aerr);
			rc = SLUICE_E_AUTH;
			goto out;
		}
	}
	size_t body_len = pl.len - 2;
	size_t total = FRAME_HDR + cred.len + body_len;
	if (total - 4 > PROTO_MAX_FRAME) {
		*err = xasprintf("%s of %zu bytes exceeds the frame limit",
				 proto_name(type), total);
		rc = SLUICE_E_PROTOCOL;
		goto out;
	}
	uint8_t h[FRAME_HDR];
	put32(h, (uint32_t)(total - 4));
	put16(h + 4, FRAME_MAGIC);
	put16(h + 6, PROTO_VERSION);
	put16(h + 8, (uint16_t)type);
	put16(h + 10, kind);
	put32(h + 12, (uint32_t)cred.len);
	strbuf_grow(out, total);
	strbuf_add(out, h, sizeof(h));
	if (cred.len)
		strbuf_add(out, cred.buf, cred.len);
	if (body_len)
		strbuf_add(out, pl.buf + 2, body_len);
out:
	strbuf_release(&pl);
	strbuf_release(&cred);
	return rc;
}

void net_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* ---- daemon side ---- */

typedef struct listener listener_t;

struct conn {
	loop_t *loop;
	int fd;
	auth_t *auth;
	int peercred;
	const net_policy_t *pol;  /* its listener's, or NULL (connected out) */
	listener_t *ls;          /* accepted by, or NULL */
	conn_t *lprev, *lnext;   /* on ls's unauth or auth list */
	uint64_t born_ms;        /* accepted */
	uint64_t active_ms;      /* last byte read or written, or reply queued */
	size_t reserved;         /* of ls->unauth_bytes, for the frame coming in */
	uint32_t puid, pgid;     /* SO_PEERCRED, when peercred */
	conn_msg_f on_msg;
	conn_close_f on_close;
	void *arg;
	void *data;
	strbuf_t in;
	size_t in_off;
	strbuf_t out;
	size_t out_off;          /* written so far */
	size_t out_limit;        /* may be written up to here (flushed) */
	uint32_t events;         /* what we watch in the loop */
	unsigned autoflush : 1, closing : 1, dead : 1, reading : 1;
	unsigned authed : 1;     /* delivered a verified frame, or peercred */
	unsigned awaiting : 1;   /* delivered a frame since we last sent */
	unsigned hdr_ok : 1;     /* the frame at in_off passed net_frame_admit */
	unsigned body_ok : 1;    /* ... and its credential (if any): read on */
	uint8_t digest[32];      /* of the payload its credential covers */
	uint32_t cuid, cgid;     /* who its credential names */
	unsigned onlist : 1;     /* on one of ls's lists */
	conn_t *dprev, *dnext;   /* held-output list */
	int held;
	char peer[64];
};

/* Conns with held output, all loops (daemons have one loop). */
static conn_t *held_head;

struct listener {
	struct listener *next;   /* all listeners: they live as long as the process */
	loop_t *loop;
	int fd;
	auth_t *auth;
	int peercred;
	const net_policy_t *pol;
	conn_msg_f on_msg;
	conn_close_f on_close;
	void *arg;
	conn_t *unauth_head, *unauth_tail;   /* in accept order */
	conn_t *auth_head;
	uint32_t nunauth;
	size_t unauth_bytes;     /* reserved by its unauthenticated conns */
	int paused;
};

static size_t nconns;        /* conns alive, all loops */
static int reserve_fd = -1;  /* given up on EMFILE to shed a connection */

static void list_del(conn_t *c)
{
	listener_t *ls = c->ls;
	if (!ls || !c->onlist)
		return;
	c->onlist = 0;
	if (c->lprev)
		c->lprev->lnext = c->lnext;
	else if (c->authed)
		ls->auth_head = c->lnext;
	else
		ls->unauth_head = c->lnext;
	if (c->lnext)
		c->lnext->lprev = c->lprev;
	else if (!c->authed)
		ls->unauth_tail = c->lprev;
	if (!c->authed)
		ls->nunauth--;
	c->lprev = c->lnext = NULL;
}

static void list_add(conn_t *c)
{
	listener_t *ls = c->ls;
	c->onlist = 1;
	if (c->authed) {
		c->lprev = NULL;
		c->lnext = ls->auth_head;
		if (ls->auth_head)
			ls->auth_head->lprev = c;
		ls->auth_head = c;
		return;
	}
	c->lnext = NULL;
	c->lprev = ls->unauth_tail;
	if (ls->unauth_tail)
		ls->unauth_tail->lnext = c;
	else
		ls->unauth_head = c;
	ls->unauth_tail = c;
	ls->nunauth++;
}

/* Give back what c reserved of its listener's unauthenticated bytes. */
static void unreserve(conn_t *c)
{
	if (c->ls && c->reserved) {
		c->ls->unauth_bytes -= c->reserved;
		c->reserved = 0;
	}
}

/* c delivered a verified frame: no longer bound by the unauth limits. */
static void conn_authenticated(conn_t *c)
{
	if (c->authed)
		return;
	unreserve(c);
	list_del(c);
	c->authed = 1;
	if (c->ls)
		list_add(c);
}

static void held_add(conn_t *c)
{
	if (c->held)
		return;
	c->held = 1;
	c->dprev = NULL;
	c->dnext = held_head;
	if (held_head)
		held_head->dprev = c;
	held_head = c;
}

static void held_del(conn_t *c)
{
	if (!c->held)
		return;
	c->held = 0;
	if (c->dprev)
		c->dprev->dnext = c->dnext;
	else
		held_head = c->dnext;
	if (c->dnext)
		c->dnext->dprev = c->dprev;
	c->dprev = c->dnext = NULL;
}

static void conn_reap(loop_t *l, void *arg)
{
	conn_t *c = arg;
	held_del(c);
	unreserve(c);
	list_del(c);
	nconns--;
	if (c->fd >= 0) {
		loop_del_fd(l, c->fd);
		close(c->fd);
		c->fd = -1;
	}
	if (c->on_close)
		c->on_close(c, c->arg);
	strbuf_release(&c->in);
	strbuf_release(&c->out);
	free(c);
}

static void conn_kill(conn_t *c)
{
	if (c->dead)
		return;
	c->dead = 1;
	c->closing = 1;
	loop_del_fd(c->loop, c->fd);
	loop_add_timer(c->loop, 0, conn_reap, c);
}

static void conn_watch(conn_t *c, uint32_t ev)
{
	if (c->dead || ev == c->events)
		return;
	if (loop_mod_fd(c->loop, c->fd, ev) < 0) {
		conn_kill(c);
		return;
	}
	c->events = ev;
}

/* Write what may be written; arrange LOOP_WRITE for the rest. */
#define NET_WRITE_TURN (1u << 20)

static void conn_write(conn_t *c)
{
	if (c->dead)
		return;
	/* At most NET_WRITE_TURN bytes a call: a reader as fast as the loop
	 * would otherwise have a large answer (sacct over 100,000 records)
	 * copied to the kernel in one turn; the rest goes on LOOP_WRITE. */
	size_t turn = 0;
	while (c->out_off < c->out_limit && turn < NET_WRITE_TURN) {
		size_t want = c->out_limit - c->out_off;
		if (want > NET_WRITE_TURN - turn)
			want = NET_WRITE_TURN - turn;
		ssize_t n = send(c->fd, c->out.buf + c->out_off, want, MSG_NOSIGNAL);
		if (n > 0) {
			c->out_off += (size_t)n;
			turn += (size_t)n;
			c->active_ms = loop_now_ms(c->loop);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		debug("%s: write: %s", c->peer, n < 0 ? strerror(errno) : "closed");
		conn_kill(c);
		return;
	}
	if (c->out_off == c->out.len) {
		strbuf_setlen(&c->out, 0);
		c->out_off = c->out_limit = 0;
	} else if (c->out_off > (1u << 20) && c->out_off > c->out.len / 2) {
		size_t rest = c->out.len - c->out_off;
		memmove(c->out.buf, c->out.buf + c->out_off, rest);
		strbuf_setlen(&c->out, rest);
		c->out_limit -= c->out_off;
		c->out_off = 0;
	}
	if (c->closing && c->out.len == 0) {
		conn_kill(c);
		return;
	}
	uint32_t ev = (c->reading ? LOOP_READ : 0) | (c->out_off < c->out_limit ? LOOP_WRITE : 0);
	conn_watch(c, ev);
}

/* Query answers go only to commands, which read them with rpc_recv and
 * never verify a reply (they chose the peer they connected to). Signing
 * them would hash every byte of a multi-megabyte squeue reply for
 * nothing, so they go out unsigned; everything else a daemon sends (node
 * launches and signals, MSG_RC, submit replies) stays signed. */
static int reply_signed(enum msg_type type)
{
	switch (type) {
	case MSG_JOB_INFO: case MSG_NODE_INFO: case MSG_PART_INFO:
	case MSG_CONFIG: case MSG_PRIO_INFO: case MSG_STATS: case MSG_STEP_INFO: case MSG_LIST_PIDS:
	case MSG_ACCT_REPLY:        /* encoded off the loop (conn_send_frame) */
	case MSG_STEP_STAT_REPLY:   /* sstat's answer from a node */
		return 0;
	default:
		return 1;
	}
}

void conn_send(conn_t *c, enum msg_type type, const void *msg)
{
	if (!c || c->closing)
		return;
	c->awaiting = 0;
	c->active_ms = loop_now_ms(c->loop);
	char *err = NULL;
	int rc = net_frame_append(&c->out, c->auth, !c->peercred && reply_signed(type), type, msg, &err);
	if (rc) {
		error("%s: %s", c->peer, err);
		free(err);
		/* Tell the peer instead of leaving it waiting (unsigned: signing
		 * may be what failed). */
		msg_rc_t m = { .rc = rc, .msg = (char *)"reply could not be sent" };
		if (net_frame_append(&c->out, c->auth, 0, MSG_RC, &m, &err)) {
			free(err);
			return;
		}
	}
	if (c->autoflush) {
		c->out_limit = c->out.len;
		conn_write(c);
	} else {
		held_add(c);
	}
}

int net_frame_encode(strbuf_t *out, enum msg_type type, const void *msg, char **err)
{
	return net_frame_append(out, NULL, 0, type, msg, err);
}

void conn_send_frame(conn_t *c, strbuf_t *frame)
{
	if (!c || c->closing)
		return;
	c->awaiting = 0;
	c->active_ms = loop_now_ms(c->loop);
	if (!c->out.len) {
		/* nothing queued: take the bytes over instead of copying them
		 * (a large answer would cost the loop a copy) */
		strbuf_t t = c->out;
		c->out = *frame;
		*frame = t;
	} else {
		strbuf_add(&c->out, frame->buf, frame->len);
	}
	if (c->autoflush) {
		c->out_limit = c->out.len;
		conn_write(c);
	} else {
		held_add(c);
	}
}

void conn_send_rc(conn_t *c, int rc, const char *msg)
{
	msg_rc_t m = { .rc = rc, .msg = (char *)msg };
	conn_send(c, MSG_RC, &m);
}

void conn_set_autoflush(conn_t *c, int on)
{
	c->autoflush = !!on;
	if (on && c->out_limit < c->out.len) {
		held_del(c);
		c->out_limit = c->out.len;
		conn_write(c);
	}
}

void conn_flush_all(loop_t *l)
{
	conn_t *next;
	for (conn_t *c = held_head; c; c = next) {
		next = c->dnext;
		if (c->loop != l)
			continue;
		held_del(c);
		c->out_limit = c->out.len;
		conn_write(c);
	}
}

void conn_replace_held(loop_t *l, int (*keep)(conn_t *c, void *arg), void *arg,
		       int rc, const char *msg)
{
	for (conn_t *c = held_head; c; c = c->dnext) {
		if (c->loop != l || c->dead || c->out.len == c->out_limit || (keep && keep(c, arg)))
			continue;
		strbuf_setlen(&c->out, c->out_limit);
		/* conn_send appends past out_limit: held, as before */
		conn_send_rc(c, rc, msg);
	}
}

void conn_drop_held(conn_t *c)
{
	if (!c->dead && c->out.len > c->out_limit)
		strbuf_setlen(&c->out, c->out_limit);
}

void conn_close(conn_t *c)
{
	if (!c || c->closing)
		return;
	c->closing = 1;
	c->reading = 0;
	if (c->out.len == 0) {
		conn_kill(c);
		return;
	}
	conn_write(c);
}

void conn_set_data(conn_t *c, void *data) { c->data = data; }
void *conn_get_data(const conn_t *c) { return c->data; }
const char *conn_peer(const conn_t *c) { return c->peer; }
int conn_fd(const conn_t *c) { return c->fd; }

/* Refuse the peer: an error reply, then close. The reply goes out now
 * unless replies to earlier requests are still held (they must wait for
 * the commit, and this one must not overtake them). */
static void conn_refuse(conn_t *c, int rc, const char *why)
{
	info("%s: %s; closing connection", c->peer, why);
	int nothing_held = c->out_limit == c->out.len;
	conn_send_rc(c, rc, why);
	if (nothing_held && !c->dead) {
		held_del(c);
		c->out_limit = c->out.len;
	}
	conn_close(c);
}

static void conn_handle_frame(conn_t *c, const frame_t *f)
{
	uint32_t uid, gid;
	char *err = NULL;

	if (c->peercred) {
		uid = c->puid;
		gid = c->pgid;
		conn_authenticated(c);
	} else if (f->auth == AUTH_NONE) {
		uid = gid = AUTH_UID_NONE;
	} else {
		/* The credential was verified by conn_admit; the body must be
		 * the one it covers (the signed bytes: u16 type, body). */
		uint8_t t[2], got[32];
		put16(t, f->type);
		digest_sha256_2(t, 2, f->body, f->body_len, got);
		if (memcmp(got, c->digest, sizeof(got)) != 0) {
			conn_refuse(c, SLUICE_E_AUTH, "authentication failed: bad signature");
			return;
		}
		uid = c->cuid;
		gid = c->cgid;
	}
	enum msg_type type = (enum msg_type)f->type;
	void *msg = xcalloc(1, proto_size(type));
	if (proto_decode_budget(type, msg, f->body, f->body_len, net_decode_budget(type), &err)) {
		char *why = xasprintf("%s: %s", proto_name(type), err ? err : "malformed body");
		free(err);
		free(msg);
		conn_refuse(c, SLUICE_E_PROTOCOL, why);
		free(why);
		return;
	}
	c->awaiting = 1;          /* until we send something back */
	if (c->on_msg)
		c->on_msg(c, type, msg, uid, gid, c->arg);
	proto_free(type, msg);
	free(msg);
}

/* Admit the frame at in_off: its header (once; reserving its bytes for an
 * unauthenticated conn), then its credential, as soon as each is in.
 * 1 admitted (its body may be read), 0 need more, -1 refused. */
static int conn_admit(conn_t *c)
{
	if (c->body_ok)
		return 1;
	const uint8_t *p = (const uint8_t *)c->in.buf + c->in_off;
	size_t avail = c->in.len - c->in_off;
	if (!c->hdr_ok) {
		char *err = NULL;
		int r = net_frame_admit(c->pol, c->peercred, p, avail, &err);
		if (r < 0) {
			conn_refuse(c, SLUICE_E_PROTOCOL, err);
			free(err);
			return -1;
		}
		if (r == 0)
			return 0;
		if (c->ls && !c->authed) {
			/* Make room by dropping the oldest unauthenticated conns
			 * that hold frames in flight: a real client's request
			 * completes in moments, so holding the budget takes a
			 * steady stream of new conns, as holding the conn cap
			 * does. */
			listener_t *ls = c->ls;
			size_t need = (size_t)get32(p) + 4;
			conn_t *o = ls->unauth_head, *next;
			for (; o && ls->unauth_bytes + need > c->pol->unauth_bytes; o = next) {
				next = o->lnext;
				if (o == c || !o->reserved)
					continue;
				info("%s: %zu bytes of unauthenticated frames pending on the %s; dropping the oldest",
				     o->peer, ls->unauth_bytes, c->pol->name);
				unreserve(o);
				list_del(o);
				conn_kill(o);
			}
			if (ls->unauth_bytes + need > c->pol->unauth_bytes) {
				conn_refuse(c, SLUICE_E_PROTOCOL,
					    "too many bytes pending from unauthenticated connections; try again");
				return -1;
			}
			c->reserved = need;
			ls->unauth_bytes += need;
		}
		c->hdr_ok = 1;
	}
	if (c->peercred || get16(p + 10) == AUTH_NONE) {
		c->body_ok = 1;
		return 1;
	}
	uint32_t cred_len = get32(p + 12);
	if (avail < FRAME_HDR + (size_t)cred_len)
		return 0;
	char *err = NULL;
	if (!c->auth || auth_verify_cred(c->auth, p + FRAME_HDR, cred_len, c->digest, &c->cuid,
					 &c->cgid, &err) < 0) {
		char *why = xasprintf("authentication failed: %s",
				      err ? err : "no authentication configured");
		free(err);
		conn_refuse(c, SLUICE_E_AUTH, why);
		free(why);
		return -1;
	}
	conn_authenticated(c);
	c->body_ok = 1;
	return 1;
}

/* Handle every whole frame in the input buffer, then compact it. */
static void conn_parse(conn_t *c)
{
	while (!c->closing) {
		frame_t f;
		char *err = NULL;
		if (conn_admit(c) <= 0)
			break;
		int pr = net_frame_parse(c->in.buf + c->in_off, c->in.len - c->in_off, &f, &err);
		if (pr < 0) {
			conn_refuse(c, SLUICE_E_PROTOCOL, err);
			free(err);
			break;
		}
		if (pr == 0)
			break;
		c->in_off += f.total;
		c->hdr_ok = c->body_ok = 0;
		unreserve(c);
		conn_handle_frame(c, &f);
	}
	if (c->in_off) {
		size_t rest = c->in.len - c->in_off;
		memmove(c->in.buf, c->in.buf + c->in_off, rest);
		strbuf_setlen(&c->in, rest);
		c->in_off = 0;
	}
}

static void conn_read(conn_t *c)
{
	size_t got = 0;
	int eof = 0;

	/* Read a chunk, then handle what came: a frame's header is checked
	 * before more than a chunk of it is read. Once admitted, a big frame
	 * is read in big reads (up to READ_PER_EVENT a turn). */
	while (got < READ_PER_EVENT && !c->closing && !c->dead) {
		size_t want = READ_CHUNK;
		size_t avail = c->in.len - c->in_off;
		if (c->body_ok && avail >= 4) {
			size_t flen = (size_t)get32((const uint8_t *)c->in.buf + c->in_off) + 4;
			if (flen > avail + want)
				want = flen - avail;   /* one big read for a big frame */
			if (want > READ_PER_EVENT)
				want = READ_PER_EVENT;
		}
		strbuf_grow(&c->in, want);
		ssize_t n = read(c->fd, c->in.buf + c->in.len, want);
		if (n > 0) {
			strbuf_setlen(&c->in, c->in.len + (size_t)n);
			got += (size_t)n;
			c->active_ms = loop_now_ms(c->loop);
			conn_parse(c);
			if ((size_t)n < want)
				break;
			continue;
		}
		if (n == 0) {
			eof = 1;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		debug("%s: read: %s", c->peer, strerror(errno));
		conn_kill(c);
		return;
	}
	if (c->in.alloc > (4u << 20) && c->in.len < READ_CHUNK) {
		/* give back the memory of a big frame */
		strbuf_t nb = STRBUF_INIT;
		strbuf_add(&nb, c->in.buf, c->in.len);
		strbuf_release(&c->in);
		c->in = nb;
	}
	if (eof && !c->dead) {
		if (c->in.len && !c->closing)
			debug("%s: connection closed inside a frame", c->peer);
		conn_close(c);   /* what we still owe it is written, then freed */
	}
}

static void conn_event(loop_t *l, int fd, uint32_t events, void *arg)
{
	conn_t *c = arg;
	if (c->events == 0) {
		/* Watching nothing, yet woken: hang-up or error (epoll always
		 * reports those); the peer is gone, drop what was held. */
		conn_kill(c);
		return;
	}
	if (events & LOOP_WRITE)
		conn_write(c);
	if ((events & LOOP_READ) && c->reading && !c->dead)
		conn_read(c);
}

static void peer_name(conn_t *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	snprintf(c->peer, sizeof(c->peer), "fd %d", c->fd);
	if (getpeername(c->fd, (struct sockaddr *)&ss, &sl) < 0)
		return;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
		snprintf(c->peer, sizeof(c->peer), "%s:%u", host, ntohs(s->sin_port));
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;
		if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) {
			inet_ntop(AF_INET, &s->sin6_addr.s6_addr[12], host, sizeof(host));
			snprintf(c->peer, sizeof(c->peer), "%s:%u", host, ntohs(s->sin6_port));
		} else {
			inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
			snprintf(c->peer, sizeof(c->peer), "[%s]:%u", host, ntohs(s->sin6_port));
		}
	} else if (ss.ss_family == AF_UNIX) {
		if (c->peercred)
			snprintf(c->peer, sizeof(c->peer), "unix:uid=%u", c->puid);
		else
			snprintf(c->peer, sizeof(c->peer), "unix:fd=%d", c->fd);
	}
}

conn_t *conn_create(loop_t *l, int fd, auth_t *a, int peercred,
		    conn_msg_f on_msg, conn_close_f on_close, void *arg)
{
	conn_t *c = xcalloc(1, sizeof(*c));
	c->loop = l;
	c->fd = fd;
	c->auth = a;
	c->on_msg = on_msg;
	c->on_close = on_close;
	c->arg = arg;
	c->reading = 1;
	strbuf_init(&c->in);
	strbuf_init(&c->out);
	if (peercred) {
		struct ucred uc;
		socklen_t ul = sizeof(uc);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0) {
			error("SO_PEERCRED: %s", strerror(errno));
			close(fd);
			free(c);
			return NULL;
		}
		c->peercred = 1;
		c->puid = uc.uid;
		c->pgid = uc.gid;
	}
	peer_name(c);
	net_set_nonblock(fd);
	c->events = LOOP_READ;
	if (loop_add_fd(l, fd, LOOP_READ, conn_event, c) < 0) {
		error("%s: cannot watch connection: %s", c->peer, strerror(errno));
		close(fd);
		free(c);
		return NULL;
	}
	c->born_ms = c->active_ms = loop_now_ms(l);
	nconns++;
	return c;
}

/* ---- listeners ---- */

static listener_t *listeners;

/* How many conns may be open at once: the descriptor limit less what the
 * daemon needs for itself (state, logs, spool, children). */
size_t net_conn_count(void)
{
	return nconns;
}

static size_t conn_limit(void)
{
	struct rlimit rl;
	rlim_t n = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	if (n == RLIM_INFINITY || n > (1u << 24))
		n = 1u << 24;
	return n > 2 * FD_SPARE ? (size_t)n - FD_SPARE : FD_SPARE;
}

static void listener_resume(loop_t *l, void *arg)
{
	listener_t *ls = arg;
	ls->paused = 0;
	if (loop_mod_fd(l, ls->fd, LOOP_READ) < 0)
		error("%s: cannot resume accepting: %s", ls->pol->name, strerror(errno));
}

/* Stop accepting for a moment (the error is not going away by retrying
 * at once; a level-triggered listener would spin the loop). */
static void listener_pause(listener_t *ls)
{
	if (ls->paused)
		return;
	ls->paused = 1;
	loop_mod_fd(ls->loop, ls->fd, 0);
	loop_add_timer(ls->loop, ACCEPT_PAUSE_MS, listener_resume, ls);
}

/* Out of descriptors: give up the reserve to accept the pending conn and
 * close it at once (its client sees the close instead of hanging in the
 * backlog), then take the reserve back. 1 if one was shed. */
static int shed_one(int fd)
{
	if (reserve_fd < 0)
		return 0;
	close(reserve_fd);
	int x = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (x >= 0)
		close(x);
	reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return x >= 0;
}

static void listener_event(loop_t *l, int fd, uint32_t events, void *arg)
{
	listener_t *ls = arg;
	const net_policy_t *pol = ls->pol;
	size_t limit = conn_limit();
	for (int i = 0; i < 64; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			int e = errno;
			if (e == EINTR || e == ECONNABORTED)
				continue;
			if (e == EAGAIN || e == EWOULDBLOCK)
				return;
			error("%s: accept: %s", pol->name, strerror(e));
			if ((e == EMFILE || e == ENFILE) && shed_one(fd))
				continue;
			listener_pause(ls);
			return;
		}
		if (nconns >= limit) {
			close(cfd);
			error("%s: %zu connections open, at the limit; refusing a new one",
			      pol->name, nconns);
			continue;
		}
		/* Unauthenticated conns may hold at most a quarter of the
		 * descriptors per listener: the rest stays for real clients. */
		uint32_t max_unauth = pol->max_unauth;
		if (max_unauth > limit / 4)
			max_unauth = (uint32_t)(limit / 4) ? (uint32_t)(limit / 4) : 1;
		if (max_unauth && ls->nunauth >= max_unauth) {
			conn_t *old = ls->unauth_head;
			info("%s: %u unauthenticated connections on the %s; dropping the oldest",
			     old->peer, ls->nunauth, pol->name);
			unreserve(old);
			list_del(old);
			conn_kill(old);
		}
		if (!ls->peercred) {
			int one = 1;
			setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		}
		conn_t *c = conn_create(l, cfd, ls->auth, ls->peercred, ls->on_msg, ls->on_close,
					ls->arg);
		if (!c)
			continue;
		c->pol = pol;
		c->ls = ls;
		list_add(c);
	}
}

/* Enforce the policy's timeouts; re-arms itself. */
static void listener_sweep(loop_t *l, void *arg)
{
	listener_t *ls = arg;
	const net_policy_t *pol = ls->pol;
	uint64_t now = loop_now_ms(l);
	conn_t *c, *next;
	for (c = ls->unauth_head; c && pol->unauth_ms; c = next) {
		next = c->lnext;
		if (c->dead)
			continue;  /* gone already, reaped this turn */
		if (now - c->born_ms < pol->unauth_ms)
			break;     /* the list is in accept order */
		info("%s: no authenticated request within %u s; closing connection",
		     c->peer, pol->unauth_ms / 1000);
		unreserve(c);
		list_del(c);
		conn_kill(c);
	}
	for (c = ls->auth_head; c && pol->idle_ms; c = next) {
		next = c->lnext;
		if (c->dead || c->awaiting || now - c->active_ms < pol->idle_ms)
			continue;
		info("%s: idle for %u s; closing connection", c->peer, pol->idle_ms / 1000);
		list_del(c);
		conn_kill(c);
	}
	loop_add_timer(l, SWEEP_MS, listener_sweep, ls);
}

static int listen_fd(loop_t *l, int fd, auth_t *a, int peercred, const net_policy_t *pol,
		     conn_msg_f on_msg, conn_close_f on_close, void *arg)
{
	if (listen(fd, 1024) < 0)
		return -1;
	net_set_nonblock(fd);
	if (reserve_fd < 0)
		reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	listener_t *ls = xcalloc(1, sizeof(*ls));
	ls->loop = l;
	ls->fd = fd;
	ls->auth = a;
	ls->peercred = peercred;
	ls->pol = pol;
	ls->on_msg = on_msg;
	ls->on_close = on_close;
	ls->arg = arg;
	/* ls lives as long as the listening fd, i.e. the daemon; kept on a
	 * list so leak checkers see it as reachable. */
	if (loop_add_fd(l, fd, LOOP_READ, listener_event, ls) < 0) {
		free(ls);
		return -1;
	}
	ls->next = listeners;
	listeners = ls;
	loop_add_timer(l, SWEEP_MS, listener_sweep, ls);
	return fd;
}

int net_listen_tcp(loop_t *l, auth_t *a, const char *addr, uint16_t port,
		   const net_policy_t *pol, conn_msg_f on_msg, conn_close_f on_close, void *arg)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	char ps[16];
	int fd = -1, e = EADDRNOTAVAIL, one = 1;

	snprintf(ps, sizeof(ps), "%u", port);
	if (!addr) {
		/* all addresses: IPv6 dual-stack, else IPv4 */
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			int zero = 0;
			struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
						   .sin6_addr = IN6ADDR_ANY_INIT };
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(fd, (struct sockaddr *)&s6, sizeof(s6)) == 0)
				goto bound;
			e = errno;
			close(fd);
			fd = -1;
			if (e == EADDRINUSE) {
				errno = e;
				return -1;
			}
		}
		struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(port),
					  .sin_addr.s_addr = htonl(INADDR_ANY) };
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&s4, sizeof(s4)) < 0) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		goto bound;
	}
	if (getaddrinfo(addr, ps, &hints, &res)) {
		errno = EADDRNOTAVAIL;
		return -1;
	}
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		errno = e;
		return -1;
	}
bound:
	if (listen_fd(l, fd, a, 0, pol, on_msg, on_close, arg) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int net_listen_unix(loop_t *l, auth_t *a, const char *path, const net_policy_t *pol,
		    conn_msg_f on_msg, conn_close_f on_close, void *arg)
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
	/* A socket left by a previous run would make bind fail. */
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		goto fail;
	/* Any local user may connect: the kernel tells us who they are. */
	if (chmod(path, 0666) < 0)
		goto fail;
	if (listen_fd(l, fd, a, 1, pol, on_msg, on_close, arg) < 0)
		goto fail;
	return fd;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* The IPv4 address of an AF_INET or v4-mapped AF_INET6 one (host order),
 * 1; else 0. */
static int addr_v4(const struct sockaddr *a, uint32_t *v4)
{
	if (a->sa_family == AF_INET) {
		*v4 = ntohl(((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr);
		return 1;
	}
	const struct in6_addr *x = &((const struct sockaddr_in6 *)(const void *)a)->sin6_addr;
	if (a->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(x)) {
		*v4 = (uint32_t)x->s6_addr[12] << 24 | (uint32_t)x->s6_addr[13] << 16
			| (uint32_t)x->s6_addr[14] << 8 | x->s6_addr[15];
		return 1;
	}
	return 0;
}

int net_addr_same_host(const struct sockaddr *local, const struct sockaddr *peer)
{
	if (peer->sa_family == AF_UNIX)
		return 1;
	uint32_t p4, l4;
	if (addr_v4(peer, &p4)) {
		if ((p4 >> 24) == 127)
			return 1;
		return addr_v4(local, &l4) && l4 == p4;
	}
	if (peer->sa_family != AF_INET6)
		return 0;
	const struct in6_addr *p6 = &((const struct sockaddr_in6 *)(const void *)peer)->sin6_addr;
	if (IN6_IS_ADDR_LOOPBACK(p6))
		return 1;
	return local->sa_family == AF_INET6 &&
		!memcmp(p6, &((const struct sockaddr_in6 *)(const void *)local)->sin6_addr,
			sizeof(*p6));
}

int conn_is_peercred(const conn_t *c)
{
	return c->peercred;
}

int conn_peer_is_local(const conn_t *c)
{
	struct sockaddr_storage l, p;
	socklen_t ll = sizeof(l), pl = sizeof(p);
	int fd = conn_fd(c);
	if (getsockname(fd, (struct sockaddr *)&l, &ll) < 0 ||
	    getpeername(fd, (struct sockaddr *)&p, &pl) < 0)
		return 0;
	return net_addr_same_host((struct sockaddr *)&l, (struct sockaddr *)&p);
}
