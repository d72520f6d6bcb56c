/*
 * test_pmi2: the PMI wire parser (lib/pmi2_wire.c) and the step
 * supervisor's PMI server (noded/pmi2.c) driven over real socketpairs:
 * PMI-1 and PMI-2 clients, the fence through a fake srun, node attributes,
 * abort, and what is no command.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "noded/pmi2.h"
#include "pmi2_wire.h"
#include "tap.h"

static strbuf_t sent;      /* what the server sent "srun" */
static int nsent;

static int fake_send(void *arg, const void *data, size_t len)
{
	strbuf_reset(&sent);
	if (len)
		strbuf_add(&sent, data, len);
	nsent++;
	return 0;
}

/* Write s to the task's end, let the server read it, return what it
 * answered (static buffer; "" if nothing). */
static const char *talk(pmi_srv_t *s, int srv_fd, int task_fd, const char *msg)
{
	static char buf[8192];
	size_t len = strlen(msg);
	if (len && write(task_fd, msg, len) != (ssize_t)len)
		return "write failed";
	pmi_srv_io(s, srv_fd, POLLIN);
	struct pollfd p = { task_fd, POLLIN, 0 };
	ssize_t n = 0;
	if (poll(&p, 1, 0) == 1)
		n = read(task_fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int srv_fd_of(pmi_srv_t *s, size_t i)
{
	struct pollfd pf[8];
	size_t n = pmi_srv_pollfds(s, pf);
	return i < n ? pf[i].fd : -1;
}

static const char *v2(const char *body)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf), "%6zu%s", strlen(body), body);
	return buf;
}

static void kv_count(void *arg, const char *k, const char *v)
{
	(*(int *)arg)++;
}

int main(void)
{
	pmi_cmd_t c;
	/* ---- wire ---- */
	const char *l1 = "cmd=put kvsname=1.0 key=a value=b=c\ncmd=get";
	ssize_t took = pmi_wire_take(l1, strlen(l1), 0, &c);
	is_int(took, 36, "a PMI-1 line is taken up to its newline");
	is_str(pmi_cmd_name(&c), "put", "its command");
	is_str(pmi_cmd_get(&c, "value"), "b=c", "a value keeps its '='");
	pmi_cmd_free(&c);
	is_int(pmi_wire_take(l1 + 36, strlen(l1 + 36), 0, &c), 0, "half a line waits");
	const char *bad = "cmd=put novalue\n";
	is_int(pmi_wire_take(bad, strlen(bad), 0, &c), -1, "a word without '=' is no command");
	const char *mc = "mcmd=spawn\nnprocs=2\nexecname=x\nendcmd\n";
	is_int(pmi_wire_take(mc, strlen(mc), 0, &c), (ssize_t)strlen(mc), "mcmd runs to endcmd");
	is_str(pmi_cmd_name(&c), "spawn", "mcmd's name");
	is_str(pmi_cmd_get(&c, "execname"), "x", "its pairs");
	pmi_cmd_free(&c);
	const char *f = v2("cmd=kvs-put;key=k;value=a;;b;;;");
	took = pmi_wire_take(f, strlen(f), 1, &c);
	is_int(took, (ssize_t)strlen(f), "a PMI-2 frame is its length and body");
	is_str(pmi_cmd_get(&c, "value"), "a;b;", "';;' is a ';' of the value");
	pmi_cmd_free(&c);
	is_int(pmi_wire_take(f, 20, 1, &c), 0, "half a frame waits");
	is_int(pmi_wire_take("   0x1", 6, 1, &c), -1, "a bad length is no frame");
	is_int(pmi_wire_take("999999cmd", 9, 1, &c), -1, "a frame over PMI_CMD_MAX is refused");
	is_int(pmi_wire_take("     4a=\0;", 10, 1, &c), -1, "a NUL inside is no command");
	strbuf_t out = STRBUF_INIT;
	size_t st = pmi_v2_begin(&out);
	pmi_v2_add(&out, "cmd", "x");
	pmi_v2_add(&out, "v", "a;b");
	pmi_v2_end(&out, st);
	is_str(out.buf, "    13cmd=x;v=a;;b;", "a reply frame, ';' doubled");
	took = pmi_wire_take(out.buf, out.len, 1, &c);
	is_str(took > 0 ? pmi_cmd_get(&c, "v") : "", "a;b", "and read back");
	pmi_cmd_free(&c);
	strbuf_release(&out);

	uint32_t counts[4];
	is_int(pmi_counts_parse("2,1(x3)", counts, 4), 0, "tasks per node parsed");
	ok(counts[0] == 2 && counts[3] == 1, "counts");
	is_int(pmi_counts_parse("2(x2)", counts, 3), -1, "too few counts refused");
	is_int(pmi_counts_parse("2(x9)", counts, 3), -1, "too many counts refused");
	char *map = pmi_process_mapping((uint32_t[]){ 4, 4, 3 }, 3);
	is_str(map, "(vector,(0,2,4),(2,1,3))", "PMI_process_mapping of blocks");
	free(map);

	strbuf_t kv = STRBUF_INIT;
	pmi_kvs_pack(&kv, "k1", "v1");
	pmi_kvs_pack(&kv, "k2", "");
	int nkv = 0;
	is_int(pmi_kvs_unpack(kv.buf, kv.len, kv_count, &nkv), 0, "packed puts unpack");
	is_int(nkv, 2, "both");
	is_int(pmi_kvs_unpack(kv.buf, kv.len - 1, kv_count, &nkv), -1, "a cut list is refused");
	strbuf_release(&kv);

	/* ---- server: node 0 of 2, tasks 0 and 1 of 3 ---- */
	strbuf_init(&sent);
	pmi_step_t ps = { .job_id = 7, .step_id = 2, .node_id = 0, .nnodes = 2, .first_task = 0,
			  .ntasks = 2, .total_tasks = 3, .tasks_per_node = "2,1", .send = fake_send };
	pmi_srv_t *s = pmi_srv_new(&ps);
	ok(s != NULL, "server made");
	is_str(pmi_srv_jobid(s), "7.2", "job id <job>.<step>");
	int t0 = pmi_srv_task_fd(s, 0), t1 = pmi_srv_task_fd(s, 1);
	int s0 = srv_fd_of(s, 0), s1 = srv_fd_of(s, 1);
	ok(t0 >= 0 && t1 >= 0 && s0 >= 0 && s1 >= 0, "socketpairs");
	ok(pmi_srv_owns(s, s0) && !pmi_srv_owns(s, t0), "owns its ends only");

	/* task 0: PMI-1 */
	const char *r = talk(s, s0, t0, "cmd=init pmi_version=1 pmi_subversion=1\n");
	is_str(r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n", "v1 init");
	r = talk(s, s0, t0, "cmd=get_maxes\n");
	ok(strstr(r, "cmd=maxes rc=0 kvsname_max=") == r, "v1 maxes");
	r = talk(s, s0, t0, "cmd=get_my_kvsname\n");
	is_str(r, "cmd=my_kvsname rc=0 kvsname=7.2\n", "v1 kvsname");
	r = talk(s, s0, t0, "cmd=get kvsname=7.2 key=PMI_process_mapping\n");
	is_str(r, "cmd=get_result rc=0 value=(vector,(0,1,2),(1,1,1))\n", "v1 process mapping");
	r = talk(s, s0, t0, "cmd=put kvsname=7.2 key=card0 value=addr0\n");
	is_str(r, "cmd=put_result rc=0\n", "v1 put");
	r = talk(s, s0, t0, "cmd=get kvsname=7.2 key=card0\n");
	is_str(r, "cmd=get_result rc=-1 msg=key_not_found\n", "a put is not seen before the fence");
	r = talk(s, s0, t0, "cmd=barrier_in\n");
	is_str(r, "", "barrier waits for the node's other task");

	/* task 1: PMI-2 */
	r = talk(s, s1, t1, "cmd=init pmi_version=2 pmi_subversion=0\n");
	is_str(r, "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n", "v2 init");
	const char *q = v2("cmd=fullinit;pmirank=1;threaded=FALSE;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "cmd=fullinit-response;rc=0;") && strstr(r, ";rank=1;size=3;"), "fullinit");
	q = v2("cmd=job-getid;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "jobid=7.2;") != NULL, "job-getid");
	q = v2("cmd=info-getjobattr;key=universeSize;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "found=TRUE;value=3;") != NULL, "universeSize");
	q = v2("cmd=info-getnodeattr;key=shm;wait=TRUE;");
	r = talk(s, s1, t1, q);
	is_str(r, "", "getnodeattr wait=TRUE waits for the put");
	/* task 0 cannot put a node attribute in PMI-1; task 1 puts it itself
	 * later: first its puts and the fence */
	q = v2("cmd=kvs-put;key=card1;value=x;;y;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "kvs-put-response;rc=0;") != NULL, "v2 put");
	nsent = 0;
	q = v2("cmd=kvs-fence;");
	r = talk(s, s1, t1, q);
	is_str(r, "", "the fence waits for the other node");
	is_int(nsent, 1, "this node's puts went to srun once both tasks were in");
	nkv = 0;
	pmi_kvs_unpack(sent.buf, sent.len, kv_count, &nkv);
	is_int(nkv, 2, "both tasks' puts");
	/* srun hands back every node's: ours and node 1's */
	strbuf_t all = STRBUF_INIT;
	strbuf_add(&all, sent.buf, sent.len);
	pmi_kvs_pack(&all, "card2", "addr2");
	pmi_srv_fence_done(s, all.buf, all.len);
	strbuf_release(&all);
	r = talk(s, s0, t0, "");
	is_str(r, "cmd=barrier_out rc=0\n", "v1 barrier answered");
	r = talk(s, s1, t1, "");
	ok(strstr(r, "cmd=kvs-fence-response;rc=0;") != NULL, "v2 fence answered");
	r = talk(s, s0, t0, "cmd=get kvsname=7.2 key=card2\n");
	is_str(r, "cmd=get_result rc=0 value=addr2\n", "the other node's put after the fence");
	q = v2("cmd=kvs-get;jobid=7.2;srcid=-1;key=card1;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "found=TRUE;value=x;;y;") != NULL, "own put, ';' kept");
	q = v2("cmd=info-putnodeattr;key=shm;value=seg1;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "info-putnodeattr-response;rc=0;") && strstr(r, "info-getnodeattr-response;rc=0;found=TRUE;value=seg1;"),
	   "the put answers the waiting getnodeattr");
	q = v2("cmd=spawn;ncmds=1;");
	r = talk(s, s1, t1, q);
	ok(strstr(r, "spawn-response;rc=-1;") != NULL, "spawn refused");

	uint32_t rank;
	int code;
	const char *msg;
	ok(!pmi_srv_abort_taken(s, &rank, &code, &msg), "no abort yet");
	talk(s, s0, t0, "cmd=abort exitcode=9\n");
	ok(pmi_srv_abort_taken(s, &rank, &code, &msg) && rank == 0 && code == 9, "abort taken");
	ok(!pmi_srv_abort_taken(s, &rank, &code, &msg), "once");

	/* a task that writes and never reads: its replies stop being
	 * produced at about 1 MB, the server does not grow past that */
	{
		int sent_n = 0;
		struct pollfd pf[2];
		const char *g = "cmd=get kvsname=7.2 key=PMI_process_mapping\n";
		size_t gl = strlen(g);
		fcntl(t0, F_SETFL, fcntl(t0, F_GETFL) | O_NONBLOCK);
		for (int k = 0; k < 100000; k++) {
			if (write(t0, g, gl) != (ssize_t)gl)
				break;
			sent_n++;
			size_t np = pmi_srv_pollfds(s, pf);
			for (size_t j = 0; j < np; j++)
				if (pf[j].fd == s0 && (pf[j].events & POLLIN))
					pmi_srv_io(s, s0, POLLIN);
		}
		size_t np = pmi_srv_pollfds(s, pf);
		int reading = 0;
		for (size_t j = 0; j < np; j++)
			if (pf[j].fd == s0)
				reading = (pf[j].events & POLLIN) != 0;
		ok(!reading, "unread replies past the cap stop the reading (%d commands written)", sent_n);
		/* drain: it reads again */
		char dr[65536];
		while (read(t0, dr, sizeof(dr)) > 0) {
			pmi_srv_io(s, s0, POLLOUT);
			struct pollfd pp = { t0, POLLIN, 0 };
			if (poll(&pp, 1, 0) != 1)
				break;
		}
		np = pmi_srv_pollfds(s, pf);
		for (size_t j = 0; j < np; j++)
			if (pf[j].fd == s0)
				reading = (pf[j].events & POLLIN) != 0;
		ok(reading, "once read, its commands are read again");
	}

	/* garbage closes that task's PMI, nothing else */
	talk(s, s1, t1, "xxxxxxxx\n");
	ok(!pmi_srv_owns(s, s1), "a task that sends no PMI loses its PMI");
	ok(pmi_srv_owns(s, s0), "the other keeps it");
	close(t0);
	close(t1);
	pmi_srv_free(s);

	/* one node: the fence is answered here */
	ps.nnodes = 1;
	ps.ntasks = 1;
	ps.total_tasks = 1;
	ps.tasks_per_node = "1";
	s = pmi_srv_new(&ps);
	t0 = pmi_srv_task_fd(s, 0);
	s0 = srv_fd_of(s, 0);
	nsent = 0;
	r = talk(s, s0, t0, "cmd=put kvsname=7.2 key=a value=1\ncmd=barrier_in\n");
	ok(strstr(r, "cmd=barrier_out rc=0\n") != NULL, "one node: barrier answered at once");
	is_int(nsent, 0, "nothing to srun");
	close(t0);
	pmi_srv_free(s);
	ps.tasks_per_node = "1,1";
	ok(pmi_srv_new(&ps) == NULL, "a layout that does not add up is refused");
	strbuf_release(&sent);
	return done_testing();
}
