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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- loop ---- */

static char order[16];
static size_t norder;

static void tmark(loop_t *l, void *arg)
{
	order[norder++] = *(const char *)arg;
	if (*(const char *)arg == 'c')
		loop_stop(l);
}

static void tagain(loop_t *l, void *arg)
{
	int *n = arg;
	if (++*n < 3)
		loop_add_timer(l, 0, tagain, arg);
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

int main(void)
{
	log_init("test_net", 0, LOG_LVL_ERROR, NULL);
	signal(SIGPIPE, SIG_IGN);
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
