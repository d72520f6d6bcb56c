/*
 * preflight: `sluice preflight [options] NODELIST`, the staged test of a
 * node just repaired or a rack just delivered (docs/node-operations.md,
 * "Preflight").
 *
 *   stage 1  the node daemons' built-in health checks (health.conf), run
 *            now (MSG_HEALTH_CHECK), and the auth key comparison;
 *   stage 2  per node, through srun where the tool is installed:
 *            `dcgmi diag -r 3`, `nvbandwidth`, `ibstat`; `ib_write_bw`
 *            needs a server on a peer and is reported, not run;
 *   stage 3  across the nodes: nccl-tests' `all_reduce_perf -b 8 -e 1G
 *            -f 2 -g 8`, one task per node through srun.
 *
 * A stage whose tool is not installed (not on this host's PATH) is
 * SKIPPED, never passed; a stage that cannot place its job on a node
 * (drained, down) is SKIPPED for it with the reason. A node passes when
 * nothing FAILED and something ran; "untested" when nothing ran. Progress
 * goes to stderr, the table (or --json, the same facts) to stdout.
 * --resume returns the nodes that passed to service (scontrol update
 * state=resume). Exit status 0 when every node passed, else 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "hostlist.h"
#include "net.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

enum res { R_PASS, R_FAIL, R_SKIP };
static const char *const res_name[] = { "PASS", "FAIL", "SKIPPED" };

typedef struct result {
	int stage;
	char *test, *measured, *threshold, *detail;
	enum res res;
} result_t;

typedef struct pnode {
	char *name;
	uint32_t state;            /* at the start */
	result_t *r;
	size_t nr;
} pnode_t;

static void add(pnode_t *n, int stage, const char *test, enum res res, const char *measured,
		const char *threshold, const char *detail)
{
	n->r = xrealloc(n->r, (n->nr + 1) * sizeof(*n->r));
	n->r[n->nr++] = (result_t){ stage, xstrdup(test), measured ? xstrdup(measured) : NULL,
				   threshold ? xstrdup(threshold) : NULL,
				   detail ? xstrdup(detail) : NULL, res };
}

static int64_t mono_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The tool's path on this host's PATH, or NULL. */
static char *which(const char *tool)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", tool);
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

/* Run argv with stdin from /dev/null, stdout+stderr into *out (at most
 * 1 MiB kept), killed after timeout_s. Returns the wait status, or -1
 * when it could not start; *timed_out set when killed. */
static int run(char *const argv[], int timeout_s, strbuf_t *out, int *timed_out)
{
	*timed_out = 0;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	int64_t deadline = mono_now_ms() + (int64_t)timeout_s * 1000;
	char buf[4096];
	for (;;) {
		int64_t left = deadline - mono_now_ms();
		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			*timed_out = 1;
			break;
		}
		struct pollfd pfd = { p[0], POLLIN, 0 };
		int r = poll(&pfd, 1, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		ssize_t n = read(p[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		if (out->len < (1u << 20))
			strbuf_add(out, buf, (size_t)n);
	}
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* The last non-empty line of text (for a failure's detail). */
static char *last_line(const char *text)
{
	if (!text)
		return xstrdup("");
	const char *end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	const char *start = end;
	while (start > text && start[-1] != '\n')
		start--;
	return xstrndup(start, (size_t)(end - start));
}

static int node_placeable(const pnode_t *n)
{
	uint32_t base = n->state & NODE_STATE_BASE;
	return base != NODE_DOWN && !(n->state & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_NO_RESPOND));
}

static int load_nodes(msg_node_info_t **ni)
{
	msg_info_req_t req = { 0 };
	int err = cmd_call(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO, (void **)ni, NULL);
	if (err)
		fprintf(stderr, "sluice preflight: cannot read the nodes: %s\n", slurm_strerror(err));
	return err;
}

static const node_info_t *find_node(const msg_node_info_t *ni, const char *name)
{
	for (uint32_t i = 0; i < ni->nnodes; i++)
		if (!strcmp(ni->nodes[i].name, name))
			return &ni->nodes[i];
	return NULL;
}

/* ---- stage 1 ---- */

static void stage1(pnode_t *nodes, size_t n, const char *list, int timeout_s)
{
	fprintf(stderr, "preflight: stage 1/3: node health checks on %zu node(s)\n", n);
	msg_node_info_t *ni = NULL;
	uint32_t *before = xcalloc(n + 1, sizeof(*before));
	if (load_nodes(&ni) == 0) {
		for (size_t i = 0; i < n; i++) {
			const node_info_t *x = find_node(ni, nodes[i].name);
			before[i] = x ? x->health_round : 0;
			nodes[i].state = x ? x->state : NODE_DOWN;
		}
		proto_msg_destroy(MSG_NODE_INFO, ni);
	}
	msg_info_req_t req = { .name = (char *)list };
	char *msg = NULL;
	int err = rpc_call_ctld_rc(cmd_conf(), MSG_HEALTH_CHECK, &req, &msg);
	if (err) {
		for (size_t i = 0; i < n; i++)
			add(&nodes[i], 1, "node checks", R_FAIL, NULL, NULL, msg ? msg : slurm_strerror(err));
		free(msg);
		free(before);
		return;
	}
	free(msg);
	/* Wait for every node's next round (bounded). */
	int64_t deadline = mono_now_ms() + (int64_t)timeout_s * 1000;
	int *done = xcalloc(n + 1, sizeof(*done));
	size_t ndone = 0;
	while (ndone < n) {
		ni = NULL;
		if (load_nodes(&ni))
			break;
		for (size_t i = 0; i < n; i++) {
			const node_info_t *x = find_node(ni, nodes[i].name);
			if (done[i] || !x || x->health_round <= before[i])
				continue;
			done[i] = 1;
			ndone++;
			char m[64];
			if (!x->health_nchecks) {
				add(&nodes[i], 1, "node checks", R_SKIP, NULL, NULL, "no health.conf checks on the node");
			} else if (x->health) {
				size_t lines = 1;
				for (const char *p = x->health; *p; p++)
					lines += *p == '\n';
				snprintf(m, sizeof(m), "%zu of %u failing", lines, x->health_nchecks);
				strbuf_t d = STRBUF_INIT;
				for (const char *p = x->health; *p; p++)
					strbuf_addch(&d, *p == '\n' ? ';' : *p);
				add(&nodes[i], 1, "node checks", R_FAIL, m, "all pass", d.buf);
				strbuf_release(&d);
			} else {
				snprintf(m, sizeof(m), "%u check(s) pass", x->health_nchecks);
				add(&nodes[i], 1, "node checks", R_PASS, m, "all pass", NULL);
			}
			if (x->key_match == KEY_MATCH_NO)
				add(&nodes[i], 1, "auth key", R_FAIL, "differs", "controller's", x->key_digest);
			else if (x->key_match == KEY_MATCH_YES)
				add(&nodes[i], 1, "auth key", R_PASS, "same", "controller's", NULL);
			else
				add(&nodes[i], 1, "auth key", R_SKIP, NULL, NULL,
				    x->key_match == KEY_MATCH_UNREADABLE ? "key unreadable" : "not reported");
			fprintf(stderr, "preflight:   %s: node checks %s\n", nodes[i].name,
				res_name[nodes[i].r[nodes[i].nr - 2].res]);
		}
		proto_msg_destroy(MSG_NODE_INFO, ni);
		if (ndone == n || mono_now_ms() >= deadline)
			break;
		struct timespec ts = { 0, 200000000L };
		nanosleep(&ts, NULL);
	}
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			add(&nodes[i], 1, "node checks", R_FAIL, NULL, NULL,
			    "no answer from the node daemon (not responding?)");
	free(done);
	free(before);
}

/* ---- stages 2 and 3 ---- */

/* A figure from a tool's output: the last number on the last line that
 * holds key, as text (NULL if none). */
static char *figure_after(const char *out, const char *key)
{
	const char *p = out, *hit = NULL;
	while (p && (p = strstr(p, key))) {
		hit = p;
		p += strlen(key);
	}
	if (!hit)
		return NULL;
	const char *eol = hit + strcspn(hit, "\n");
	const char *num = NULL;
	size_t len = 0;
	for (const char *q = hit + strlen(key); q < eol; q++) {
		if ((q[-1] == ' ' || q[-1] == ':' || q[-1] == '\t') && *q >= '0' && *q <= '9') {
			size_t l = strspn(q, "0123456789.");
			if (q + l == eol || q[l] == ' ' || q[l] == '\t' || q[l] == '\r') {
				num = q;
				len = l;
			}
		}
	}
	return num ? xstrndup(num, len) : NULL;
}

struct tool {
	const char *name;           /* the executable */
	const char *test;           /* as shown */
	const char *args[8];
	const char *figure_key;     /* what the measured figure follows */
	const char *unit;
};

static const struct tool stage2_tools[] = {
	{ "dcgmi", "dcgmi diag -r 3", { "diag", "-r", "3", NULL }, NULL, NULL },
	{ "nvbandwidth", "nvbandwidth", { NULL }, "SUM", "GB/s" },
	{ "ibstat", "ibstat", { NULL }, "Rate", "Gb/s" },
};

static void run_tool(pnode_t *nodes, size_t n, const struct tool *t, int timeout_s)
{
	char *path = which(t->name);
	if (!path) {
		char d[96];
		snprintf(d, sizeof(d), "%s not installed", t->name);
		fprintf(stderr, "preflight:   %s: SKIPPED (%s)\n", t->test, d);
		for (size_t i = 0; i < n; i++)
			add(&nodes[i], 2, t->test, R_SKIP, NULL, NULL, d);
		return;
	}
	free(path);
	for (size_t i = 0; i < n; i++) {
		if (!node_placeable(&nodes[i])) {
			add(&nodes[i], 2, t->test, R_SKIP, NULL, NULL,
			    "node drained or down: srun cannot place the test");
			continue;
		}
		char tl[16];
		snprintf(tl, sizeof(tl), "%d", (timeout_s + 59) / 60);
		const char *argv[24] = { "srun", "-N1", "-n1", "-w", nodes[i].name, "--exclusive", "-t", tl,
					 "-J", "preflight", "--quiet", t->name };
		size_t k = 12;
		for (size_t a = 0; t->args[a] && k < 22; a++)
			argv[k++] = t->args[a];
		argv[k] = NULL;
		fprintf(stderr, "preflight:   %s on %s ...\n", t->test, nodes[i].name);
		strbuf_t out = STRBUF_INIT;
		int to = 0;
		int st = run((char *const *)argv, timeout_s, &out, &to);
		char *fig = t->figure_key && out.buf ? figure_after(out.buf, t->figure_key) : NULL;
		char *m = fig ? xasprintf("%s %s", fig, t->unit) : NULL;
		if (st == 0 && !to) {
			add(&nodes[i], 2, t->test, R_PASS, m, "exit 0", NULL);
		} else {
			char *ll = last_line(out.buf);
			char *d = to ? xasprintf("killed after %ds", timeout_s)
				     : xasprintf("exit %d: %s", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), ll);
			add(&nodes[i], 2, t->test, R_FAIL, m, "exit 0", d);
			free(d);
			free(ll);
		}
		free(m);
		free(fig);
		strbuf_release(&out);
	}
}

static void stage3(pnode_t *nodes, size_t n, int timeout_s, double min_busbw)
{
	fprintf(stderr, "preflight: stage 3/3: all-reduce across the nodes\n");
	const char *test = "all_reduce_perf";
	char *path = which("all_reduce_perf");
	if (!path) {
		fprintf(stderr, "preflight:   %s: SKIPPED (not installed)\n", test);
		for (size_t i = 0; i < n; i++)
			add(&nodes[i], 3, test, R_SKIP, NULL, NULL, "all_reduce_perf (nccl-tests) not installed");
		return;
	}
	free(path);
	const char **names = xcalloc(n + 1, sizeof(*names));
	size_t np = 0;
	for (size_t i = 0; i < n; i++)
		if (node_placeable(&nodes[i]))
			names[np++] = nodes[i].name;
	if (!np) {
		for (size_t i = 0; i < n; i++)
			add(&nodes[i], 3, test, R_SKIP, NULL, NULL, "node drained or down: srun cannot place the test");
		free(names);
		return;
	}
	char *list = hostlist_compress(names, np);
	char nn[32], tl[16];
	snprintf(nn, sizeof(nn), "-N%zu", np);
	snprintf(tl, sizeof(tl), "%d", (timeout_s + 59) / 60);
	char thr[32];
	snprintf(thr, sizeof(thr), ">= %g GB/s", min_busbw);
	const char *argv[] = { "srun", nn, "-w", list, "--ntasks-per-node=1", "--exclusive", "-t", tl,
			       "-J", "preflight", "--quiet", "all_reduce_perf", "-b", "8", "-e", "1G",
			       "-f", "2", "-g", "8", NULL };
	fprintf(stderr, "preflight:   all_reduce_perf on %s ...\n", list);
	strbuf_t out = STRBUF_INIT;
	int to = 0;
	int st = run((char *const *)argv, timeout_s, &out, &to);
	char *fig = out.buf ? figure_after(out.buf, "Avg bus bandwidth") : NULL;
	char *m = fig ? xasprintf("%s GB/s", fig) : NULL;
	enum res r = st == 0 && !to && fig && atof(fig) >= min_busbw ? R_PASS : R_FAIL;
	char *ll = last_line(out.buf);
	char *d = r == R_PASS ? NULL : to ? xasprintf("killed after %ds", timeout_s)
		  : !fig && st == 0 ? xstrdup("no \"Avg bus bandwidth\" in its output")
		  : st ? xasprintf("exit %d: %s", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), ll)
		  : xasprintf("bus bandwidth below the threshold");
	for (size_t i = 0; i < n; i++) {
		if (node_placeable(&nodes[i]))
			add(&nodes[i], 3, test, r, m, thr, d);
		else
			add(&nodes[i], 3, test, R_SKIP, NULL, NULL, "node drained or down: srun cannot place the test");
	}
	free(ll);
	free(d);
	free(m);
	free(fig);
	free(list);
	free(names);
	strbuf_release(&out);
}

/* ---- report ---- */

/* "PASS", "FAIL" or "untested" */
static const char *verdict(const pnode_t *n)
{
	int ran = 0;
	for (size_t i = 0; i < n->nr; i++) {
		if (n->r[i].res == R_FAIL)
			return "FAIL";
		ran |= n->r[i].res == R_PASS;
	}
	return ran ? "PASS" : "untested";
}

static void print_table(const pnode_t *nodes, size_t n)
{
	printf("%-16s %-5s %-18s %-8s %-20s %-14s %s\n", "NODE", "STAGE", "TEST", "RESULT", "MEASURED",
	       "THRESHOLD", "DETAIL");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i].nr; k++) {
			const result_t *r = &nodes[i].r[k];
			printf("%-16s %-5d %-18s %-8s %-20s %-14s %s\n", nodes[i].name, r->stage, r->test,
			       res_name[r->res], r->measured ? r->measured : "-",
			       r->threshold ? r->threshold : "-", r->detail ? r->detail : "");
		}
	printf("\n%-16s %s\n", "NODE", "RESULT");
	for (size_t i = 0; i < n; i++)
		printf("%-16s %s\n", nodes[i].name, verdict(&nodes[i]));
}

static void print_json(const pnode_t *nodes, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *tests = json_array();
		for (size_t k = 0; k < nodes[i].nr; k++) {
			const result_t *r = &nodes[i].r[k];
			json_t *o = json_pack("{s:i, s:s, s:s}", "stage", r->stage, "test", r->test,
					      "result", res_name[r->res]);
			json_object_set_new(o, "measured", r->measured ? json_string(r->measured) : json_null());
			json_object_set_new(o, "threshold", r->threshold ? json_string(r->threshold) : json_null());
			json_object_set_new(o, "detail", r->detail ? json_string(r->detail) : json_null());
			json_array_append_new(tests, o);
		}
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "node", nodes[i].name,
						      "result", verdict(&nodes[i]), "tests", tests));
	}
	json_t *top = json_pack("{s:o}", "nodes", arr);
	char *s = json_dumps(top, JSON_INDENT(2));
	printf("%s\n", s);
	free(s);
	json_decref(top);
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sluice preflight [--json] [--resume] [--stages LIST] [--timeout SECONDS]\n"
		"                        [--min-busbw GB/S] NODELIST\n"
		"  Stage 1: the nodes' health checks, now; 2: dcgmi diag -r 3, nvbandwidth, ibstat\n"
		"  per node; 3: all_reduce_perf across the nodes (stages 2 and 3 through srun, where\n"
		"  installed: a missing tool is SKIPPED, never passed).\n"
		"  --resume     return the nodes that passed to service\n"
		"  --stages     which stages to run, e.g. 1 or 1,3 (default 1,2,3)\n"
		"  --timeout    per test (default 900 s; stage 1 waits at most 30 s)\n"
		"  --min-busbw  stage 3 threshold, GB/s of bus bandwidth (default 0)\n");
}

int cmd_preflight(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { "resume", no_argument, NULL, 'r' },
		{ "stages", required_argument, NULL, 's' }, { "timeout", required_argument, NULL, 't' },
		{ "min-busbw", required_argument, NULL, 'b' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, resume = 0, timeout_s = 900, stages = 7, c;
	double min_busbw = 0;
	char *end;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'r': resume = 1; break;
		case 's':
			stages = 0;
			for (const char *p = optarg; *p; p++) {
				if (*p >= '1' && *p <= '3')
					stages |= 1 << (*p - '1');
				else if (*p != ',') {
					fprintf(stderr, "sluice preflight: --stages '%s': stage numbers 1-3, e.g. 1,3\n", optarg);
					return 1;
				}
			}
			break;
		case 't':
			timeout_s = (int)strtol(optarg, &end, 10);
			if (*end || timeout_s <= 0) {
				fprintf(stderr, "sluice preflight: --timeout '%s': seconds, more than 0\n", optarg);
				return 1;
			}
			break;
		case 'b':
			min_busbw = strtod(optarg, &end);
			if (*end || min_busbw < 0) {
				fprintf(stderr, "sluice preflight: --min-busbw '%s': GB/s, a number\n", optarg);
				return 1;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sluice preflight: %s\n", optind >= argc ? "a node list is required" : "one node list only");
		usage(stderr);
		return 1;
	}
	const char *list = argv[optind];
	char *err = NULL;
	hostlist_t *hl = hostlist_create(list, &err);
	if (!hl || !hostlist_count(hl)) {
		fprintf(stderr, "sluice preflight: invalid node list '%s'%s%s\n", list, err ? ": " : "", err ? err : "");
		free(err);
		hostlist_destroy(hl);
		return 1;
	}
	cmd_conf();
	msg_node_info_t *ni = NULL;
	if (load_nodes(&ni)) {
		hostlist_destroy(hl);
		return 1;
	}
	size_t n = hostlist_count(hl);
	pnode_t *nodes = xcalloc(n, sizeof(*nodes));
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		nodes[i].name = xstrdup(hostlist_nth(hl, i));
		const node_info_t *x = find_node(ni, nodes[i].name);
		if (!x) {
			fprintf(stderr, "sluice preflight: unknown node '%s'\n", nodes[i].name);
			rc = 1;
		} else {
			nodes[i].state = x->state;
		}
	}
	proto_msg_destroy(MSG_NODE_INFO, ni);
	if (!rc) {
		if (stages & 1)
			stage1(nodes, n, list, timeout_s < 30 ? timeout_s : 30);
		if (stages & 2) {
			fprintf(stderr, "preflight: stage 2/3: GPU and fabric tests per node\n");
			for (size_t t = 0; t < sizeof(stage2_tools) / sizeof(stage2_tools[0]); t++)
				run_tool(nodes, n, &stage2_tools[t], timeout_s);
			char *ib = which("ib_write_bw");
			for (size_t i = 0; i < n; i++)
				add(&nodes[i], 2, "ib_write_bw", R_SKIP, NULL, NULL,
				    ib ? "needs a server on a peer node: not run by preflight"
				       : "ib_write_bw not installed");
			free(ib);
		}
		if (stages & 4)
			stage3(nodes, n, timeout_s, min_busbw);
		if (json)
			print_json(nodes, n);
		else
			print_table(nodes, n);
		/* The state now: a node its passing checks resumed is in
		 * service already. */
		ni = NULL;
		if (resume && load_nodes(&ni) == 0) {
			for (size_t i = 0; i < n; i++) {
				const node_info_t *x = find_node(ni, nodes[i].name);
				if (x)
					nodes[i].state = x->state;
			}
			proto_msg_destroy(MSG_NODE_INFO, ni);
		}
		for (size_t i = 0; i < n; i++) {
			const char *v = verdict(&nodes[i]);
			if (strcmp(v, "PASS")) {
				rc = 1;
				continue;
			}
			if (!resume || (!(nodes[i].state & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL)) &&
					(nodes[i].state & NODE_STATE_BASE) != NODE_DOWN))
				continue;
			msg_update_node_t u = { .names = nodes[i].name, .state = "resume" };
			int e = cmd_call_rc(MSG_UPDATE_NODE, &u);
			if (e) {
				fprintf(stderr, "sluice preflight: cannot resume %s: %s\n", nodes[i].name,
					slurm_strerror(e));
				rc = 1;
			} else {
				fprintf(stderr, "preflight: %s resumed\n", nodes[i].name);
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < nodes[i].nr; k++) {
			free(nodes[i].r[k].test);
			free(nodes[i].r[k].measured);
			free(nodes[i].r[k].threshold);
			free(nodes[i].r[k].detail);
		}
		free(nodes[i].r);
		free(nodes[i].name);
	}
	free(nodes);
	hostlist_destroy(hl);
	return rc;
}
