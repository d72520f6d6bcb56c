/*
 * job_nccl: the NCCL transport verdicts on jobs (see job_nccl.h).
 *
 * A verdict belongs to one run of a job (its launch_seq): a requeued job
 * shows none until its new run is judged, and a late report of an older
 * run is refused. The supervisor sends a report only when its verdict
 * changes (a few per job), so each is saved with a statement of its own.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/job_nccl.h"
#include "ctld/names.h"

#include "errors.h"
#include "log.h"
#include "nccl_log.h"
#include "prom.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define NCCL_DETAIL_MAX 512

/* Socket verdicts recorded since the controller started (a counter for
 * rate() and increase() in alert rules). */
static uint64_t socket_total;

const job_nccl_t *job_nccl_get(const job_t *j)
{
	return j->nccl && j->nccl->launch_seq == j->launch_seq ? j->nccl : NULL;
}

void job_nccl_free(job_t *j)
{
	if (!j->nccl)
		return;
	free(j->nccl->transport);
	free(j->nccl->node);
	free(j->nccl->detail);
	free(j->nccl);
	j->nccl = NULL;
}

/* A name token: 1..32 printable characters, no blanks or '=' (it is a
 * Key=Value value in scontrol's output). */
static int token_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	if (!n || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] >= 0x7f || s[i] == '=')
			return 0;
	return 1;
}

/* One printable line of at most NCCL_DETAIL_MAX bytes. */
static char *detail_clean(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > NCCL_DETAIL_MAX)
		n = NCCL_DETAIL_MAX;
	char *d = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		d[i] = (s[i] >= ' ' && s[i] < 0x7f) ? s[i] : '?';
	d[n] = '\0';
	return d;
}

static void set_verdict(job_t *j, const char *transport, const char *node, const char *detail,
			uint32_t source, uint32_t seq, int64_t time)
{
	job_nccl_free(j);
	job_nccl_t *v = xcalloc(1, sizeof(*v));
	v->transport = xstrdup(transport);
	v->node = xstrdup(node);
	v->detail = detail_clean(detail);
	v->source = source;
	v->launch_seq = seq;
	v->time = time;
	j->nccl = v;
}

int job_nccl_report(ctld_t *cd, const msg_job_nccl_t *m, uint32_t uid)
{
	if (!is_admin(cd, uid))
		return ESLURM_ACCESS_DENIED;
	job_t *j = job_find(cd, m->job_id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	if (m->launch_seq != j->launch_seq)
		return ESLURM_ALREADY_DONE;    /* an older run's: the supervisor stops */
	if (!token_ok(m->transport, 32) || !token_ok(m->node, 256) ||
	    (m->source != NCCL_SRC_LOG && m->source != NCCL_SRC_COUNTERS))
		return SLURM_ERROR;
	const job_nccl_t *old = job_nccl_get(j);
	/* A verdict from the log outweighs one from the counters. */
	if (old && old->source == NCCL_SRC_LOG && m->source == NCCL_SRC_COUNTERS)
		return 0;
	int was_socket = old && !strcmp(old->transport, "Socket");
	int socket = !strcmp(m->transport, "Socket");
	set_verdict(j, m->transport, m->node, m->detail, m->source, m->launch_seq,
		    m->time > 0 ? m->time : ctld_now());
	job_dirty(cd, j);
	if (socket && !was_socket) {
		socket_total++;
		error("job %u: NCCL uses TCP sockets, not the fabric (%s on %s: %s)", j->job_id,
		      nccl_source_name(m->source), m->node, j->nccl->detail);
	} else {
		info("job %u: NCCL transport %s (%s on %s: %s)", j->job_id, m->transport,
		     nccl_source_name(m->source), m->node, j->nccl->detail);
	}
	return 0;
}

void job_nccl_fill_info(const job_t *j, job_info_t *ji)
{
	const job_nccl_t *v = job_nccl_get(j);
	if (!v)
		return;
	ji->nccl_transport = v->transport;
	ji->nccl_source = (char *)nccl_source_name(v->source);
	ji->nccl_node = v->node;
	ji->nccl_detail = v->detail;
	ji->nccl_time = v->time;
}

/* ---- state DB ---- */

int job_nccl_migrate(sqlite3 *db, char **err)
{
	static const db_column_t added[] = {
		{ "jobs", "nccl_transport", "TEXT" },
		{ "jobs", "nccl_source", "INTEGER NOT NULL DEFAULT 0" },
		{ "jobs", "nccl_node", "TEXT" },
		{ "jobs", "nccl_detail", "TEXT" },
		{ "jobs", "nccl_time", "INTEGER NOT NULL DEFAULT 0" },
		{ "jobs", "nccl_launch_seq", "INTEGER NOT NULL DEFAULT 0" },
	};
	return db_add_columns(db, added, sizeof(added) / sizeof(added[0]), err);
}

void job_nccl_db_save(ctld_t *cd, const job_t *j)
{
	if (!j->nccl)
		return;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cd->db, "UPDATE jobs SET nccl_transport=?2, nccl_source=?3,"
			       " nccl_node=?4, nccl_detail=?5, nccl_time=?6, nccl_launch_seq=?7"
			       " WHERE job_id=?1", -1, &st, NULL) != SQLITE_OK) {
		error("state db: cannot prepare the NCCL verdict save: %s", sqlite3_errmsg(cd->db));
		sqlite3_finalize(st);
		return;
	}
	const job_nccl_t *v = j->nccl;
	sqlite3_bind_int64(st, 1, j->job_id);
	sqlite3_bind_text(st, 2, v->transport, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, v->source);
	sqlite3_bind_text(st, 4, v->node, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, v->detail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, v->time);
	sqlite3_bind_int64(st, 7, v->launch_seq);
	db_exec_step(cd, st, "save job NCCL verdict");
	sqlite3_finalize(st);
}

void job_nccl_db_load(ctld_t *cd)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cd->db, "SELECT job_id, nccl_transport, nccl_source, nccl_node,"
			       " nccl_detail, nccl_time, nccl_launch_seq FROM jobs"
			       " WHERE nccl_transport IS NOT NULL", -1, &st, NULL) != SQLITE_OK) {
		error("recovery: cannot read the NCCL verdicts: %s", sqlite3_errmsg(cd->db));
		sqlite3_finalize(st);
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		job_t *j = job_find(cd, (uint32_t)sqlite3_column_int64(st, 0));
		const char *t = (const char *)sqlite3_column_text(st, 1);
		if (!j || !t)
			continue;
		set_verdict(j, t, (const char *)sqlite3_column_text(st, 3),
			    (const char *)sqlite3_column_text(st, 4),
			    (uint32_t)sqlite3_column_int64(st, 2),
			    (uint32_t)sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 5));
	}
	sqlite3_finalize(st);
}

/* ---- metrics ---- */

void job_nccl_metrics(ctld_t *cd, strbuf_t *sb)
{
	static const char fam[] = "sluice_job_nccl_transport";
	prom_family(sb, fam, "gauge", "Network the collectives of a running job use, as its batch "
		    "node judged it (source log: NCCL_DEBUG lines; counters: the fabric ports "
		    "nearly still); 1 per running job with a verdict");
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		if ((j->state & JOB_STATE_BASE) != JOB_RUNNING)
			continue;
		const job_nccl_t *v = job_nccl_get(j);
		if (!v)
			continue;
		char id[16];
		snprintf(id, sizeof(id), "%u", j->job_id);
		const char *user = j->desc && j->desc->user_name ? j->desc->user_name : "";
		prom_sample(sb, fam, 1, "job_id", id, "user", user, "transport", v->transport,
			    "source", nccl_source_name(v->source), "node", v->node, NULL);
	}
	prom_family(sb, "sluice_jobs_nccl_socket_fallback_total", "counter",
		    "Jobs found using NCCL's TCP socket transport instead of the fabric since the "
		    "controller started");
	prom_sample_u(sb, "sluice_jobs_nccl_socket_fallback_total", socket_total, NULL);
}

/* ---- sluice why ---- */

json_t *job_nccl_why(const job_t *j)
{
	const job_nccl_t *v = job_nccl_get(j);
	if (!v)
		return NULL;
	char when[32];
	time_fmt_iso((time_t)v->time, when, sizeof(when));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:b}", "transport", v->transport,
			 "source", nccl_source_name(v->source), "node", v->node,
			 "detail", v->detail, "time", when,
			 "socket", !strcmp(v->transport, "Socket"));
}
