/*
 * test_cmd_cut: fixed-width columns never cut a UTF-8 character in two
 * (cmd_cut_len, src/cmd/cmdutil.c), for the plain cut of squeue/sinfo
 * (fmt_add) and the '+' cut of sacct/sstat/sacctmgr/sreport/sshare
 * (cmd_add_cut_plus, sacct_pad); ASCII is cut as Slurm cuts it.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmdutil.h"
#include "cmd/sacct.h"
#include "tap.h"

static char *plain(const char *s, int width, int right)
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_addstr(&sb, "[");
	fmt_add(&sb, s, width, right);
	strbuf_addstr(&sb, "]");
	return strbuf_detach(&sb);
}

static char *plus(const char *s, size_t width, int left)
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_addstr(&sb, "[");
	cmd_add_cut_plus(&sb, s, strlen(s), width, left);
	strbuf_addstr(&sb, "]");
	return strbuf_detach(&sb);
}

static char *sacct(const char *s, int width, int left)
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_addstr(&sb, "[");
	sacct_pad(&sb, s, width, left);
	strbuf_addstr(&sb, "]");
	return strbuf_detach(&sb);
}

#define IS(expr, want, ...) do { char *g__ = (expr); is_str(g__, want, __VA_ARGS__); free(g__); } while (0)

int main(void)
{
	/* "é" is 2 bytes, "€" 3, "😀" 4 */
	const char *e2 = "\xc3\xa9\xc3\xa9\xc3\xa9";            /* ééé */
	const char *e3 = "a\xe2\x82\xac\xe2\x82\xac";            /* a€€ */
	const char *e4 = "ab\xf0\x9f\x98\x80z";                  /* ab😀z */
	is_int(cmd_cut_len(e2, 6, 6), 6, "2-byte: fits");
	is_int(cmd_cut_len(e2, 6, 4), 4, "2-byte: cut between characters");
	is_int(cmd_cut_len(e2, 6, 5), 4, "2-byte: cut inside the third: before it");
	is_int(cmd_cut_len(e2, 6, 1), 0, "2-byte: inside the first: nothing");
	is_int(cmd_cut_len(e3, 7, 2), 1, "3-byte: after its first byte");
	is_int(cmd_cut_len(e3, 7, 3), 1, "3-byte: after its second byte");
	is_int(cmd_cut_len(e3, 7, 4), 4, "3-byte: after the whole character");
	is_int(cmd_cut_len(e3, 7, 6), 4, "3-byte: inside the second");
	is_int(cmd_cut_len(e4, 7, 3), 2, "4-byte: after 1 of 4");
	is_int(cmd_cut_len(e4, 7, 4), 2, "4-byte: after 2 of 4");
	is_int(cmd_cut_len(e4, 7, 5), 2, "4-byte: after 3 of 4");
	is_int(cmd_cut_len(e4, 7, 6), 6, "4-byte: after all 4");
	is_int(cmd_cut_len("abcdef", 6, 3), 3, "ASCII: bytes");
	is_int(cmd_cut_len("\xa9\xa9\xa9\xa9\xa9", 5, 4), 4, "no lead byte within 3: bytes, as Slurm");
	is_int(cmd_cut_len("ab\xe9z", 4, 3), 3, "Latin-1 (not UTF-8) before ASCII: bytes");

	/* squeue/sinfo: cut to the width, padded as a shorter value */
	IS(plain("abcdefghij", 8, 1), "[abcdefgh]", "ASCII right-justified cut, as Slurm");
	IS(plain("abc", 8, 1), "[     abc]", "ASCII padding unchanged");
	IS(plain("abc", 8, 0), "[abc     ]", "ASCII left padding unchanged");
	IS(plain("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, 1), "[\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9]",
	   "éééééé in %%.8: four whole characters");
	IS(plain("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 7, 1), "[ \xc3\xa9\xc3\xa9\xc3\xa9]",
	   "éééééé in %%.7: three, padded to 7 bytes on the left");
	IS(plain("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 7, 0), "[\xc3\xa9\xc3\xa9\xc3\xa9 ]",
	   "éééééé in %%7: three, padded on the right");
	IS(plain("ab\xf0\x9f\x98\x80z", 5, 0), "[ab   ]", "a 4-byte character cut off whole");

	/* sacct-style: width-1 bytes and '+' */
	IS(plus("abcdefghij", 5, 0), "[abcd+]", "ASCII '+' cut, as Slurm");
	IS(plus("abc", 5, 0), "[  abc]", "ASCII right-justified");
	IS(plus("abc", 5, 1), "[abc  ]", "ASCII left-justified");
	IS(plus("a\xe2\x82\xac\xe2\x82\xac", 4, 0), "[  a+]", "3-byte after the '+' cut: padded, right");
	IS(plus("a\xe2\x82\xac\xe2\x82\xac", 4, 1), "[a+  ]", "and left");
	IS(plus("a\xe2\x82\xac\xe2\x82\xac", 5, 0), "[a\xe2\x82\xac+]", "a whole 3-byte character and the '+'");
	IS(plus("abc", 0, 0), "[]", "width 0: nothing");
	IS(sacct("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10, 0),
	   "[ \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9+ ]", "sacct JobName%%10 of éééééé: 4 characters, '+', padded");
	IS(sacct("abcdefghijkl", 10, 0), "[abcdefghi+ ]", "sacct ASCII cut as Slurm");
	IS(sacct("abcdef", 10, 1), "[abcdef     ]", "sacct ASCII left padding");
	return done_testing();
}
