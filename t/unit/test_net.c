/* test_net: the event loop (timers, fd removal inside callbacks), frames
 * between rpc clients and daemon conns over socketpairs, TCP and a Unix
 * socket: replies held until conn_flush_all, big replies written in parts,
 * oversized frames, bad credentials and unsigned frames refused while the
 * daemon keeps serving others. */
#include "tap.h"
#include "auth.h"
#include "errors.h"
#include "log.h"
#include "loop.h"
#include "net.h"
#include "proto_schema.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- loop ---- */

static char order[16];
static size_t norder;

static void tmark(loop_t *l, void *arg)
{
	order[norder++] = *(const char *)arg;
}

static void tagain(loop_t *l, void *arg)
{
	int *n = arg;
	if (++*n < 3)
		loop_add_timer(l, 0, tagain, arg);
}

/* Stops the loop once the three marks and the re-armed timer are done
 * (or after 5 s): on a loaded machine all of them may fall due in one
 * wake-up, and what a callback re-arms runs in the next. */
static int *again_count;
static uint64_t stop_deadline;
static void tstop_when_done(loop_t *l, void *arg)
{
	if ((norder >= 3 && *again_count >= 3) || loop_now_ms(l) > stop_deadline)
		loop_stop(l);
	else
		loop_add_timer(l, 1, tstop_when_done, NULL);
}

static int fd_hits;
static void fd_del_both(loop_t *l, int fd, uint32_t ev, void *arg)
{
	int *pair = arg;
	char c;
	fd_hits++;
	(void)!read(fd, &c, 1);
	/* remove ourselves and the other ready fd: its event must not run */
	loop_del_fd(l, pair[0]);
	loop_del_fd(l, pair[1]);
}

static void stop_cb(loop_t *l, void *arg) { loop_stop(l); }

static void test_loop(void)
{
	loop_t *l = loop_create();
	static const char a = 'a', b = 'b', c = 'c', x = 'x';
	loop_add_timer(l, 30, tmark, (void *)&c);
	loop_add_timer(l, 10, tmark, (void *)&a);
	uint64_t id = loop_add_timer(l, 15, tmark, (void *)&x);
	loop_add_timer(l, 20, tmark, (void *)&b);
	loop_cancel_timer(l, id);
	int again = 0;
	loop_add_timer(l, 0, tagain, &again);
	uint64_t t0 = loop_now_ms(l);
	again_count = &again;
	stop_deadline = t0 + 5000;
	loop_add_timer(l, 30, tstop_when_done, NULL);
	loop_run(l);
	order[norder] = 0;
	is_str(order, "abc", "timers fire in order, cancelled one does not");
	ok(loop_now_ms(l) - t0 >= 30, "timer waited");
	is_int(again, 3, "timer re-armed from its callback");

	int p1[2], p2[2];
	ok(pipe(p1) == 0 && pipe(p2) == 0, "pipes");
	int pair[2] = { p1[0], p2[0] };
	loop_add_fd(l, p1[0], LOOP_READ, fd_del_both, pair);
	loop_add_fd(l, p2[0], LOOP_READ, fd_del_both, pair);
	(void)!write(p1[1], "x", 1);
	(void)!write(p2[1], "x", 1);
	loop_add_timer(l, 20, stop_cb, NULL);
	loop_run(l);
	is_int(fd_hits, 1, "fd deleted inside a callback gets no stale event");
	ok(loop_add_fd(l, p1[0], LOOP_READ, fd_del_both, pair) == 0, "re-add after delete");
	ok(loop_add_fd(l, p1[0], LOOP_READ, fd_del_both, pair) < 0 && errno == EEXIST,
	   "double add refused");
	loop_del_fd(l, p1[0]);
	close(p1[0]); close(p1[1]); close(p2[0]); close(p2[1]);
	loop_destroy(l);
	loop_destroy(NULL);
}

/* ---- server ---- */

static const net_policy_t test_policy = {
	.name = "test port",
	.allowed = NET_MSG(MSG_PING) | NET_MSG(MSG_JOB_INFO_REQ) | NET_MSG(MSG_STEP_IO),
	.max_unauth = 16, .unauth_ms = 10000, .unauth_bytes = 16u << 20, .idle_ms = 60000,
};

static char tmpdir[64];
static conf_t conf_good;
static int closes, msgs;
static uint32_t last_uid;
static conn_t *pending;           /* conn awaiting flush (ordering test) */
static int client_fd = -1;        /* client side of the socketpair */
static int ordering_ok = -1;

static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1;
}

static void srv_msg(conn_t *c, enum msg_type type, void *msg, uint32_t uid, uint32_t gid, void *arg)
{
	msgs++;
	last_uid = uid;
	int *seen = conn_get_data(c);
	if (!seen) {
		seen = xcalloc(1, sizeof(int));
		conn_set_data(c, seen);
	}
	switch (type) {
	case MSG_PING: {
		if (uid == AUTH_UID_NONE) {
			conn_send_rc(c, ESLURM_ACCESS_DENIED, "no credential");
			break;
		}
		char *m = xasprintf("pong uid=%u", uid);
		conn_send_rc(c, 0, m);
		free(m);
		pending = c;
		break;
	}
	case MSG_JOB_INFO_REQ: {
		msg_info_req_t *rq = msg;
		msg_job_info_t ji = { .last_update = 42, .njobs = rq->job_id };
		ji.jobs = xcalloc(rq->job_id, sizeof(job_info_t));
		for (uint32_t i = 0; i < rq->job_id; i++) {
			ji.jobs[i].job_id = i + 1;
			ji.jobs[i].name = xasprintf("job-%u-with-a-longish-name-to-fill-buffers", i + 1);
			ji.jobs[i].command = xstrdup("/bin/some/command/that/is/long/enough");
		}
		conn_send(c, MSG_JOB_INFO, &ji);
		proto_free(MSG_JOB_INFO, &ji);
		break;
	}
	case MSG_JOB_WAIT:
		break;            /* answered later, like the controller's waiters */
	case MSG_STEP_IO: {
		/* echo, then close from inside on_msg */
		conn_send(c, MSG_STEP_IO, msg);
		conn_close(c);
		break;
	}
	default:
		conn_send_rc(c, ESLURM_NOT_SUPPORTED, NULL);
	}
}

static void srv_close(conn_t *c, void *arg)
{
	int *seen = conn_get_data(c);
	closes++;
	if (seen && ++*seen > 1)
		closes += 1000;   /* on_close twice: fails the count checks */
	if (pending == c)
		pending = NULL;
	free(seen);
	conn_set_data(c, NULL);
}

static void before_sleep(loop_t *l, void *arg)
{
	if (pending && client_fd >= 0) {
		/* reply queued in on_msg: nothing may be on the wire yet */
		int early = readable(client_fd);
		conn_flush_all(l);
		struct pollfd p = { .fd = client_fd, .events = POLLIN };
		int now = poll(&p, 1, 1000) == 1;
		ordering_ok = !early && now;
		pending = NULL;
		loop_stop(l);
		return;
	}
	conn_flush_all(l);
}

static void test_socketpair(loop_t *l, auth_t *a)
{
	int sv[2];
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	conn_t *c = conn_create(l, sv[1], a, 0, srv_msg, srv_close, NULL);
	ok(c != NULL, "conn_create");
	rpc_t *r = rpc_from_fd(&conf_good, sv[0]);
	client_fd = sv[0];
	msg_empty_t e = { 0 };
	is_int(rpc_send(r, MSG_PING, &e), 0, "rpc_send ping");
	loop_add_timer(l, 5000, stop_cb, NULL);
	loop_run(l);
	is_int(ordering_ok, 1, "reply written only by conn_flush_all, in before_sleep");
	is_int(last_uid, geteuid(), "uid from the HMAC credential");
	enum msg_type t;
	void *m = NULL;
	int rc = rpc_recv(r, &t, &m, 1000);
	ok(rc == 0 && t == MSG_RC && ((msg_rc_t *)m)->rc == 0, "ping answered");
	char want[32];
	snprintf(want, sizeof(want), "pong uid=%u", geteuid());
	if (m)
		is_str(((msg_rc_t *)m)->msg, want, "reply text");
	proto_msg_destroy(t, m);

	/* close from inside on_msg: echo still written, on_close once */
	int before = closes;
	client_fd = -1;
	msg_step_io_t io = { .task = 3, .stream = STEP_IO_STDOUT, .len = 5, .data = (uint8_t *)"a\0b\nc" };
	is_int(rpc_send(r, MSG_STEP_IO, &io), 0, "send io");
	conn_set_autoflush(c, 1);
	loop_add_timer(l, 200, stop_cb, NULL);
	loop_run(l);
	m = NULL;
	rc = rpc_recv(r, &t, &m, 1000);
	ok(rc == 0 && t == MSG_STEP_IO && ((msg_step_io_t *)m)->len == 5 &&
	   !memcmp(((msg_step_io_t *)m)->data, "a\0b\nc", 5), "echo before close");
	proto_msg_destroy(t, m);
	rc = rpc_recv(r, &t, &m, 1000);
	is_int(rc, SLUICE_E_CONNECT, "then the conn is closed");
	is_int(closes - before, 1, "on_close exactly once");
	rpc_close(r);

	/* recv timeout */
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	r = rpc_from_fd(NULL, sv[0]);
	rc = rpc_recv(r, &t, &m, 50);
	is_int(rc, SLUICE_E_TIMEOUT, "rpc_recv times out");
	rpc_close(r);
	close(sv[1]);
}

/* ---- clients in child processes ---- */

static void make_conf(conf_t *c, const char *dir)
{
	memset(c, 0, sizeof(*c));
	c->dir = (char *)dir;
	c->auth_type = (char *)"auth/slurm";
	c->message_timeout = 5;
	c->state_save_location = (char *)dir;
	/* the controller's socket: dir/sluice-ctld.sock (conf_ctld_socket) */
	static char pid_file[256];
	snprintf(pid_file, sizeof(pid_file), "%s/ctld.pid", dir);
	c->slurmctld_pid_file = pid_file;
	c->ctld_port = 6817;
}

/* exit codes: 0 ok, else the number of the failed check */
static int child_good(void)
{
	enum msg_type t;
	void *m;
	char *txt = NULL;
	int rc = rpc_call_ctld_rc(&conf_good, MSG_PING, &(msg_empty_t){ 0 }, &txt);
	if (rc || !txt || strncmp(txt, "pong", 4))
		return 1;
	free(txt);
	msg_info_req_t rq = { .job_id = 20000 };
	rc = rpc_call_ctld(&conf_good, MSG_JOB_INFO_REQ, &rq, &t, &m);
	if (rc || t != MSG_JOB_INFO)
		return 2;
	msg_job_info_t *ji = m;
	if (ji->njobs != 20000 || ji->last_update != 42 || ji->jobs[19999].job_id != 20000 ||
	    strncmp(ji->jobs[19999].name, "job-20000-", 10))
		return 3;
	proto_msg_destroy(t, m);
	return 0;
}

static int raw_connect(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	return fd;
}

static int child_oversized(uint16_t port)
{
	int fd = raw_connect(port);
	if (fd < 0)
		return 1;
	uint8_t h[16] = { 0x10, 0, 0, 0, 0x53, 0x4c, 0, 1, 0, MSG_PING, 0, 0, 0, 0, 0, 0 };
	if (write(fd, h, sizeof(h)) != sizeof(h))
		return 2;
	rpc_t *r = rpc_from_fd(NULL, fd);
	enum msg_type t;
	void *m;
	int rc = rpc_recv(r, &t, &m, 5000);
	if (rc || t != MSG_RC || ((msg_rc_t *)m)->rc != SLUICE_E_PROTOCOL ||
	    !strstr(((msg_rc_t *)m)->msg, "exceeds"))
		return 3;
	proto_msg_destroy(t, m);
	if (rpc_recv(r, &t, &m, 5000) != SLUICE_E_CONNECT)
		return 4;
	rpc_close(r);
	return 0;
}

static int child_garbage(uint16_t port)
{
	int fd = raw_connect(port);
	if (fd < 0)
		return 1;
	if (write(fd, "GET / HTTP/1.0\r\n\r\n", 18) != 18)
		return 2;
	rpc_t *r = rpc_from_fd(NULL, fd);
	enum msg_type t;
	void *m;
	int rc = rpc_recv(r, &t, &m, 5000);
	if (rc || t != MSG_RC || ((msg_rc_t *)m)->rc != SLUICE_E_PROTOCOL)
		return 3;
	proto_msg_destroy(t, m);
	rpc_close(r);
	return 0;
}

static int child_wrong_key(void)
{
	char *d = xasprintf("%s/other", tmpdir);
	conf_t c;
	make_conf(&c, d);
	char *txt = NULL;
	int rc = rpc_call_ctld_rc(&c, MSG_PING, &(msg_empty_t){ 0 }, &txt);
	if (rc != SLUICE_E_AUTH || !txt || !strstr(txt, "bad signature"))
		return 1;
	free(txt);
	free(d);
	return 0;
}

static int child_unsigned(uint16_t port)
{
	/* no auth at all: an AUTH_NONE frame, refused by the policy */
	int fd = raw_connect(port);
	if (fd < 0)
		return 1;
	rpc_t *r = rpc_from_fd(NULL, fd);
	if (rpc_send(r, MSG_PING, &(msg_empty_t){ 0 }))
		return 2;
	enum msg_type t;
	void *m;
	if (rpc_recv(r, &t, &m, 5000) || t != MSG_RC || ((msg_rc_t *)m)->rc != SLUICE_E_PROTOCOL
	    || !strstr(((msg_rc_t *)m)->msg, "authentication required"))
		return 3;
	proto_msg_destroy(t, m);
	rpc_close(r);
	return 0;
}

static int child_unix(void)
{
	/* cannot sign (no key): the Unix socket, identified by SO_PEERCRED */
	unsetenv("SLUICE_CTLD_ADDR");
	conf_t c;
	make_conf(&c, tmpdir);
	c.auth_info = (char *)"key=/nonexistent/slurm.key";
	char *txt = NULL;
	int rc = rpc_call_ctld_rc(&c, MSG_PING, &(msg_empty_t){ 0 }, &txt);
	char want[32];
	snprintf(want, sizeof(want), "pong uid=%u", geteuid());
	if (rc || !txt || strcmp(txt, want))
		return 1;
	free(txt);
	return 0;
}

static int child_nothing_listening(void)
{
	setenv("SLUICE_CTLD_ADDR", "127.0.0.1:1", 1);
	char *txt = NULL;
	int rc = rpc_call_ctld_rc(&conf_good, MSG_PING, &(msg_empty_t){ 0 }, &txt);
	return rc == SLUICE_E_CONNECT ? 0 : 1;
}

static pid_t kids[16];
static const char *kid_names[16];
static int kid_status[16];
static int nkids, nreaped;

static void reap_timer(loop_t *l, void *arg)
{
	for (int i = 0; i < nkids; i++) {
		int st;
		if (kids[i] > 0 && waitpid(kids[i], &st, WNOHANG) == kids[i]) {
			kid_status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
			kids[i] = 0;
			nreaped++;
		}
	}
	if (nreaped == nkids)
		loop_stop(l);
	else
		loop_add_timer(l, 10, reap_timer, NULL);
}

static void spawn(const char *name, int (*fn)(uint16_t), uint16_t port)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		alarm(20);
		_exit(fn(port));
	}
	kid_names[nkids] = name;
	kids[nkids++] = p;
}

static int w_good(uint16_t p) { return child_good(); }
static int w_wrong_key(uint16_t p) { return child_wrong_key(); }
static int w_unix(uint16_t p) { return child_unix(); }
static int w_none(uint16_t p) { return child_nothing_listening(); }

/* ---- listener policy: header checks, caps, timeouts ---- */

static const net_policy_t tight_policy = {
	.name = "tight port",
	.allowed = NET_MSG(MSG_PING) | NET_MSG(MSG_JOB_INFO_REQ) | NET_MSG(MSG_JOB_WAIT)
		| NET_MSG(MSG_STEP_IO),
	.unsigned_ok = NET_MSG(MSG_STEP_IO),
	.max_unauth = 3, .unauth_ms = 500, .unauth_bytes = 256u << 10, .idle_ms = 400,
};

static void hdr(uint8_t *h, uint32_t total, uint16_t type, uint16_t auth, uint32_t cred_len)
{
	uint32_t v = total - 4;
	h[0] = v >> 24; h[1] = v >> 16; h[2] = v >> 8; h[3] = v;
	h[4] = 0x53; h[5] = 0x4c; h[6] = 0; h[7] = PROTO_VERSION;
	h[8] = type >> 8; h[9] = type; h[10] = auth >> 8; h[11] = auth;
	h[12] = cred_len >> 24; h[13] = cred_len >> 16; h[14] = cred_len >> 8; h[15] = cred_len;
}

/* net_frame_admit refuses h with an error containing want. */
static int admit_refuses(const net_policy_t *pol, int peercred, const uint8_t *h,
			 const char *want)
{
	char *err = NULL;
	int r = net_frame_admit(pol, peercred, h, 16, &err);
	int good = r < 0 && err && strstr(err, want);
	if (!good)
		printf("# got %d: %s\n", r, err ? err : "(no error)");
	free(err);
	return good;
}

static void test_admit(void)
{
	uint8_t h[16];
	char *err = NULL;
	hdr(h, 100, MSG_PING, AUTH_HMAC, 65);
	is_int(net_frame_admit(&tight_policy, 0, h, 16, &err), 1, "signed ping admitted");
	is_int(net_frame_admit(&tight_policy, 0, h, 12, &err), 0, "partial header: need more");
	hdr(h, 100, MSG_SUBMIT, AUTH_HMAC, 65);
	ok(admit_refuses(&tight_policy, 0, h, "MSG_SUBMIT is not accepted on the tight port"),
	   "type not taken here");
	hdr(h, 128u << 10, MSG_PING, AUTH_HMAC, 65);
	ok(admit_refuses(&tight_policy, 0, h, "exceeds its limit"), "ping of 128 KB over its cap");
	hdr(h, 100, MSG_JOB_INFO_REQ, AUTH_NONE, 0);
	ok(admit_refuses(&tight_policy, 0, h, "authentication required"), "unsigned request refused");
	is_int(net_frame_admit(&tight_policy, 1, h, 16, &err), 1,
	       "... but taken on a Unix socket (peer credentials)");
	hdr(h, 100, MSG_STEP_IO, AUTH_NONE, 0);
	is_int(net_frame_admit(&tight_policy, 0, h, 16, &err), 1, "unsigned where the policy allows");
	hdr(h, 10000, MSG_PING, AUTH_HMAC, 5000);
	ok(admit_refuses(&tight_policy, 0, h, "credential"), "oversized credential refused");
	hdr(h, 100, MSG_SUBMIT, AUTH_NONE, 0);
	is_int(net_frame_admit(NULL, 0, h, 16, &err), 1, "no policy: any type");
	hdr(h, 20u << 20, MSG_SUBMIT, AUTH_HMAC, 65);
	ok(admit_refuses(NULL, 0, h, "exceeds its limit"), "no policy: the caps still apply");
	ok(net_frame_cap(MSG_PING) < net_frame_cap(MSG_SUBMIT) &&
	   net_frame_cap(MSG_SUBMIT) <= PROTO_MAX_FRAME &&
	   net_frame_cap(MSG_JOB_INFO) == PROTO_MAX_FRAME + 4, "caps: small requests, big answers");
	ok(net_decode_budget(MSG_PING) < (1u << 20), "a ping may not decode into megabytes");

	/* the sets hold 128 types; a type past the last one is refused even
	 * by a policy that allows every bit */
	net_msgset_t hi = NET_MSG(100) | NET_MSG(MSG_PING);
	ok((hi & NET_MSG(100)) && (hi & NET_MSG(MSG_PING)) && !(hi & NET_MSG(36)) &&
	   !(hi & NET_MSG(100 - 64)), "a set holds types past 64 apart from the low ones");
	net_policy_t all = tight_policy;
	all.allowed = ~(net_msgset_t)0;
	hdr(h, 100, MSG_TYPE_END, AUTH_HMAC, 65);
	ok(admit_refuses(&all, 0, h, "unknown message type"), "the type after the last one is refused");
	hdr(h, 100, 0xffff, AUTH_HMAC, 65);
	ok(admit_refuses(&all, 0, h, "unknown message type 65535"), "type 65535 is refused");
}

/* 1 if the peer closed fd within ms (data before the close is skipped). */
static int closed_within(int fd, int ms)
{
	char buf[4096];
	for (int waited = 0; waited <= ms; waited += 50) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 50) == 1) {
			ssize_t n = read(fd, buf, sizeof(buf));
			if (n <= 0)
				return 1;
		}
	}
	return 0;
}

static int refusal(int fd, const char *what)
{
	rpc_t *r = rpc_from_fd(NULL, fd);
	enum msg_type t;
	void *m = NULL;
	int ok_ = rpc_recv(r, &t, &m, 3000) == 0 && t == MSG_RC && ((msg_rc_t *)m)->msg &&
		strstr(((msg_rc_t *)m)->msg, what);
	proto_msg_destroy(t, m);
	rpc_close(r);
	return ok_;
}

static int child_refused_before_body(uint16_t port)
{
	/* only the header of a 512 KB unsigned request: refused at once */
	int fd = raw_connect(port);
	uint8_t h[16];
	hdr(h, 512u << 10, MSG_JOB_INFO_REQ, AUTH_NONE, 0);
	if (fd < 0 || write(fd, h, 16) != 16)
		return 1;
	return refusal(fd, "authentication required") ? 0 : 2;
}

static int child_evict_oldest(uint16_t port)
{
	int fds[4];
	for (int i = 0; i < 4; i++) {
		if ((fds[i] = raw_connect(port)) < 0)
			return 1;
		usleep(50000);
	}
	if (!closed_within(fds[0], 300))
		return 2;       /* the oldest idle one made room */
	if (closed_within(fds[3], 0))
		return 3;
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A byte every 100 ms: cut for its deadline (unauth_ms, 500 ms, checked
 * by a 1 s sweep), not at once and not at the end. Timed by the clock,
 * not by the bytes sent: on a loaded machine this child may get to send
 * only a few of them before the deadline. */
static int child_slowloris(uint16_t port)
{
	uint64_t t0 = mono_ms();
	int fd = raw_connect(port);
	uint8_t f[16 + 65 + 4000];
	memset(f, 0, sizeof(f));
	hdr(f, sizeof(f), MSG_PING, AUTH_HMAC, 65);
	for (size_t i = 0; i < sizeof(f); i++) {
		if (write(fd, f + i, 1) != 1 || closed_within(fd, 100)) {
			uint64_t el = mono_ms() - t0;
			return el < 450 ? 1 : i + 1 >= sizeof(f) ? 2 : 0;
		}
	}
	return 3;
}

static int child_idle_authenticated(uint16_t port)
{
	int fd = raw_connect(port);
	rpc_t *r = rpc_from_fd(&conf_good, fd);
	enum msg_type t;
	void *m = NULL;
	if (rpc_send(r, MSG_PING, &(msg_empty_t){ 0 }) || rpc_recv(r, &t, &m, 3000) || t != MSG_RC)
		return 1;
	proto_msg_destroy(t, m);
	/* answered and silent: closed after idle_ms (and the 1 s sweep) */
	int rc = closed_within(fd, 3000) ? 0 : 2;
	rpc_close(r);
	return rc;
}

static int child_waiting_is_not_idle(uint16_t port)
{
	int fd = raw_connect(port);
	rpc_t *r = rpc_from_fd(&conf_good, fd);
	msg_job_wait_t w = { .job_id = 1, .until = WAIT_UNTIL_FINISHED };
	if (rpc_send(r, MSG_JOB_WAIT, &w))
		return 1;
	/* well past idle_ms and unauth_ms: still open, waiting */
	int rc = closed_within(fd, 2500) ? 2 : 0;
	rpc_close(r);
	return rc;
}

static int child_unauth_bytes(uint16_t port)
{
	/* two unauthenticated conns announcing 200 KB unsigned frames (the
	 * policy takes MSG_STEP_IO unsigned): the second passes the 256 KB of
	 * frames in flight, and the first (the oldest) is dropped to make
	 * room; the second's frame then goes through */
	static uint8_t f[200u << 10];
	size_t blen = sizeof(f) - 16;
	hdr(f, sizeof(f), MSG_STEP_IO, AUTH_NONE, 0);
	/* body: one unknown length-delimited field (tag 15), skipped */
	f[16] = (15u << 3) | 1;
	f[17] = 0x80 | ((blen - 5) & 0x7f);
	f[18] = 0x80 | (((blen - 5) >> 7) & 0x7f);
	f[19] = 0x80 | (((blen - 5) >> 14) & 0x7f);
	f[20] = ((blen - 5) >> 21) & 0x7f;
	int a = raw_connect(port), b = raw_connect(port);
	if (a < 0 || b < 0 || write(a, f, 64) != 64)
		return 1;
	usleep(100000);
	if (closed_within(a, 0))
		return 2;
	if (write(b, f, 64) != 64)
		return 3;
	if (!closed_within(a, 1000))
		return 4;
	if (write(b, f + 64, sizeof(f) - 64) != (ssize_t)(sizeof(f) - 64))
		return 5;
	rpc_t *r = rpc_from_fd(NULL, b);
	enum msg_type t;
	void *m = NULL;
	int rc = rpc_recv(r, &t, &m, 3000) == 0 && t == MSG_STEP_IO ? 0 : 6;
	proto_msg_destroy(t, m);
	rpc_close(r);
	return rc;
}

static int child_garbage_cred_before_body(uint16_t port)
{
	/* a 200 KB signed request whose credential is garbage: refused once
	 * the credential is in, the body never sent */
	uint8_t h[16 + 97];
	memset(h, 0, sizeof(h));
	hdr(h, 200u << 10, MSG_JOB_INFO_REQ, AUTH_HMAC, 97);
	h[16] = 2;
	int fd = raw_connect(port);
	if (fd < 0 || write(fd, h, sizeof(h)) != sizeof(h))
		return 1;
	return refusal(fd, "authentication failed: bad signature") ? 0 : 2;
}

static void test_policies(loop_t *l, auth_t *a)
{
	test_admit();
	int lfd = net_listen_tcp(l, a, "127.0.0.1", 0, &tight_policy, srv_msg, srv_close, NULL);
	ok(lfd >= 0, "listen with a tight policy");
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	uint16_t port = ntohs(sa.sin_port);
	nkids = nreaped = 0;
	spawn("refused before the body", child_refused_before_body, port);
	spawn("a garbage credential is refused before the body", child_garbage_cred_before_body, port);
	loop_add_timer(l, 10, reap_timer, NULL);
	loop_run(l);
	/* one at a time: they share the unauthenticated cap */
	spawn("a new conn evicts the oldest unauthenticated one", child_evict_oldest, port);
	loop_add_timer(l, 10, reap_timer, NULL);
	loop_run(l);
	spawn("slowloris cut", child_slowloris, port);
	spawn("idle authenticated conn closed", child_idle_authenticated, port);
	spawn("a conn waiting for its answer is not idle", child_waiting_is_not_idle, port);
	loop_add_timer(l, 10, reap_timer, NULL);
	loop_run(l);
	spawn("bytes of unauthenticated frames capped", child_unauth_bytes, port);
	loop_add_timer(l, 10, reap_timer, NULL);
	uint64_t guard = loop_add_timer(l, 30000, stop_cb, NULL);
	loop_run(l);
	loop_cancel_timer(l, guard);
	for (int i = 0; i < nkids; i++)
		is_int(kid_status[i], 0, "policy: %s", kid_names[i]);
}

/* Out of descriptors: the listener sheds connections through its reserve
 * descriptor and does not spin. Runs in a child (it eats descriptors). */
static int emfile_server(int port_pipe)
{
	loop_t *l = loop_create();
	int lfd = net_listen_tcp(l, NULL, "127.0.0.1", 0, &tight_policy, srv_msg, srv_close, NULL);
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	uint16_t port = ntohs(sa.sin_port);
	/* leave no descriptor free */
	while (open("/dev/null", O_RDONLY) >= 0)
		;
	if (write(port_pipe, &port, sizeof(port)) != sizeof(port))
		return 1;
	loop_add_timer(l, 2000, stop_cb, NULL);
	loop_run(l);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long ms = ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000
		+ ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000;
	return ms > 1000 ? 2 : 0;   /* a spinning loop burns the whole 2 s */
}

static void test_emfile(void)
{
	int pp[2];
	ok(pipe(pp) == 0, "pipe");
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		close(pp[0]);
		struct rlimit rl = { 64, 64 };
		setrlimit(RLIMIT_NOFILE, &rl);
		_exit(emfile_server(pp[1]));
	}
	close(pp[1]);
	uint16_t port = 0;
	ok(read(pp[0], &port, sizeof(port)) == sizeof(port), "server out of descriptors");
	close(pp[0]);
	int shed = 0;
	for (int i = 0; i < 5; i++) {
		int fd = raw_connect(port);
		shed += fd >= 0 && closed_within(fd, 1000);
		if (fd >= 0)
			close(fd);
	}
	is_int(shed, 5, "each pending connection is accepted and closed, not left hanging");
	int st = 0;
	waitpid(p, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the loop did not spin on EMFILE (status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static struct sockaddr_storage sa_of(const char *ip)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *b = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, ip, &a->sin_addr) == 1)
		a->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, ip, &b->sin6_addr) == 1)
		b->sin6_family = AF_INET6;
	return ss;
}

/* Who counts as "this host" for requests answered to local clients only
 * (scontrol listpids on the node daemon's step port). */
static void test_same_host(void)
{
	static const struct { const char *local, *peer; int same; } cases[] = {
		{ "127.0.0.1", "127.0.0.1", 1 },
		{ "127.0.0.1", "127.0.0.5", 1 },          /* all of 127/8 is loopback */
		{ "10.1.2.3", "10.1.2.3", 1 },            /* NodeAddr to itself */
		{ "10.1.2.3", "10.1.2.4", 0 },            /* another node */
		{ "0.0.0.0", "10.1.2.4", 0 },
		{ "::1", "::1", 1 },
		{ "fd00::1", "fd00::1", 1 },
		{ "fd00::1", "fd00::2", 0 },
		{ "::ffff:10.1.2.3", "::ffff:10.1.2.3", 1 },
		{ "::ffff:10.1.2.3", "::ffff:10.9.9.9", 0 },
		{ "::ffff:10.1.2.3", "::ffff:127.0.0.1", 1 },
		{ "10.1.2.3", "::ffff:10.1.2.3", 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sockaddr_storage l = sa_of(cases[i].local), p = sa_of(cases[i].peer);
		is_int(net_addr_same_host((struct sockaddr *)&l, (struct sockaddr *)&p), cases[i].same,
		       "same host: local %s, peer %s", cases[i].local, cases[i].peer);
	}
}

int main(void)
{
	log_init("test_net", 0, LOG_LVL_ERROR, NULL);
	signal(SIGPIPE, SIG_IGN);
	test_same_host();
	test_loop();

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_net.XXXXXX");
	ok(mkdtemp(tmpdir) != NULL, "temp dir");
	char *key = xasprintf("%s/slurm.key", tmpdir);
	char *odir = xasprintf("%s/other", tmpdir);
	char *okey = xasprintf("%s/slurm.key", odir);
	char *err = NULL;
	mkdir(odir, 0700);
	ok(auth_keygen(key, &err) == 0 && auth_keygen(okey, &err) == 0, "keys");
	make_conf(&conf_good, tmpdir);
	auth_t *a = auth_create(&conf_good, &err);
	ok(a && auth_can_sign(a), "auth/slurm with a key");

	loop_t *l = loop_create();
	loop_set_before_sleep(l, before_sleep, NULL);
	test_socketpair(l, a);

	int lfd = net_listen_tcp(l, a, "127.0.0.1", 0, &test_policy, srv_msg, srv_close, NULL);
	ok(lfd >= 0, "listen tcp");
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	uint16_t port = ntohs(sa.sin_port);
	char *sock = xasprintf("%s/sluice-ctld.sock", tmpdir);
	ok(net_listen_unix(l, a, sock, &test_policy, srv_msg, srv_close, NULL) >= 0, "listen unix");
	char addr[32];
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	setenv("SLUICE_CTLD_ADDR", addr, 1);

	closes = 0;
	spawn("good client, big reply", w_good, port);
	spawn("oversized frame", child_oversized, port);
	spawn("garbage", child_garbage, port);
	spawn("wrong key", w_wrong_key, port);
	spawn("unsigned frame", child_unsigned, port);
	spawn("unix socket, peer credentials", w_unix, port);
	spawn("nothing listening", w_none, port);
	spawn("good client again", w_good, port);
	loop_add_timer(l, 10, reap_timer, NULL);
	uint64_t guard = loop_add_timer(l, 30000, stop_cb, NULL);
	loop_run(l);
	loop_cancel_timer(l, guard);
	for (int i = 0; i < nkids; i++)
		is_int(kid_status[i], 0, "client: %s", kid_names[i]);
	/* let the daemon notice the last disconnects */
	loop_add_timer(l, 100, stop_cb, NULL);
	loop_run(l);
	is_int(closes, 9, "every connection closed exactly once (9 conns)");

	test_policies(l, a);
	test_emfile();

	loop_destroy(l);
	auth_destroy(a);
	unlink(sock);
	unlink(key);
	unlink(okey);
	rmdir(odir);
	rmdir(tmpdir);
	free(sock); free(key); free(okey); free(odir);
	return done_testing();
}
