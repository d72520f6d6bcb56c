/*
 * pmix_srv: see pmix_srv.h. Two threads meet here: OpenPMIx's progress
 * thread (the module's callbacks) and the supervisor's loop (everything
 * else). What they share is under s->mu; the callbacks only note and
 * wake the loop through the pipe, and the loop hands results back
 * through OpenPMIx's own callbacks, which are safe from any thread.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "hostlist.h"
#include "log.h"
#include "noded.h"
#include "pmi2_wire.h"
#include "pmix_srv.h"
#include "xalloc.h"

struct pmix_srv {
	pmix_srv_step_t st;
	char nspace[PMIX_MAX_NSLEN + 1];
	char dir[256];
	int pipe[2];
	pthread_mutex_t mu;
	/* under mu: the fence OpenPMIx waits on, its data not yet sent */
	int fence_pending, fence_sent;
	char *fence_data;
	size_t fence_len;
	pmix_modex_cbfunc_t fence_cb;
	void *fence_cbdata;
	/* under mu: the first abort */
	int aborted, abort_taken, abort_code;
	uint32_t abort_rank;
	char abort_msg[256];
};

/* OpenPMIx, loaded when a step asks for it (dlopen): every command is
 * this same binary, and linking libpmix (with libevent and hwloc) would
 * cost each command's start-up what only a --mpi=pmix step uses */
static struct {
	__typeof__(PMIx_Error_string) *Error_string;
	__typeof__(PMIx_Info_list_add) *Info_list_add;
	__typeof__(PMIx_Info_list_convert) *Info_list_convert;
	__typeof__(PMIx_Info_list_release) *Info_list_release;
	__typeof__(PMIx_Info_list_start) *Info_list_start;
	__typeof__(PMIx_generate_ppn) *generate_ppn;
	__typeof__(PMIx_generate_regex) *generate_regex;
	__typeof__(PMIx_server_deregister_nspace) *server_deregister_nspace;
	__typeof__(PMIx_server_finalize) *server_finalize;
	__typeof__(PMIx_server_init) *server_init;
	__typeof__(PMIx_server_register_client) *server_register_client;
	__typeof__(PMIx_server_register_nspace) *server_register_nspace;
	__typeof__(PMIx_server_setup_fork) *server_setup_fork;
	__typeof__(PMIx_Data_array_destruct) *Data_array_destruct;
} px;
static int px_loaded;

static int px_load(void)
{
	if (px_loaded)
		return 0;
	void *h = dlopen("libpmix.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		error("pmix: cannot load OpenPMIx (libpmix.so.2, Debian's libpmix2): %s", dlerror());
		return -1;
	}
	const struct { const char *name; void **p; } syms[] = {
		{ "PMIx_Error_string", (void **)&px.Error_string },
		{ "PMIx_Info_list_add", (void **)&px.Info_list_add },
		{ "PMIx_Info_list_convert", (void **)&px.Info_list_convert },
		{ "PMIx_Info_list_release", (void **)&px.Info_list_release },
		{ "PMIx_Info_list_start", (void **)&px.Info_list_start },
		{ "PMIx_generate_ppn", (void **)&px.generate_ppn },
		{ "PMIx_generate_regex", (void **)&px.generate_regex },
		{ "PMIx_server_deregister_nspace", (void **)&px.server_deregister_nspace },
		{ "PMIx_server_finalize", (void **)&px.server_finalize },
		{ "PMIx_server_init", (void **)&px.server_init },
		{ "PMIx_server_register_client", (void **)&px.server_register_client },
		{ "PMIx_server_register_nspace", (void **)&px.server_register_nspace },
		{ "PMIx_server_setup_fork", (void **)&px.server_setup_fork },
		{ "PMIx_Data_array_destruct", (void **)&px.Data_array_destruct },
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		if (!(*syms[i].p = dlsym(h, syms[i].name))) {
			error("pmix: libpmix.so.2 has no %s", syms[i].name);
			dlclose(h);
			return -1;
		}
	}
	px_loaded = 1;    /* kept loaded: its thread may outlive a step's server */
	return 0;
}

/* one per process: OpenPMIx's callbacks carry no pointer of ours */
static pmix_srv_t *the_srv;

static void wake(pmix_srv_t *s)
{
	(void)!write(s->pipe[1], "x", 1);
}

static pmix_status_t cb_fence_nb(const pmix_proc_t procs[], size_t nprocs,
				 const pmix_info_t info[], size_t ninfo, char *data,
				 size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	pmix_srv_t *s = the_srv;
	if (ndata > PMIX_FENCE_MAX)
		return PMIX_ERR_OUT_OF_RESOURCE;   /* the tasks' MPI_Init fails */
	pthread_mutex_lock(&s->mu);
	if (s->fence_pending) {
		/* one fence at a time over the step, as OpenMPI uses it */
		pthread_mutex_unlock(&s->mu);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	s->fence_pending = 1;
	s->fence_sent = 0;
	s->fence_data = ndata ? xmalloc(ndata) : NULL;
	if (ndata)
		memcpy(s->fence_data, data, ndata);
	s->fence_len = ndata;
	s->fence_cb = cbfunc;
	s->fence_cbdata = cbdata;
	pthread_mutex_unlock(&s->mu);
	wake(s);
	return PMIX_SUCCESS;
}

static pmix_status_t cb_dmodex(const pmix_proc_t *proc, const pmix_info_t info[],
			       size_t ninfo, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	/* every fence collects all data: nothing is left to ask for */
	return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t cb_abort(const pmix_proc_t *proc, void *server_object, int status,
			      const char msg[], pmix_proc_t procs[], size_t nprocs,
			      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	pmix_srv_t *s = the_srv;
	pthread_mutex_lock(&s->mu);
	if (!s->aborted) {
		s->aborted = 1;
		s->abort_code = status;
		s->abort_rank = proc->rank;
		snprintf(s->abort_msg, sizeof(s->abort_msg), "%s", msg ? msg : "");
	}
	pthread_mutex_unlock(&s->mu);
	wake(s);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
	.abort = cb_abort,
	.fence_nb = cb_fence_nb,
	.direct_modex = cb_dmodex,
};

/* OpenPMIx answers register_nspace/register_client through a callback
 * from its thread; the loop waits for it */
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	pmix_status_t st;
} op_wait_t;

static void op_done(pmix_status_t st, void *arg)
{
	op_wait_t *w = arg;
	pthread_mutex_lock(&w->mu);
	w->st = st;
	w->done = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static pmix_status_t op_wait(op_wait_t *w, pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return PMIX_SUCCESS;
	if (rc != PMIX_SUCCESS)
		return rc;
	pthread_mutex_lock(&w->mu);
	while (!w->done)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return w->st;
}

#define OP_WAIT_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_SUCCESS }

static void add_str(void *l, const char *key, const char *v)
{
	px.Info_list_add(l, key, v, PMIX_STRING);
}

static void add_u32(void *l, const char *key, uint32_t v)
{
	px.Info_list_add(l, key, &v, PMIX_UINT32);
}

static void add_rank(void *l, const char *key, uint32_t v)
{
	pmix_rank_t r = v;
	px.Info_list_add(l, key, &r, PMIX_PROC_RANK);
}

static void add_u16(void *l, const char *key, uint32_t v)
{
	uint16_t x = (uint16_t)v;
	px.Info_list_add(l, key, &x, PMIX_UINT16);
}

/* "a,b,c" of the step's nodes and "0,1;2,3" of their ranks: what
 * PMIx_generate_regex/ppn take */
static int layout_strings(const pmix_srv_step_t *st, const uint32_t *counts, strbuf_t *names,
			  strbuf_t *ppn)
{
	char *err = NULL;
	hostlist_t *hl = hostlist_create(st->nodes, &err);
	if (!hl || hostlist_count(hl) != st->nnodes) {
		error("pmix: step node list '%s' does not match its %u nodes%s%s", st->nodes,
		      st->nnodes, err ? ": " : "", err ? err : "");
		free(err);
		hostlist_destroy(hl);
		return -1;
	}
	uint32_t rank = 0;
	for (uint32_t i = 0; i < st->nnodes; i++) {
		if (i) {
			strbuf_add(names, ",", 1);
			strbuf_add(ppn, ";", 1);
		}
		strbuf_addf(names, "%s", hostlist_nth(hl, i));
		for (uint32_t k = 0; k < counts[i]; k++, rank++)
			strbuf_addf(ppn, k ? ",%u" : "%u", rank);
	}
	hostlist_destroy(hl);
	return 0;
}

/* st: the caller's (its strings are not kept in s) */
static int register_nspace(pmix_srv_t *s, const pmix_srv_step_t *st, const uint32_t *counts)
{
	strbuf_t names, ppn, peers;
	strbuf_init(&names);
	strbuf_init(&ppn);
	strbuf_init(&peers);
	int ret = -1;
	char *nregex = NULL, *pregex = NULL;
	void *l = NULL;
	pmix_data_array_t darr = { 0 };
	if (layout_strings(st, counts, &names, &ppn) < 0)
		goto out;
	if (px.generate_regex(names.buf, &nregex) != PMIX_SUCCESS ||
	    px.generate_ppn(ppn.buf, &pregex) != PMIX_SUCCESS) {
		error("pmix: cannot encode the step's layout");
		goto out;
	}
	for (uint32_t k = 0; k < st->ntasks; k++)
		strbuf_addf(&peers, k ? ",%u" : "%u", st->first_task + k);
	char jobid[32];
	snprintf(jobid, sizeof(jobid), "%u.%u", st->job_id, st->step_id);

	l = px.Info_list_start();
	add_u32(l, PMIX_UNIV_SIZE, st->total_tasks);
	add_u32(l, PMIX_JOB_SIZE, st->total_tasks);
	add_u32(l, PMIX_MAX_PROCS, st->total_tasks);
	add_u32(l, PMIX_LOCAL_SIZE, st->ntasks);
	add_u32(l, PMIX_NODE_SIZE, st->ntasks);
	add_u32(l, PMIX_NUM_NODES, st->nnodes);
	add_u32(l, PMIX_APPNUM, 0);
	add_rank(l, PMIX_APPLDR, 0);
	add_u32(l, PMIX_APP_SIZE, st->total_tasks);
	add_rank(l, PMIX_LOCALLDR, st->first_task);
	add_str(l, PMIX_JOBID, jobid);
	add_str(l, PMIX_NODE_MAP, nregex);
	add_str(l, PMIX_PROC_MAP, pregex);
	add_str(l, PMIX_LOCAL_PEERS, peers.buf);
	add_str(l, PMIX_TMPDIR, s->dir);
	add_str(l, PMIX_NSDIR, s->dir);
	add_str(l, PMIX_HOSTNAME, st->node_name);
	add_u32(l, PMIX_NODEID, st->node_id);
	/* each rank of the step: its place (OpenMPI reads them of peers too) */
	char *err = NULL;
	hostlist_t *hl = hostlist_create(st->nodes, &err);
	free(err);
	uint32_t rank = 0;
	for (uint32_t node = 0; node < st->nnodes; node++) {
		for (uint32_t k = 0; k < counts[node]; k++, rank++) {
			void *pl = px.Info_list_start();
			pmix_data_array_t pd = { 0 };
			add_rank(pl, PMIX_RANK, rank);
			add_u32(pl, PMIX_APPNUM, 0);
			add_rank(pl, PMIX_GLOBAL_RANK, rank);
			add_rank(pl, PMIX_APP_RANK, rank);
			add_u16(pl, PMIX_LOCAL_RANK, k);
			add_u16(pl, PMIX_NODE_RANK, k);
			add_u32(pl, PMIX_NODEID, node);
			if (hl)
				add_str(pl, PMIX_HOSTNAME, hostlist_nth(hl, node));
			px.Info_list_convert(pl, &pd);
			px.Info_list_add(l, PMIX_PROC_DATA, &pd, PMIX_DATA_ARRAY);
			px.Data_array_destruct(&pd);
			px.Info_list_release(pl);
		}
	}
	hostlist_destroy(hl);
	if (px.Info_list_convert(l, &darr) != PMIX_SUCCESS) {
		error("pmix: cannot build the namespace's information");
		goto out;
	}
	op_wait_t w = OP_WAIT_INIT;
	pmix_status_t rc = op_wait(&w, px.server_register_nspace(s->nspace, (int)st->ntasks,
								  darr.array, darr.size,
								  op_done, &w));
	if (rc != PMIX_SUCCESS) {
		error("pmix: PMIx_server_register_nspace: %s", px.Error_string(rc));
		goto out;
	}
	ret = 0;
out:
	if (darr.array)
		px.Data_array_destruct(&darr);
	if (l)
		px.Info_list_release(l);
	free(nregex);
	free(pregex);
	strbuf_release(&names);
	strbuf_release(&ppn);
	strbuf_release(&peers);
	return ret;
}

pmix_srv_t *pmix_srv_new(const pmix_srv_step_t *st)
{
	if (the_srv || !st->nnodes || !st->tasks_per_node || !st->nodes || !st->node_name) {
		error("pmix: step %u.%u: no layout for a PMIx server", st->job_id, st->step_id);
		return NULL;
	}
	uint32_t *counts = xcalloc(st->nnodes, sizeof(*counts));
	if (pmi_counts_parse(st->tasks_per_node, counts, st->nnodes) < 0 ||
	    counts[st->node_id] != st->ntasks) {
		error("pmix: step %u.%u: tasks per node '%s' do not add up", st->job_id,
		      st->step_id, st->tasks_per_node);
		free(counts);
		return NULL;
	}
	if (px_load() < 0) {
		free(counts);
		return NULL;
	}
	pmix_srv_t *s = xcalloc(1, sizeof(*s));
	s->st = *st;
	s->st.tasks_per_node = s->st.nodes = s->st.node_name = s->st.tmp_base = NULL;
	s->pipe[0] = s->pipe[1] = -1;
	pthread_mutex_init(&s->mu, NULL);
	snprintf(s->nspace, sizeof(s->nspace), "slurm.pmix.%u.%u", st->job_id, st->step_id);
	/* the rendezvous: per node and step, the job user's alone (a
	 * socket path has about 108 bytes: the name stays short) */
	snprintf(s->dir, sizeof(s->dir), "%s/sluice-pmix.%s.%u.%u",
		 st->tmp_base && *st->tmp_base ? st->tmp_base : "/tmp", st->node_name, st->job_id,
		 st->step_id);
	rm_rf(s->dir);      /* a left-over of a supervisor killed before */
	if (mkdir(s->dir, 0700) < 0 || chown(s->dir, st->uid, st->gid) < 0) {
		error("pmix: %s: %m", s->dir);
		s->dir[0] = 0;
		goto fail;
	}
	if (pipe2(s->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		error("pmix: pipe: %m");
		goto fail;
	}
	the_srv = s;
	void *l = px.Info_list_start();
	add_str(l, PMIX_SERVER_TMPDIR, s->dir);
	add_str(l, PMIX_SYSTEM_TMPDIR, s->dir);
	/* a virtual node is its own host to PMIx, as it is to srun */
	add_str(l, PMIX_HOSTNAME, st->node_name);
	pmix_data_array_t darr = { 0 };
	px.Info_list_convert(l, &darr);
	px.Info_list_release(l);
	pmix_status_t rc = px.server_init(&module, darr.array, darr.size);
	px.Data_array_destruct(&darr);
	if (rc != PMIX_SUCCESS) {
		error("pmix: PMIx_server_init: %s", px.Error_string(rc));
		goto fail;
	}
	if (register_nspace(s, st, counts) < 0) {
		px.server_finalize();
		goto fail;
	}
	free(counts);
	return s;
fail:
	free(counts);
	the_srv = NULL;
	if (s->dir[0])
		rm_rf(s->dir);
	if (s->pipe[0] >= 0)
		close(s->pipe[0]), close(s->pipe[1]);
	pthread_mutex_destroy(&s->mu);
	free(s);
	return NULL;
}

void pmix_srv_free(pmix_srv_t *s)
{
	if (!s)
		return;
	px.server_deregister_nspace(s->nspace, NULL, NULL);
	px.server_finalize();    /* its thread is gone after this */
	the_srv = NULL;
	/* a fence still pending: OpenPMIx is gone, nothing waits on it */
	free(s->fence_data);
	rm_rf(s->dir);
	close(s->pipe[0]);
	close(s->pipe[1]);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

int pmix_srv_task_env(pmix_srv_t *s, uint32_t local, strv_t *env)
{
	pmix_proc_t proc;
	memset(&proc, 0, sizeof(proc));
	snprintf(proc.nspace, sizeof(proc.nspace), "%s", s->nspace);
	proc.rank = s->st.first_task + local;
	op_wait_t w = OP_WAIT_INIT;
	pmix_status_t rc = op_wait(&w, px.server_register_client(&proc, s->st.uid, s->st.gid,
								  NULL, op_done, &w));
	if (rc != PMIX_SUCCESS) {
		error("pmix: PMIx_server_register_client rank %u: %s", proc.rank,
		      px.Error_string(rc));
		return -1;
	}
	char **e = NULL;
	rc = px.server_setup_fork(&proc, &e);
	if (rc != PMIX_SUCCESS) {
		error("pmix: PMIx_server_setup_fork rank %u: %s", proc.rank, px.Error_string(rc));
		pmix_argv_free(e);
		return -1;
	}
	for (size_t i = 0; e && e[i]; i++) {
		char *eq = strchr(e[i], '=');
		if (!eq)
			continue;
		char *k = xstrndup(e[i], (size_t)(eq - e[i]));
		env_set(env, k, eq + 1);
		free(k);
	}
	pmix_argv_free(e);
	return 0;
}

int pmix_srv_fd(const pmix_srv_t *s)
{
	return s->pipe[0];
}

static void fence_release(void *arg)
{
	free(arg);
}

/* hands the combined data to OpenPMIx; it frees it through the release
 * callback once it has taken it in */
static void fence_answer(pmix_srv_t *s, const void *data, size_t len)
{
	pthread_mutex_lock(&s->mu);
	pmix_modex_cbfunc_t cb = s->fence_pending && s->fence_sent ? s->fence_cb : NULL;
	void *cbdata = s->fence_cbdata;
	if (cb) {
		s->fence_pending = s->fence_sent = 0;
		s->fence_cb = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	if (!cb) {
		error("pmix: fence data with no fence in progress: dropped");
		return;
	}
	char *copy = xmalloc(len ? len : 1);
	if (len)
		memcpy(copy, data, len);
	cb(PMIX_SUCCESS, copy, len, cbdata, fence_release, copy);
}

void pmix_srv_io(pmix_srv_t *s)
{
	char b[64];
	while (read(s->pipe[0], b, sizeof(b)) > 0)
		;
	pthread_mutex_lock(&s->mu);
	int send = s->fence_pending && !s->fence_sent;
	char *data = NULL;
	size_t len = 0;
	if (send) {
		s->fence_sent = 1;
		data = s->fence_data;
		len = s->fence_len;
		s->fence_data = NULL;
	}
	pthread_mutex_unlock(&s->mu);
	if (!send)
		return;
	if (s->st.nnodes == 1)
		fence_answer(s, data, len);
	else if (s->st.send(s->st.arg, data, len) < 0)
		error("pmix: step %u.%u: cannot send the fence to srun", s->st.job_id,
		      s->st.step_id);
	free(data);
}

void pmix_srv_fence_done(pmix_srv_t *s, const void *data, size_t len)
{
	fence_answer(s, data, len);
}

int pmix_srv_abort_taken(pmix_srv_t *s, uint32_t *rank, int *code, const char **msg)
{
	pthread_mutex_lock(&s->mu);
	int r = s->aborted && !s->abort_taken;
	if (r) {
		s->abort_taken = 1;
		*rank = s->abort_rank;
		*code = s->abort_code;
		*msg = s->abort_msg;
	}
	pthread_mutex_unlock(&s->mu);
	return r;
}
