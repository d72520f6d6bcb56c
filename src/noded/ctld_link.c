/*
 * ctld_link: the node daemon's one persistent connection to the
 * controller (runtime contract, "ctld <-> noded").
 *
 * noded connects out (non-blocking, so a slow or absent controller never
 * stalls the loop), sends MSG_NODE_REGISTER with its resources and the jobs
 * whose supervisors are alive here, and waits for MSG_RC. The controller
 * then uses this connection to send MSG_LAUNCH_JOB and MSG_SIGNAL_JOB; those
 * are accepted only here and only from root or SlurmUser. A heartbeat
 * (same struct) goes out every SlurmdTimeout/3, at most every 10 s
 * (SLUICE_HEARTBEAT_MS overrides), and at once when the controller sends
 * MSG_NODE_PING (after re-reading the config files when the ping carries
 * PING_F_RECONFIG: scontrol reconfigure). When the connection drops or registration is refused,
 * noded reconnects with backoff (100 ms doubling to 5 s, trying each
 * SlurmctldHost in turn) and registers again; jobs are not touched, so a
 * controller restart is invisible to them.
 *
 * The lease (fencing): each registration and heartbeat carries sent_ms,
 * this host's CLOCK_BOOTTIME when it was sent; the controller's answer
 * (MSG_RC to a registration, MSG_NODE_ACK echoing sent_ms to a heartbeat)
 * proves it heard the node at or after that time, so the lease is renewed
 * from the send time, never from the answer's arrival: the controller's
 * last_heard is then never earlier than the node's renewal. The renewal
 * goes to <spool>/lease, where every supervisor checks it (spool.c);
 * jobs stop once it is older than the lease (conf_node_lease). A
 * restarted noded keeps the renewal it finds there.
 *
 * Once a second it also looks for supervisors that died (supervisor_watch).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "health.h"
#include "noded.h"
#include "prolog.h"
#include "xalloc.h"

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

struct ctld_link {
	noded_t *nd;
	int fd;                  /* connecting socket, -1 when none */
	conn_t *conn;            /* established connection */
	int registered;
	uint64_t backoff_ms;
	uint64_t retry_timer, hb_timer;
	size_t host_idx;
	uint64_t hb_ms;
	uint64_t watch_timer;
	uint64_t reg_sent_ms;    /* sent_ms of the registration in flight */
	uint64_t renewed_ms;     /* the lease's last renewal (CLOCK_BOOTTIME) */
	uint64_t ping_seq;       /* last MSG_NODE_PING seq, echoed in heartbeats */
	int dying;               /* destroyed; freed when conn's on_close runs */
};

#define WATCH_MS 1000

/* Renew the lease from sent (the send time of a message the controller
 * answered). */
static void lease_renew(ctld_link_t *lk, uint64_t sent)
{
	if (sent <= lk->renewed_ms || sent > boottime_ms())
		return;
	lk->renewed_ms = sent;
	uint64_t lease_ms = (uint64_t)conf_node_lease(lk->nd->conf) * 1000u;
	if (spool_lease_write(lk->nd->spool, sent, lease_ms) < 0)
		error("cannot renew the node's lease in %s/lease: %m", lk->nd->spool);
}

static void link_connect(loop_t *l, void *arg);

static void link_retry(ctld_link_t *lk)
{
	if (lk->retry_timer)
		return;
	lk->retry_timer = loop_add_timer(lk->nd->loop, lk->backoff_ms, link_connect, lk);
	lk->backoff_ms = lk->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : lk->backoff_ms * 2;
	if (lk->nd->conf->nctld_hosts)
		lk->host_idx = (lk->host_idx + 1) % lk->nd->conf->nctld_hosts;
}

struct scan_ids {
	uint32_t *ids;
	uint32_t n;
	size_t alloc;
};

static void scan_one(const char *dir, const spool_rec_t *r, void *arg)
{
	struct scan_ids *s = arg;
	if (!r) {
		/* A half-made dir: nothing to re-attach to. */
		info("removing stale spool dir %s", dir);
		rm_rf(dir);
		return;
	}
	/* A supervisor that died is not listed (the controller ends a
	 * batch job it expected here as NODE_FAIL); supervisor_watch kills
	 * what is left of it. */
	if (!spool_rec_alive(r))
		return;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->ids[i] == r->job_id)
			return;
	s->ids = xgrow(s->ids, sizeof(*s->ids), s->n + 1, &s->alloc);
	s->ids[s->n++] = r->job_id;
}

/* Live job ids on this node (batch and steps); removes dead dirs. */
static void live_jobs(noded_t *nd, msg_node_register_t *reg)
{
	struct scan_ids s = { NULL, 0, 0 };
	spool_scan(nd->spool, scan_one, &s);
	reg->job_ids = s.ids;
	reg->njob_ids = s.n;
}

static void link_send_reg(ctld_link_t *lk, enum msg_type type)
{
	msg_node_register_t reg;
	memset(&reg, 0, sizeof(reg));
	if (type == MSG_NODE_REGISTER)
		resources_rescan();
	resources_fill(lk->nd, &reg);
	live_jobs(lk->nd, &reg);
	if (lk->nd->health) {
		/* A round at each registration; heartbeats carry the last. */
		if (type == MSG_NODE_REGISTER)
			health_round_quiet(lk->nd->health);
		reg.health_round = health_rounds(lk->nd->health);
		if (health_failing(lk->nd->health))
			reg.health = xstrdup(health_failing(lk->nd->health));
		reg.key_digest = xstrdup(health_key(lk->nd->health));
		reg.health_nchecks = health_nchecks(lk->nd->health);
	}
	reg.sent_ms = boottime_ms();
	reg.ping_seq = lk->ping_seq;
	if (type == MSG_NODE_REGISTER)
		lk->reg_sent_ms = reg.sent_ms;
	if (type == MSG_NODE_REGISTER)
		info("registering with the controller (%u running job%s)", reg.njob_ids,
		     reg.njob_ids == 1 ? "" : "s");
	conn_send(lk->conn, type, &reg);
	proto_free(MSG_NODE_REGISTER, &reg);
}

static void link_heartbeat(loop_t *l, void *arg)
{
	ctld_link_t *lk = arg;
	lk->hb_timer = loop_add_timer(l, lk->hb_ms, link_heartbeat, lk);
	if (lk->conn && lk->registered)
		link_send_reg(lk, MSG_NODE_HEARTBEAT);
}

static void link_watch(loop_t *l, void *arg)
{
	ctld_link_t *lk = arg;
	lk->watch_timer = loop_add_timer(l, WATCH_MS, link_watch, lk);
	supervisor_watch(lk->nd, lk->conn && lk->registered ? lk->conn : NULL);
}

static void link_drop(ctld_link_t *lk)
{
	conn_t *c = lk->conn;
	lk->conn = NULL;
	lk->registered = 0;
	if (c)
		conn_close(c);
	link_retry(lk);
}

static int sender_ok(const noded_t *nd, uint32_t uid)
{
	return uid == 0 || uid == nd->slurm_uid || uid == getuid();
}

static void link_on_msg(conn_t *c, enum msg_type type, void *msg, uint32_t uid,
			uint32_t gid, void *arg)
{
	ctld_link_t *lk = arg;
	noded_t *nd = lk->nd;
	if (c != lk->conn)
		return;
	switch (type) {
	case MSG_RC: {
		msg_rc_t *rc = msg;
		if (lk->registered)
			break;          /* a late answer to something else */
		if (rc->rc) {
			error("registration refused by the controller: %s%s%s",
			      slurm_strerror(rc->rc), rc->msg ? ": " : "", rc->msg ? rc->msg : "");
			link_drop(lk);
			return;
		}
		lk->registered = 1;
		lk->backoff_ms = BACKOFF_MIN_MS;
		lease_renew(lk, lk->reg_sent_ms);
		info("registered with the controller at %s", conn_peer(c));
		break;
	}
	case MSG_NODE_ACK:
		if (sender_ok(nd, uid)) {
			msg_node_ack_t *a = msg;
			lease_renew(lk, a->sent_ms);
			health_clock_sample(nd->health, a->sent_ms, boottime_ms(), a->ctld_time_ms);
		}
		break;
	case MSG_NODE_PING:
		/* Answer at once: the controller is deciding whether we live. */
		if (!sender_ok(nd, uid))
			break;
		if (((msg_node_ping_t *)msg)->seq > lk->ping_seq)
			lk->ping_seq = ((msg_node_ping_t *)msg)->seq;
		/* sluice preflight: a round now, its result in the answer */
		if ((((msg_node_ping_t *)msg)->flags & PING_F_HEALTH) && nd->health)
			health_round_quiet(nd->health);
		/* scontrol reconfigure: our files too, before answering */
		if ((((msg_node_ping_t *)msg)->flags & PING_F_RECONFIG) && nd->reconfigure) {
			info("reconfigure requested by the controller");
			nd->reconfigure(nd);
		}
		if (lk->registered)
			link_send_reg(lk, MSG_NODE_HEARTBEAT);
		break;
	case MSG_LAUNCH_JOB:
		if (!sender_ok(nd, uid)) {
			error("launch request from uid %u refused", uid);
			break;
		}
		supervisor_launch(nd, msg);
		break;
	case MSG_SIGNAL_JOB:
		if (!sender_ok(nd, uid)) {
			error("signal request from uid %u refused", uid);
			break;
		}
		if (((msg_signal_job_t *)msg)->flags & SIGNAL_F_KILL_JOB)
			spool_revoke(nd->spool, ((msg_signal_job_t *)msg)->job_id, time(NULL));
		supervisor_signal(nd, msg);
		/* the job is over here: its Epilog (prolog_node.c) */
		if (((msg_signal_job_t *)msg)->flags & SIGNAL_F_KILL_JOB)
			epilog_node_on_kill(nd, ((msg_signal_job_t *)msg)->job_id);
		break;
	case MSG_LAUNCH_PROLOG:
		if (!sender_ok(nd, uid)) {
			error("prolog request from uid %u refused", uid);
			break;
		}
		prolog_node_alloc(nd, msg);
		break;
	default:
		debug("ignoring %s from the controller", proto_name(type));
		break;
	}
}

static void link_on_close(conn_t *c, void *arg)
{
	ctld_link_t *lk = arg;
	if (c != lk->conn)
		return;
	if (lk->dying) {
		free(lk);
		return;
	}
	info("lost the connection to the controller; reconnecting");
	lk->conn = NULL;
	lk->registered = 0;
	link_retry(lk);
}

static void link_connected(ctld_link_t *lk, int fd)
{
	noded_t *nd = lk->nd;
	lk->conn = conn_create(nd->loop, fd, nd->auth, 0, link_on_msg, link_on_close, lk);
	conn_set_autoflush(lk->conn, 1);
	/* Ping numbers are the controller's per connection (a restarted
	 * one counts from 1 again): echo none this one did not send. */
	lk->ping_seq = 0;
	link_send_reg(lk, MSG_NODE_REGISTER);
}

static void link_connect_ready(loop_t *l, int fd, uint32_t events, void *arg)
{
	ctld_link_t *lk = arg;
	loop_del_fd(l, fd);
	lk->fd = -1;
	int err = 0;
	socklen_t len = sizeof(err);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		debug("connect to the controller: %s", strerror(err));
		close(fd);
		link_retry(lk);
		return;
	}
	link_connected(lk, fd);
}

static void link_connect(loop_t *l, void *arg)
{
	ctld_link_t *lk = arg;
	conf_t *conf = lk->nd->conf;
	lk->retry_timer = 0;
	if (lk->conn || lk->fd >= 0)
		return;
	if (conf->nctld_hosts && lk->host_idx >= conf->nctld_hosts)
		lk->host_idx = 0;   /* a reconfigure changed the list */
	const char *host = conf->nctld_hosts ? conf->ctld_addrs[lk->host_idx] : "localhost";
	char port[16];
	snprintf(port, sizeof(port), "%u", conf->ctld_port);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai) {
		debug("cannot resolve controller host '%s': %s", host, gai_strerror(gai));
		link_retry(lk);
		return;
	}
	int fd = -1, rc = -1;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
		if (rc == 0 || errno == EINPROGRESS)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		debug("cannot connect to the controller at %s:%s", host, port);
		link_retry(lk);
		return;
	}
	if (rc == 0) {
		link_connected(lk, fd);
		return;
	}
	lk->fd = fd;
	if (loop_add_fd(l, fd, LOOP_WRITE, link_connect_ready, lk) < 0) {
		close(fd);
		lk->fd = -1;
		link_retry(lk);
	}
}

ctld_link_t *ctld_link_start(noded_t *nd)
{
	ctld_link_t *lk = xcalloc(1, sizeof(*lk));
	lk->nd = nd;
	lk->fd = -1;
	lk->backoff_ms = BACKOFF_MIN_MS;
	/* Several heartbeats per SlurmdTimeout, so that one lost or late
	 * is not taken for a dead node. */
	lk->hb_ms = 10000;
	if (nd->conf->slurmd_timeout && nd->conf->slurmd_timeout * 1000u / 3 < lk->hb_ms)
		lk->hb_ms = nd->conf->slurmd_timeout * 1000u / 3;
	if (lk->hb_ms < 100)
		lk->hb_ms = 100;
	const char *e = getenv("SLUICE_HEARTBEAT_MS");
	if (e && atol(e) > 0)
		lk->hb_ms = (uint64_t)atol(e);
	lk->hb_timer = loop_add_timer(nd->loop, lk->hb_ms, link_heartbeat, lk);
	/* The lease a previous noded renewed still stands: jobs it left
	 * must not outlive it because this one started. */
	uint64_t r, l;
	if (spool_lease_read(nd->spool, &r, &l) == 0 && r <= boottime_ms()) {
		lk->renewed_ms = r;
		if (l != (uint64_t)conf_node_lease(nd->conf) * 1000u)
			spool_lease_write(nd->spool, r, (uint64_t)conf_node_lease(nd->conf) * 1000u);
	} else {
		lk->renewed_ms = boottime_ms();
		if (spool_lease_write(nd->spool, lk->renewed_ms,
				      (uint64_t)conf_node_lease(nd->conf) * 1000u) < 0)
			error("cannot write the node's lease in %s/lease: %m", nd->spool);
	}
	lk->watch_timer = loop_add_timer(nd->loop, WATCH_MS, link_watch, lk);
	link_connect(nd->loop, lk);
	return lk;
}

void ctld_link_poke(ctld_link_t *lk)
{
	if (lk && lk->conn && lk->registered)
		link_send_reg(lk, MSG_NODE_HEARTBEAT);
}

int ctld_link_registered(const ctld_link_t *lk)
{
	return lk && lk->conn && lk->registered;
}

void ctld_link_destroy(ctld_link_t *lk)
{
	if (!lk)
		return;
	if (lk->retry_timer)
		loop_cancel_timer(lk->nd->loop, lk->retry_timer);
	if (lk->hb_timer)
		loop_cancel_timer(lk->nd->loop, lk->hb_timer);
	if (lk->watch_timer)
		loop_cancel_timer(lk->nd->loop, lk->watch_timer);
	if (lk->fd >= 0) {
		loop_del_fd(lk->nd->loop, lk->fd);
		close(lk->fd);
	}
	if (lk->conn) {
		/* The conn layer frees the conn from a loop timer and calls
		 * link_on_close then, which must still find lk: lk goes there
		 * (the caller runs the loop a last turn). */
		lk->dying = 1;
		conn_close(lk->conn);
		return;
	}
	free(lk);
}
