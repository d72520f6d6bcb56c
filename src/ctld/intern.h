/*
 * intern: one shared copy of the strings many job records repeat (user,
 * group, partition, account, work dir, output paths, TRES strings), so
 * 10,000 jobs of one user in one directory hold one "alice" and one
 * "/home/alice/run" instead of 10,000 copies of each. Refcounted: a string
 * is freed when the last record holding it lets go, so a long-running
 * controller keeps nothing of purged jobs.
 *
 * An interned pointer is released with intern_put, never with free(), and
 * is never modified (it is char * only to fit the proto.h struct fields).
 * Not thread-safe: the controller is single-threaded.
 */
#ifndef SLUICE_CTLD_INTERN_H
#define SLUICE_CTLD_INTERN_H

#include <stddef.h>

/* The shared copy of s, one more reference to it. NULL gives NULL. */
char *intern_get(const char *s);
/* intern_get(s), then free(s): for a freshly malloc'd string. */
char *intern_take(char *s);
/* Drop one reference (NULL: nothing). */
void intern_put(const char *s);
/* Distinct strings held (tests, diagnostics). */
size_t intern_count(void);

#endif
