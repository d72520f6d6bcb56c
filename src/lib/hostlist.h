/*
 * hostlist: Slurm hostlist expressions.
 *
 *   "comp[001-032,040]", "a[1-2]b[3-4]" (nested: cartesian product, last
 *   bracket varies fastest), "n1,n2,gpu[01-02]", whitespace or comma
 *   separated. Zero-padding is kept from the range's first bound
 *   ("n[08-10]" -> n08 n09 n10).
 *
 * A hostlist is an ordered list of host names (duplicates allowed until
 * hostlist_uniq). hostlist_ranged_string() compresses back exactly as Slurm
 * prints node lists: consecutive numeric suffixes with the same prefix and
 * width become ranges ("comp[001-004,007]"), hosts without a numeric suffix
 * are listed as is, groups are joined by ','.
 */
#ifndef SLUICE_HOSTLIST_H
#define SLUICE_HOSTLIST_H

#include <stddef.h>

typedef struct hostlist hostlist_t;

/* Parse expr (NULL or "" gives an empty list). Returns NULL on a syntax
 * error and, if err is non-NULL, sets *err to a malloc'd message naming the
 * problem (e.g. "unbalanced '[' in 'comp[1-3'"). Lists larger than
 * HOSTLIST_MAX hosts are an error. */
#define HOSTLIST_MAX (1 << 22)
hostlist_t *hostlist_create(const char *expr, char **err);
hostlist_t *hostlist_create_empty(void);
/* As hostlist_create, but a list of more than max hosts is refused before
 * it is expanded ("too many hosts in '...' (at most max)"). Whatever a
 * request names is expanded through this, with the most hosts the answer
 * can use (the cluster's nodes): an expression costs memory per host it
 * names, and "comp[1-4194304]" is 15 bytes. */
hostlist_t *hostlist_create_max(const char *expr, size_t max, char **err);
void hostlist_destroy(hostlist_t *hl);              /* accepts NULL */

/* Append all hosts of expr; 0 or -1 (with *err) on a syntax error. */
int hostlist_push(hostlist_t *hl, const char *expr, char **err);
void hostlist_push_host(hostlist_t *hl, const char *name);

size_t hostlist_count(const hostlist_t *hl);
const char *hostlist_nth(const hostlist_t *hl, size_t i); /* owned by hl */
/* Index of name or -1. Linear; build a hash where it matters. */
long hostlist_find(const hostlist_t *hl, const char *name);

/* A hostlist expression as a set, never expanded: memory and the cost of
 * a test grow with the expression's text, not with the hosts it names.
 * For filters a request sends (sacct -N), which may name hosts that no
 * longer exist. The same syntax and errors as hostlist_create. */
typedef struct hostset hostset_t;
hostset_t *hostset_create(const char *expr, char **err);
void hostset_destroy(hostset_t *hs);                /* accepts NULL */
/* Would the expression's expansion hold name? */
int hostset_has(const hostset_t *hs, const char *name);

void hostlist_sort(hostlist_t *hl);   /* by prefix, then numeric suffix */
void hostlist_uniq(hostlist_t *hl);   /* sort + remove duplicates */

/* Compressed ranged string, malloc'd ("comp[001-003]", "" if empty).
 * Order is kept: only runs of hosts adjacent in the list merge, so call
 * hostlist_sort first for the sorted form. */
char *hostlist_ranged_string(const hostlist_t *hl);
/* Convenience: compress an array of names (keeps order). */
char *hostlist_compress(const char *const *names, size_t n);

#endif
