/*
 * names: user and group names for ids, cached.
 *
 * The controller names users in every job it accepts and every node reason
 * it reports; a passwd/group lookup reads NSS (files, LDAP, sssd) each time,
 * which made `sinfo` on 10,000 drained nodes cost 10,000 lookups. Answers
 * are kept for NAMES_TTL seconds so renames and new users still show up.
 */
#ifndef SLUICE_CTLD_NAMES_H
#define SLUICE_CTLD_NAMES_H

#include <stdint.h>

#define NAMES_TTL 300

/* Name for a uid/gid (the number when unknown); malloc'd copy. */
char *names_user(uint32_t uid);
char *names_group(uint32_t gid);

#endif
