/*
 * node_health: what the controller does with the health checks its nodes
 * run (noded/health.c) and with their auth key digests.
 *
 * Each registration and heartbeat carries the node's failing checks
 * ("check: evidence" lines) and the SHA-256 of its auth key file. A node
 * with a failing check, or whose key differs from the controller's, is
 * drained with the reason "health: EVIDENCE[; EVIDENCE...]" set by
 * SlurmUser (shown as [slurm@time], as slurmctld's own reasons are), and
 * marked NODE_FLAG_HEALTH_DRAIN (persisted with the node). Such a node is
 * resumed when a later report has nothing failing: its daemon runs a
 * round first (at most 10 s apart while failing). A drain an admin set
 * (scontrol update state=drain, or any admin state change) clears the mark:
 * no check lifts it. A node that cannot read its key reports
 * "unreadable": shown by `sluice check-keys`, not a mismatch.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctld/ctld.h"

#include "errors.h"
#include "health_conf.h"
#include "hostlist.h"
#include "log.h"
#include "prom.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

#define REASON_MAX 400
#define KEY_REREAD_S 60

int64_t ctld_realtime_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Our own key's digest, re-read once a minute (a key replaced on the
 * controller shows without a restart). */
static const char *ctld_key(ctld_t *cd, int64_t now)
{
	if (!cd->key_digest[0] || now - cd->key_digest_at >= KEY_REREAD_S) {
		char *p = health_conf_path(cd->conf);
		health_conf_t *hc = health_conf_load(p, NULL);
		const hc_check_t *c = health_conf_find(hc, HC_AUTHKEY);
		cd->key_drain = c ? c->key_drain : 1;
		char *kp = health_key_path(cd->conf, hc);
		char old[65];
		memcpy(old, cd->key_digest, sizeof(old));
		health_key_digest(kp, cd->key_digest);
		if (strcmp(old, cd->key_digest))
			verbose("auth key %s: digest %.16s", kp, cd->key_digest);
		cd->key_digest_at = now;
		free(kp);
		free(p);
		health_conf_free(hc);
	}
	return cd->key_digest;
}

static void set_str(char **dst, const char *src)
{
	if (src && *dst && !strcmp(src, *dst))
		return;
	free(*dst);
	*dst = src ? xstrdup(src) : NULL;
}

void node_health_heard(ctld_t *cd, node_t *n, const msg_node_register_t *m, int64_t now)
{
	set_str(&n->health, m->health && *m->health ? m->health : NULL);
	n->health_round = m->health_round;
	n->health_nchecks = m->health_nchecks;
	set_str(&n->key_digest, m->key_digest && *m->key_digest ? m->key_digest : NULL);
	const char *ours = ctld_key(cd, now);
	uint32_t km = KEY_MATCH_UNKNOWN;
	if (n->key_digest) {
		if (!strcmp(n->key_digest, "unreadable") || !strcmp(ours, "unreadable"))
			km = KEY_MATCH_UNREADABLE;
		else
			km = strcmp(n->key_digest, ours) ? KEY_MATCH_NO : KEY_MATCH_YES;
	}
	if (km != n->key_match) {
		if (km == KEY_MATCH_NO)
			error("node %s: auth key differs from the controller's (sha256 %.8s, ours %.8s)",
			      n->cf->name, n->key_digest, ours);
		else if (km == KEY_MATCH_UNREADABLE)
			info("node %s: auth key digest not comparable (%s cannot read its key)",
			     n->cf->name, strcmp(ours, "unreadable") ? "the node" : "the controller");
		n->key_match = km;
	}

	/* The reason: each failing check's evidence, without "check: ". */
	strbuf_t r = STRBUF_INIT;
	for (const char *p = n->health; p && *p;) {
		size_t len = strcspn(p, "\n");
		const char *colon = memchr(p, ':', len);
		const char *ev = colon ? colon + 1 : p;
		while (ev < p + len && *ev == ' ')
			ev++;
		strbuf_addf(&r, "%s%.*s", r.len ? "; " : "health: ", (int)(p + len - ev), ev);
		p += len + (p[len] ? 1 : 0);
	}
	if (km == KEY_MATCH_NO && cd->key_drain)
		strbuf_addf(&r, "%sauth key differs from the controller's (sha256 %.8s, controller %.8s)",
			    r.len ? "; " : "health: ", n->key_digest, ours);
	if (r.len > REASON_MAX) {
		strbuf_setlen(&r, REASON_MAX - 3);
		strbuf_addstr(&r, "...");
	}
	int mine = (n->flags & NODE_FLAG_HEALTH_DRAIN) != 0;
	if (r.len) {
		/* Drain, unless a person's drain (or FAIL) is already there. */
		int admin = (n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL)) && !mine;
		if (!admin && (!mine || !n->reason || strcmp(n->reason, r.buf))) {
			if (!mine)
				error("node %s: draining: %s", n->cf->name, r.buf);
			n->flags |= NODE_FLAG_DRAIN | NODE_FLAG_HEALTH_DRAIN;
			node_set_reason(cd, n, r.buf, cd->slurm_uid, now);
			node_dirty(cd, n);
			node_sync_sched(cd, n);
		}
	} else if (mine) {
		info("node %s: health checks pass again: resumed (was: %s)", n->cf->name,
		     n->reason ? n->reason : "");
		n->flags &= ~(NODE_FLAG_DRAIN | NODE_FLAG_HEALTH_DRAIN);
		node_set_reason(cd, n, NULL, 0, now);
		node_dirty(cd, n);
		node_sync_sched(cd, n);
	}
	strbuf_release(&r);
}

void node_health_metrics(const ctld_t *cd, strbuf_t *sb)
{
	prom_family(sb, "sluice_health_check_failing", "gauge",
		    "1 per node and health check failing there (node daemon checks, and authkey: "
		    "its auth key differs from the controller's)");
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		const node_t *n = &cd->nodes[i];
		/* one sample per check name, however many lines it failed */
		const char *seen[HC_KINDS + 1];
		size_t nseen = 0;
		for (const char *p = n->health; p && *p;) {
			size_t len = strcspn(p, "\n");
			size_t kl = strcspn(p, ":\n");
			char name[32];
			snprintf(name, sizeof(name), "%.*s", (int)(kl < len ? kl : len), p);
			int dup = 0;
			for (size_t k = 0; k < nseen && !dup; k++)
				dup = !strcmp(seen[k], name);
			int known = -1;
			for (int k = 0; k < HC_KINDS; k++)
				if (!strcmp(hc_kind_name((enum hc_kind)k), name))
					known = k;
			if (!dup && known >= 0 && nseen < HC_KINDS) {
				seen[nseen++] = hc_kind_name((enum hc_kind)known);
				prom_sample(sb, "sluice_health_check_failing", 1, "node", n->cf->name,
					    "check", name, NULL);
			}
			p += len + (p[len] ? 1 : 0);
		}
		if (n->key_match == KEY_MATCH_NO)
			prom_sample(sb, "sluice_health_check_failing", 1, "node", n->cf->name,
				    "check", "authkey", NULL);
	}
}

int node_health_request(ctld_t *cd, const msg_info_req_t *m, uint32_t uid, char **msg)
{
	if (!is_admin(cd, uid))
		return ESLURM_ACCESS_DENIED;
	char *err = NULL;
	hostlist_t *hl = m->name && *m->name ? hostlist_create_max(m->name, cd->nnodes, &err) : NULL;
	if (m->name && *m->name && !hl) {
		*msg = xasprintf("invalid node list '%s': %s", m->name, err ? err : "malformed");
		free(err);
		return ESLURM_INVALID_NODE_NAME;
	}
	size_t n = hl ? hostlist_count(hl) : cd->nnodes, asked = 0;
	for (size_t i = 0; i < n; i++) {
		long idx = hl ? conf_node_find(cd->conf, hostlist_nth(hl, i)) : (long)i;
		if (idx < 0) {
			*msg = xasprintf("unknown node '%s'", hostlist_nth(hl, i));
			hostlist_destroy(hl);
			return ESLURM_INVALID_NODE_NAME;
		}
		node_t *nd = &cd->nodes[idx];
		if (!nd->conn)
			continue;   /* not connected: preflight reports it */
		msg_node_ping_t p = { ++nd->ping_seq, PING_F_HEALTH };
		conn_send(nd->conn, MSG_NODE_PING, &p);
		asked++;
	}
	hostlist_destroy(hl);
	*msg = xasprintf("%zu node(s) asked to run their health checks", asked);
	return 0;
}
