/*
 * sched_fairshare.h: the fair-share factor of every association from the
 * tree, the shares and the decayed usage (pure: no clock, no I/O).
 *
 * Two algorithms, as Slurm 22.05 has them:
 *   Fair Tree (the default): per level, LevelFS = S / U with S the
 *     association's shares over its siblings' and U its usage over its
 *     parent's; the tree is walked depth first, siblings in descending
 *     LevelFS order (users before accounts on equal values), and every
 *     user association gets rank / (number of user associations), the
 *     first visited the highest rank. Ties: sibling users with equal
 *     LevelFS share a rank, sibling accounts with equal LevelFS have their
 *     children ranked together, a user tied with an account ranks with the
 *     account's best user.
 *   Classic (PriorityFlags=NO_FAIR_TREE): NormShares the product of the
 *     share fractions down the path, NormUsage usage / the root's,
 *     EffectvUsage = NormUsage + (parent's EffectvUsage - NormUsage) *
 *     shares / siblings' shares, and the factor 2^(-EffectvUsage /
 *     NormShares / FairShareDampeningFactor).
 * FairShare=parent (SCHED_SHARES_PARENT): the association counts as part
 * of its parent (its shares are not among its siblings'; a user so marked
 * ranks first in its account under Fair Tree, and takes its account's
 * values under the classic algorithm).
 */
#ifndef SLUICE_SCHED_FAIRSHARE_H
#define SLUICE_SCHED_FAIRSHARE_H

#include <stdint.h>

#include "sched_limits.h"

enum { SCHED_FS_FAIR_TREE = 0, SCHED_FS_CLASSIC = 1 };

/* The LevelFS of a FairShare=parent account under Fair Tree (Slurm's
 * NO_VAL: it sorts first and is not printed). */
#define SCHED_FS_LEVEL_NONE 4294967294.0

/* Compute, for each of a[0..n): fs_norm_shares (NormShares),
 * fs_norm_usage (NormUsage), fs_eff_usage (EffectvUsage), fs_level
 * (LevelFS, Fair Tree only; INFINITY for no usage) and fs_factor (user
 * associations; 0 for accounts). a[0] must be the root (parent -1); the
 * others may come in any order, with a[i].parent the index of the
 * parent. usage_raw must be the subtree's usage (an account's includes
 * its children's). damp: FairShareDampeningFactor (1 = none). O(n log n).
 * Returns 0, or -1 if the parent links are not a tree rooted at a[0]
 * (nothing is written then). */
int sched_fairshare(sched_assoc_t *a, uint32_t n, int algo, double damp);

/* The Fair Tree ordering does not depend on this; exported for tests:
 * the classic factor 2^(-eff_usage / norm_shares / damp), 0 when
 * norm_shares is 0. */
double sched_fs_classic_factor(double eff_usage, double norm_shares, double damp);

#endif
