/*
 * assoc.c: clusters, accounts, users, associations, QOS and coordinators
 * (acct.h): the model, its table in the state DB, sacctmgr, and a job's
 * Account/QOS at submission.
 */
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "xalloc.h"

uint32_t acct_enforce_parse(const char *v)
{
	uint32_t f = 0;
	if (!v)
		return 0;
	char *dup = xstrdup(v), *save = NULL;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(w, "associations"))
			f |= ACCT_ENF_ASSOCS;
		else if (!strcasecmp(w, "limits"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS;
		else if (!strcasecmp(w, "qos"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_QOS;
		else if (!strcasecmp(w, "safe"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS | ACCT_ENF_SAFE;
		else if (!strcasecmp(w, "wckeys"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_WCKEYS;
		else if (!strcasecmp(w, "nojobs"))
			f |= ACCT_ENF_NOJOBS | ACCT_ENF_NOSTEPS;
		else if (!strcasecmp(w, "nosteps"))
			f |= ACCT_ENF_NOSTEPS;
		else if (!strcasecmp(w, "all"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS | ACCT_ENF_QOS | ACCT_ENF_SAFE
				| ACCT_ENF_WCKEYS;
	}
	free(dup);
	return f;
}

uint32_t acct_admin_level(ctld_t *cd, uint32_t uid)
{
	if (is_admin(cd, uid))
		return ACCT_ADMIN_SUPER;
	for (uint32_t i = 0; i < cd->acct.nusers; i++)
		if (cd->acct.users[i].uid == uid)
			return cd->acct.users[i].admin_level;
	return ACCT_ADMIN_NONE;
}
