/*
 * assoc_int.h: what assoc.c shares with sacctmgr_rpc.c (the model's
 * constructors), not for the other modules.
 */
#ifndef SLUICE_CTLD_ASSOC_INT_H
#define SLUICE_CTLD_ASSOC_INT_H

#include "acct.h"

/* Append a record (dirty, defaults set; id 0: the next free one). The
 * arrays move: pointers into them are stale after a push. Call
 * acct_changed when done. */
acct_account_t *acct_account_push(acct_t *m);
acct_user_t *acct_user_push(acct_t *m);
acct_assoc_t *acct_assoc_push(acct_t *m, uint32_t id);
acct_qos_t *acct_qos_push(acct_t *m, uint32_t id);
/* The QOS' s.name/s.id again (after the array moved). */
void acct_qos_fix_names(acct_t *m);
/* Names of accounts, users, QOS and clusters are kept lower-case, as
 * slurmdbd keeps them (in place). */
void acct_name_lower(char *s);

#endif
