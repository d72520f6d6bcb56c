/*
 * reconfig.c: hot reconfigure (`scontrol reconfigure`, SIGHUP).
 *
 * Re-reads slurm.conf and the files next to it (gres.conf, topology.conf,
 * cgroup.conf) and replaces the controller's node, partition and scheduler
 * state without touching a job: running jobs keep their allocations (node
 * indexes are remapped by name), pending jobs keep their place.
 *
 * The new state is built on the side (a shadow ctld_t filled by the same
 * nodes_init/sched_glue_build the startup uses), checked against every job,
 * and only then swapped in; any problem leaves the running configuration in
 * force and is reported with every reason, one per line:
 *   - the files' own errors, "file:line: message";
 *   - keys that need a restart (SlurmctldPort, SlurmctldHost,
 *     StateSaveLocation, AuthType, AuthInfo, SlurmUser, ClusterName);
 *   - a node removed while a job holds it ("node comp03 removed but job 12
 *     is running there"), or shrunk below what running jobs hold: we refuse
 *     rather than keep a ghost node, so the config in force is always
 *     exactly the files;
 *   - a partition removed while a pending or running job is in it, a node
 *     removed while a pending job names it with -w, or a config without any
 *     partition while jobs exist.
 * Finished jobs that refer to a removed node or partition are purged at once
 * (as MinJobAge would do later); their record is complete in the DB/accounting.
 *
 * Runtime state carried over per node (by name): state, DRAIN/FAIL flags,
 * reason, the registered connection and what it reported. A node whose
 * State= changed in slurm.conf takes the new configured state. Partitions
 * take their slurm.conf values, as Slurm's default does; ReconfigFlags=
 * KeepPartInfo keeps every value changed by `scontrol update partition`,
 * KeepPartState only the State. Node weights come from the config again.
 * Node daemons of removed nodes are disconnected (their registration is
 * refused from then on); new nodes register as at startup. Every other
 * registered node daemon is then told to re-read its own files (a ping
 * with PING_F_RECONFIG), as Slurm's reconfigure reaches every slurmd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "ctld/resv.h"

#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static void add_err(strbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_err(strbuf_t *sb, const char *fmt, ...)
{
	va_list ap;
	if (sb->len)
		strbuf_addf(sb, "\n");
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	strbuf_addf(sb, "%s", s);
	free(s);
}

/* Settings the running daemon cannot change without a restart: its
 * listening port and address, where its state lives, how it checks
 * credentials, and its identity. */
static void check_fixed(const conf_t *o, const conf_t *n, strbuf_t *err)
{
	const char *what = "needs a restart of the controller (running value kept)";
	if (o->ctld_port != n->ctld_port)
		add_err(err, "%s: SlurmctldPort changed (%u -> %u): %s", n->path, o->ctld_port,
			n->ctld_port, what);
	int hosts_same = o->nctld_hosts == n->nctld_hosts;
	for (size_t i = 0; hosts_same && i < o->nctld_hosts; i++)
		hosts_same = str_eq(o->ctld_hosts[i], n->ctld_hosts[i]) &&
			     str_eq(o->ctld_addrs[i], n->ctld_addrs[i]);
	if (!hosts_same)
		add_err(err, "%s: SlurmctldHost changed: %s", n->path, what);
	if (!str_eq(o->state_save_location, n->state_save_location))
		add_err(err, "%s: StateSaveLocation changed: %s", n->path, what);
	if (!str_eq(o->auth_type, n->auth_type))
		add_err(err, "%s: AuthType changed: %s", n->path, what);
	if (!str_eq(o->auth_info, n->auth_info))
		add_err(err, "%s: AuthInfo changed: %s", n->path, what);
	if (!str_eq(o->slurm_user, n->slurm_user))
		add_err(err, "%s: SlurmUser changed: %s", n->path, what);
	if (!str_eq(o->cluster_name, n->cluster_name))
		add_err(err, "%s: ClusterName changed: %s", n->path, what);
	/* As Slurm: how CPUs and memory are counted changes every allocation. */
	if (!str_eq(o->select_type, n->select_type))
		add_err(err, "%s: SelectType changed: %s", n->path, what);
	if (!str_eq(o->select_type_parameters, n->select_type_parameters))
		add_err(err, "%s: SelectTypeParameters changed: %s", n->path, what);
	/* The metrics port is opened (and its token read) at start. */
	static const char *const metrics_keys[] = { "MetricsType", "MetricsPort", "MetricsAddress",
		"MetricsTokenFile", "MetricsAllowFrom" };
	for (size_t i = 0; i < sizeof(metrics_keys) / sizeof(metrics_keys[0]); i++)
		if (!str_eq(conf_get(o, metrics_keys[i]), conf_get(n, metrics_keys[i])))
			add_err(err, "%s: %s changed: %s", n->path, metrics_keys[i], what);
}

static int job_active(const job_t *j)
{
	return !JOB_IS_FINISHED(j->state) || j->alloc_held;
}

/* Resolve a -w/-x expression against a config; names not there are
 * skipped (*missing gets the first one, if asked). */
static void resolve(const conf_t *conf, const char *expr, uint32_t **idx, uint32_t *n,
		    const char **missing, char **missing_buf)
{
	*idx = NULL;
	*n = 0;
	if (!expr || !*expr)
		return;
	char *e = NULL;
	hostlist_t *hl = hostlist_create(expr, &e);
	free(e);
	if (!hl)
		return;
	hostlist_uniq(hl);
	size_t c = hostlist_count(hl);
	*idx = xmalloc((c ? c : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < c; i++) {
		long x = conf_node_find(conf, hostlist_nth(hl, i));
		if (x >= 0) {
			(*idx)[(*n)++] = (uint32_t)x;
		} else if (missing && !*missing) {
			*missing_buf = xstrdup(hostlist_nth(hl, i));
			*missing = *missing_buf;
		}
	}
	hostlist_destroy(hl);
}

/* Does the job's allocation still fit the node as newly configured? */
static int alloc_fits(const sched_node_t *sn, const job_t *j, uint32_t i, char **why)
{
	const sched_alloc_t *a = &j->alloc;
	if (a->cpus[i] > sn->cpus) {
		*why = xasprintf("%u CPUs", a->cpus[i]);
		return 0;
	}
	if (a->mem[i] > sn->mem && sn->mem) {
		*why = xasprintf("%lu MB of memory", (unsigned long)a->mem[i]);
		return 0;
	}
	uint64_t all = sn->ngpus >= 64 ? ~0ull : ((1ull << sn->ngpus) - 1);
	if (a->gpus[i] & ~all) {
		*why = xasprintf("GPU indexes beyond the %u configured", sn->ngpus);
		return 0;
	}
	return 1;
}

static void node_strings_free(node_t *n)
{
	free(n->reason);
	free(n->arch);
	free(n->os);
	free(n->version);
	free(n->partitions);
	free(n->cfg_tres);
	free(n->topo_addr);
	free(n->comment);
	free(n->extra);
	free(n->health);
	free(n->key_digest);
}

/* Move the runtime state of old node o into new node n (same name). */
static void carry_node(ctld_t *nd, node_t *n, node_t *o)
{
	int state_changed = !str_eq(o->cf->state, n->cf->state);
	if (!state_changed) {
		n->base = o->base;
		n->flags = o->flags;
	} else if (o->conn && n->base == NODE_UNKNOWN) {
		/* newly not FUTURE/DOWN in the config and its noded is here */
		n->base = NODE_IDLE;
	}
	/* Backfill marks planned nodes again on its next cycle. */
	n->flags &= ~NODE_FLAG_PLANNED;
	if (o->conn)
		n->flags &= ~NODE_FLAG_NO_RESPOND;
	else if (n->base != NODE_FUTURE)
		n->flags |= NODE_FLAG_NO_RESPOND;
	if (o->reason) {
		free(n->reason);
		n->reason = o->reason;
		o->reason = NULL;
		n->reason_uid = o->reason_uid;
		n->reason_time = o->reason_time;
	}
	n->health = o->health;
	o->health = NULL;
	n->key_digest = o->key_digest;
	o->key_digest = NULL;
	n->key_match = o->key_match;
	n->conn = o->conn;
	if (n->conn)
		conn_set_data(n->conn, n);
	o->conn = NULL;
	n->last_heard = o->last_heard;
	/* The node daemon echoes the highest ping it got: numbering goes on
	 * (fences wait for an echo of a ping sent after their kill). */
	n->ping_seq = o->ping_seq;
	n->ping_sent_ms = o->ping_sent_ms;
	n->arch = o->arch; o->arch = NULL;
	n->os = o->os; o->os = NULL;
	n->version = o->version; o->version = NULL;
	n->comment = o->comment; o->comment = NULL;
	n->extra = o->extra; o->extra = NULL;
	n->boot_time = o->boot_time;
	n->start_time = o->start_time;
	n->last_busy = o->last_busy;
	n->cpu_load = o->cpu_load;
	n->free_mem = o->free_mem;
	if (n->conn)
		n->port = o->port;     /* the port it registered with */
	n->dirty = 1;
	(void)nd;
}

static void carry_part(part_t *p, const part_t *o, int keep_info, int keep_state)
{
	if (keep_info || keep_state)
		p->state = o->state;
	if (keep_info) {
		p->max_time = o->max_time;
		p->default_time = o->default_time;
		p->max_nodes = o->max_nodes;
		p->min_nodes = o->min_nodes;
	}
	p->dirty = 1;
}

/* Free what the swap left in the old arrays (runtime strings moved out are
 * NULL by now). */
static void free_old(node_t *nodes, uint32_t nnodes, part_t *parts, uint32_t nparts, sched_t *s)
{
	for (uint32_t i = 0; i < nnodes; i++)
		node_strings_free(&nodes[i]);
	free(nodes);
	for (uint32_t p = 0; p < nparts; p++)
		free(parts[p].tres);
	free(parts);
	ctld_t tmp;
	memset(&tmp, 0, sizeof(tmp));
	tmp.sched = *s;
	sched_glue_free(&tmp);
}

int ctld_reconfigure(ctld_t *cd, char **msg)
{
	*msg = NULL;
	const char *path = cd->conf_path ? cd->conf_path : cd->conf->path;
	conf_t *nc = conf_load(path, CONF_FULL);
	strbuf_t err = STRBUF_INIT;
	for (size_t i = 0; i < nc->nerrors; i++)
		add_err(&err, "%s", nc->errors[i]);
	if (err.len) {
		*msg = strbuf_detach(&err);
		conf_destroy(nc);
		return SLURM_ERROR;
	}
	check_fixed(cd->conf, nc, &err);
	if (!nc->nparts && cd->njobs)
		add_err(&err, "%s: no partition configured while %zu jobs are known", nc->path,
			cd->njobs);
	if (err.len) {
		*msg = strbuf_detach(&err);
		conf_destroy(nc);
		return SLURM_ERROR;
	}

	/* The new state, built as at startup. */
	ctld_t *nd = xcalloc(1, sizeof(*nd));
	nd->conf = nc;
	nd->boot_time = cd->boot_time;
	nodes_init(nd);
	sched_glue_build(nd);

	/* Check every job against it before changing anything. */
	int64_t now = ctld_now();
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (!job_active(j))
			continue;
		const char *pname = cd->parts[j->part].cf->name;
		if (conf_part_find(nc, pname) < 0)
			add_err(&err, "%s: partition %s removed but job %u is %s in it", nc->path, pname,
				j->job_id, job_state_string(j->state));
		if (j->alloc_held) {
			for (uint32_t k = 0; k < j->alloc.nnodes; k++) {
				const char *name = cd->nodes[j->alloc.nodes[k]].cf->name;
				long x = conf_node_find(nc, name);
				char *why = NULL;
				if (x < 0)
					add_err(&err, "%s: node %s removed but job %u is running there",
						nc->path, name, j->job_id);
				else if (!alloc_fits(&nd->sched.nodes[x], j, k, &why))
					add_err(&err, "%s:%d: node %s: job %u holds %s there, more than the new definition",
						nc->nodes[x].file ? nc->nodes[x].file : nc->path,
						nc->nodes[x].line, name, j->job_id, why);
				free(why);
			}
		}
		if ((j->state & JOB_STATE_BASE) == JOB_PENDING && j->desc->req_nodes) {
			uint32_t *idx, n;
			const char *missing = NULL;
			char *mbuf = NULL;
			resolve(nc, j->desc->req_nodes, &idx, &n, &missing, &mbuf);
			if (missing)
				add_err(&err, "%s: node %s removed but pending job %u requests it (-w)",
					nc->path, missing, j->job_id);
			free(mbuf);
			free(idx);
		}
	}
	if (err.len) {
		*msg = strbuf_detach(&err);
		free_old(nd->nodes, nd->nnodes, nd->parts, nd->nparts, &nd->sched);
		free(nd);
		conf_destroy(nc);
		return SLURM_ERROR;
	}

	/* Carry runtime state over, by name. */
	for (uint32_t i = 0; i < nd->nnodes; i++) {
		long o = conf_node_find(cd->conf, nd->nodes[i].cf->name);
		if (o >= 0)
			carry_node(nd, &nd->nodes[i], &cd->nodes[o]);
		else
			info("reconfigure: node %s added", nd->nodes[i].cf->name);
	}
	uint32_t removed = 0;
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		node_t *o = &cd->nodes[i];
		if (conf_node_find(nc, o->cf->name) >= 0)
			continue;
		removed++;
		info("reconfigure: node %s removed", o->cf->name);
		if (o->conn) {
			conn_set_data(o->conn, NULL);
			conn_close(o->conn);
			o->conn = NULL;
		}
	}
	const char *rf = conf_get(nc, "ReconfigFlags");
	int keep_info = rf && strcasestr(rf, "KeepPartInfo");
	int keep_state = rf && strcasestr(rf, "KeepPartState");
	for (uint32_t p = 0; p < nd->nparts; p++) {
		long o = part_find(cd, nd->parts[p].cf->name);
		if (o >= 0)
			carry_part(&nd->parts[p], &cd->parts[o], keep_info, keep_state);
		else
			nd->parts[p].dirty = 1;
	}

	/* Jobs: partition and node indexes into the new arrays. */
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		long p = conf_part_find(nc, cd->parts[j->part].cf->name);
		int gone = p < 0;
		j->part = p < 0 ? 0 : (uint32_t)p;
		for (uint32_t k = 0; k < j->alloc.nnodes; k++) {
			long x = conf_node_find(nc, cd->nodes[j->alloc.nodes[k]].cf->name);
			if (x < 0) {
				gone = 1;
				break;
			}
			j->alloc.nodes[k] = (uint32_t)x;
		}
		if (gone) {
			/* Only finished jobs get here (checked above). */
			sched_alloc_free(&j->alloc);
			if (j->end_time + (int64_t)nc->min_job_age > now)
				j->end_time = now - (int64_t)nc->min_job_age;
		}
		free(j->req_idx);
		free(j->exc_idx);
		resolve(nc, j->desc->req_nodes, &j->req_idx, &j->nreq, NULL, NULL);
		resolve(nc, j->desc->exc_nodes, &j->exc_idx, &j->nexc, NULL, NULL);
		if (j->alloc_held && j->alloc.nnodes)
			sched_alloc_commit(&nd->sched, &j->alloc);
		/* Not dirty: the DB names partitions and nodes, not indexes. */
	}

	/* Swap. */
	node_t *onodes = cd->nodes;
	uint32_t onnodes = cd->nnodes;
	part_t *oparts = cd->parts;
	uint32_t onparts = cd->nparts;
	sched_t osched = cd->sched;
	conf_t *oconf = cd->conf;
	int old_debug = oconf->slurmctld_debug;
	cd->nodes = nd->nodes;
	cd->nnodes = nd->nnodes;
	cd->parts = nd->parts;
	cd->nparts = nd->nparts;
	cd->sched = nd->sched;
	cd->max_pjf = nd->max_pjf;
	cd->total_cpus = nd->total_cpus;
	cd->conf = nc;
	cd->conf_gen++;      /* answers cached from the old one are stale */
	/* AccountingStorageEnforce applies to the next submission */
	cd->acct.enforce = acct_enforce_parse(conf_get(nc, "AccountingStorageEnforce"));
	ctld_watch_groups(cd);   /* AllowGroups resolved again, off the loop */
	free(nd);
	ctld_load_sched_conf(cd);
	resv_nodes_remap(cd, onodes, onnodes);   /* before the old records go */
	free_old(onodes, onnodes, oparts, onparts, &osched);
	conf_destroy(oconf);
	if (nc->slurmctld_debug && nc->slurmctld_debug != old_debug)
		log_set_level((enum log_level)nc->slurmctld_debug);
	ctld_log_conf(nc);          /* SluiceLogFormat, SlurmctldSyslogDebug */

	for (uint32_t i = 0; i < cd->nnodes; i++) {
		cd->sched.nodes[i].usable = 0;
		node_sync_sched(cd, &cd->nodes[i]);
	}
	/* The node daemons re-read theirs (Prolog, health checks, cgroup.conf
	 * for new jobs, ...) and answer with a heartbeat. */
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		node_t *n = &cd->nodes[i];
		if (!n->conn)
			continue;
		msg_node_ping_t p = { ++n->ping_seq, PING_F_RECONFIG };
		conn_send(n->conn, MSG_NODE_PING, &p);
	}
	jobs_periodic(cd, now);    /* purges the finished jobs marked above */
	cd->last_node_update = cd->last_part_update = cd->last_job_update = ctld_now();
	ctld_sched_request(cd);
	info("reconfigure: %u nodes, %u partitions, %zu switches (%u nodes removed)",
	     cd->nnodes, cd->nparts, nc->nswitches, removed);
	return 0;
}
