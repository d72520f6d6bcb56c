/*
 * test_sched_fairshare: Fair Tree and the classic fair-share algorithm
 * against values computed by hand from Slurm's published definitions
 * (LevelFS = S/U, rank / users; 2^(-EffectvUsage/NormShares)), including
 * ties, merged tied accounts and FairShare=parent.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"

#include "sched/sched_fairshare.h"

#define NEAR(got, want, ...) ok(fabs((got) - (want)) < 1e-9, __VA_ARGS__)

static sched_assoc_t A[16];
static uint32_t NA;

static uint32_t add(int32_t parent, int user, uint32_t shares, double usage)
{
	sched_assoc_t *x = &A[NA];
	memset(x, 0, sizeof(*x));
	x->id = NA + 1;
	x->parent = parent;
	x->is_user = (uint8_t)user;
	x->uid = user ? 1000 + NA : UINT32_MAX;
	x->shares_raw = shares;
	x->usage_raw = usage;
	/* subtree usage: add to the ancestors */
	for (int32_t p = parent; p >= 0; p = A[p].parent)
		A[p].usage_raw += usage;
	return NA++;
}

static void reset(void)
{
	NA = 0;
	add(-1, 0, 1, 0);   /* root */
}

static void fair_tree_basic(void)
{
	reset();
	uint32_t a = add(0, 0, 1, 0), b = add(0, 0, 1, 0);
	uint32_t u1 = add((int32_t)a, 1, 1, 10), u2 = add((int32_t)a, 1, 1, 30);
	uint32_t u3 = add((int32_t)b, 1, 1, 0);
	is_int(sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1), 0, "fair tree: computed");
	NEAR(A[a].fs_level, 0.5, "A: LevelFS = 0.5 / 1");
	ok(isinf(A[b].fs_level), "B: no usage, LevelFS inf");
	NEAR(A[a].fs_norm_shares, 0.5, "A: NormShares 0.5");
	NEAR(A[u1].fs_eff_usage, 0.25, "u1: EffectvUsage 10/40 of its account");
	NEAR(A[u1].fs_norm_usage, 0.25, "u1: NormUsage 10/40 of the root");
	NEAR(A[u1].fs_level, 2.0, "u1: LevelFS 0.5/0.25");
	NEAR(A[u3].fs_factor, 1.0, "u3 (under the unused account) ranks first");
	NEAR(A[u1].fs_factor, 2.0 / 3, "u1 second");
	NEAR(A[u2].fs_factor, 1.0 / 3, "u2 last");
	NEAR(A[0].fs_eff_usage, 1.0, "root EffectvUsage 1");
	NEAR(A[a].fs_factor, 0, "accounts get no factor");
}

static void fair_tree_ties(void)
{
	/* a user and an account tied at infinity: the account's best user
	 * shares the user's rank */
	reset();
	uint32_t u0 = add(0, 1, 1, 0), a = add(0, 0, 1, 0);
	uint32_t a1 = add((int32_t)a, 1, 1, 0);
	sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1);
	NEAR(A[u0].fs_factor, 1.0, "tie: the user ranks first");
	NEAR(A[a1].fs_factor, 1.0, "tie: the tied account's user shares the rank");

	/* tied accounts A and B (LevelFS 0.5): their users are ranked
	 * together, sibling users with equal LevelFS share a rank */
	reset();
	a = add(0, 0, 1, 0);
	uint32_t b = add(0, 0, 1, 0), c = add(0, 0, 2, 0);
	a1 = add((int32_t)a, 1, 1, 10);
	uint32_t a2 = add((int32_t)a, 1, 1, 0);
	uint32_t b1 = add((int32_t)b, 1, 1, 5), b2 = add((int32_t)b, 1, 1, 5);
	uint32_t c1 = add((int32_t)c, 1, 1, 0);
	sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1);
	NEAR(A[a].fs_level, 0.5, "A LevelFS 0.25/0.5");
	NEAR(A[b].fs_level, 0.5, "B LevelFS 0.25/0.5");
	NEAR(A[c1].fs_factor, 1.0, "c1 (unused C) first: 5/5");
	NEAR(A[a2].fs_factor, 0.8, "a2 (inf in the merged level) 4/5");
	NEAR(A[b1].fs_factor, 0.6, "b1 3/5");
	NEAR(A[b2].fs_factor, 0.6, "b2 tied with b1: 3/5");
	NEAR(A[a1].fs_factor, 0.2, "a1 last: 1/5");
}

static void fair_tree_parent(void)
{
	reset();
	uint32_t a = add(0, 0, 1, 0);
	uint32_t u1 = add((int32_t)a, 1, SCHED_SHARES_PARENT, 10);
	uint32_t u2 = add((int32_t)a, 1, 1, 0);
	sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1);
	ok(isinf(A[u1].fs_level), "FairShare=parent user: LevelFS inf");
	NEAR(A[u2].fs_norm_shares, 1.0, "its shares do not count among its siblings'");
	NEAR(A[u1].fs_norm_shares, 1.0, "it takes its account's NormShares");
	NEAR(A[u1].fs_factor, 1.0, "it ranks first");
	NEAR(A[u2].fs_factor, 1.0, "the other user (no usage) ties with it");

	/* a FairShare=parent account: its users divide the shares of its
	 * parent's level */
	reset();
	uint32_t p = add(0, 0, SCHED_SHARES_PARENT, 0), q = add(0, 0, 1, 0);
	uint32_t p1 = add((int32_t)p, 1, 1, 0), q1 = add((int32_t)q, 1, 1, 0);
	sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1);
	NEAR(A[q].fs_norm_shares, 0.5, "q shares its level with p's user");
	NEAR(A[p1].fs_norm_shares, 0.5, "p1 counts at the root level");
	NEAR(A[p].fs_level, SCHED_FS_LEVEL_NONE, "the parent account has no LevelFS");
	/* NO_VAL sorts above any finite LevelFS but below inf */
	NEAR(A[q1].fs_factor, 1.0, "q1 (unused q, inf) ranks first");
	NEAR(A[p1].fs_factor, 0.5, "p1 (under the parent account) second");
}

static void classic(void)
{
	reset();
	uint32_t a = add(0, 0, 1, 0), b = add(0, 0, 3, 0);
	uint32_t u1 = add((int32_t)a, 1, 1, 30);
	uint32_t u2 = add((int32_t)b, 1, 1, 10), u3 = add((int32_t)b, 1, 1, 0);
	is_int(sched_fairshare(A, NA, SCHED_FS_CLASSIC, 1), 0, "classic: computed");
	NEAR(A[a].fs_norm_shares, 0.25, "A NormShares 1/4");
	NEAR(A[u2].fs_norm_shares, 0.375, "u2 NormShares 3/4 * 1/2");
	NEAR(A[a].fs_eff_usage, 0.75, "A (under root) EffectvUsage = NormUsage");
	NEAR(A[u1].fs_eff_usage, 0.75, "u1 EffectvUsage .75 + (.75-.75)*1");
	NEAR(A[u3].fs_eff_usage, 0.125, "u3 EffectvUsage 0 + (.25-0)*1/2");
	NEAR(A[u1].fs_factor, 0.125, "u1 2^-(.75/.25)");
	NEAR(A[u2].fs_factor, pow(2, -2.0 / 3), "u2 2^-(.25/.375)");
	NEAR(A[u3].fs_factor, pow(2, -1.0 / 3), "u3 2^-(.125/.375)");
	NEAR(sched_fs_classic_factor(0.5, 0.5, 2), pow(2, -0.5), "dampening factor divides");
	NEAR(sched_fs_classic_factor(0.5, 0, 1), 0, "no shares: factor 0");
}

static void bad_trees(void)
{
	reset();
	add(0, 0, 1, 0);
	A[1].parent = 1;
	is_int(sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1), -1, "self parent refused");
	reset();
	add(0, 0, 1, 0);
	add(1, 0, 1, 0);
	A[1].parent = 2;   /* 1 <-> 2, unreachable from the root */
	is_int(sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1), -1, "cycle refused");
	reset();
	add(0, 0, 1, 0);
	A[1].parent = 7;
	is_int(sched_fairshare(A, NA, SCHED_FS_CLASSIC, 1), -1, "parent out of range refused");
	is_int(sched_fairshare(A, 0, SCHED_FS_CLASSIC, 1), -1, "empty refused");
	/* only the root: nothing to rank */
	reset();
	is_int(sched_fairshare(A, NA, SCHED_FS_FAIR_TREE, 1), 0, "root alone");
}

int main(void)
{
	fair_tree_basic();
	fair_tree_ties();
	fair_tree_parent();
	classic();
	bad_trees();
	return done_testing();
}
