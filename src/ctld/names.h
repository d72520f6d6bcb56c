/*
 * names: user and group names for ids, cached.
 *
 * The controller names users in every job it accepts and every node reason
 * it reports; a passwd/group lookup reads NSS (files, LDAP, sssd) each time,
 * which made `sinfo` on 10,000 drained nodes cost 10,000 lookups. Answers
 * are kept for NAMES_TTL seconds so renames and new users still show up.
 * Also the members of the groups partitions allow (AllowGroups), below.
 */
#ifndef SLUICE_CTLD_NAMES_H
#define SLUICE_CTLD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define NAMES_TTL 300

/* Name for a uid/gid (the number when unknown); malloc'd copy. */
char *names_user(uint32_t uid);
char *names_group(uint32_t gid);

/*
 * Partition AllowGroups, as slurmctld keeps them: the groups named are
 * resolved to their gid and member uids by a worker thread, never in the
 * controller's loop (an NSS lookup may wait on LDAP or sssd). It resolves
 * when asked (start, reconfigure) and every GroupUpdateTime seconds (0:
 * never), then only if /etc/group changed unless GroupUpdateForce. The
 * loop only reads the last published table.
 */

/* Resolve one group: its gid and the uids of its listed members (uids:
 * malloc'd, any order). 0, or -1 if there is no such group. Replaceable
 * for tests (names_groups_set_resolver). */
typedef int (*names_group_resolve_f)(const char *name, uint32_t *gid, uint32_t **uids,
				     size_t *nuids);
void names_groups_set_resolver(names_group_resolve_f fn);   /* NULL: NSS */

/* Watch the groups named in lists (each an AllowGroups value, comma
 * separated; "ALL" and empty ones name none) and have them resolved now;
 * starts the worker on first use. Returns at once. */
void names_groups_watch(const char *const *lists, size_t n, uint32_t update_s, int force);
/* Wait up to timeout_ms until the last watch/refresh is resolved (start:
 * jobs are checked against a table that is complete). 0, or -1 on
 * timeout. */
int names_groups_wait(int timeout_ms);
/* Resolve again now (as at a reconfigure, with the same groups). */
void names_groups_refresh(void);
/* May (uid, primary gid) use a partition with AllowGroups list? 1 if gid
 * is one of the groups' or uid a member of one, per the last table; a
 * group not resolved (yet) admits no one. No NSS call. */
int names_groups_allow(const char *list, uint32_t uid, uint32_t gid);

#endif
