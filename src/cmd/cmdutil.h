/*
 * cmdutil: helpers shared by the Slurm-compatible commands.
 *
 *   - loading the client config and calling the controller, printing
 *     failures with Slurm's wording ("slurm_load_jobs error: Invalid job id
 *     specified", "... Unable to contact slurm controller (connect failure)");
 *   - user/group name lookups, cached (squeue formats 100,000 rows);
 *   - the `%[.][width]X` format-spec parser shared by squeue and sinfo, the
 *     `Name[:[.]width[suffix]]` long-format (-O) parser, and the padded field
 *     writer with Slurm's truncate-to-width behaviour;
 *   - small list helpers (comma lists).
 */
#ifndef SLUICE_CMDUTIL_H
#define SLUICE_CMDUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "conf.h"
#include "proto.h"
#include "strbuf.h"

/* The client config ($SLURM_CONF, CONF_CLIENT mode), loaded once. Prints
 * its errors as "<prog>: error: ..." and exits 1 if it cannot be read. */
const conf_t *cmd_conf(void);

/* Send req to the controller and wait for a reply of type want. Returns 0
 * with *reply (free with proto_msg_destroy(want, *reply)), or an errors.h
 * number (a MSG_RC reply's rc). If what is non-NULL an error is printed as
 * "<what> error: <text>" on stderr. */
int cmd_call(enum msg_type type, const void *req, enum msg_type want,
	     void **reply, const char *what);
/* For requests answered by MSG_RC. Returns the rc; no message printed. */
int cmd_call_rc(enum msg_type type, const void *req);

/* Submit d (MSG_SUBMIT), safe to retry: d->request_id gets a random id,
 * and a failed try is retried with the same id as cmd_retry_next says;
 * the controller answers a repeated id with the job the first try made.
 * srun and salloc allocate through it too. Returns as rpc_call_ctld (0
 * with *rtype, *reply, or an errors.h number). */
int cmd_submit(job_desc_t *d, enum msg_type *rtype, void **reply);

/* When to try a submission again. A connection that was refused or closed
 * without a reply (a controller that crashed or restarts) costs no wait,
 * so it is retried soon: after 100 ms, doubling up to 1 s, for as long as
 * MessageTimeout in all. A try that timed out (the connection stayed open,
 * no reply within MessageTimeout) has waited already: it is retried at
 * once, CMD_SUBMIT_TRIES tries that time out at most. */
#define CMD_SUBMIT_TRIES 3
#define CMD_RETRY_FIRST_MS 100
#define CMD_RETRY_MAX_MS 1000
typedef struct cmd_retry {
	uint32_t window_ms;   /* MessageTimeout: the backoff after closed connections */
	uint32_t waited_ms;   /* backoff spent so far */
	uint32_t next_ms;     /* the next backoff (0: the first) */
	int timeouts;         /* tries that timed out */
} cmd_retry_t;
void cmd_retry_init(cmd_retry_t *r, uint32_t message_timeout_s);
/* Milliseconds to wait before the next try after err, or -1: give up
 * (err is not one to retry, or the bound is reached). */
long cmd_retry_next(cmd_retry_t *r, int err);

/* Names for ids (cached; "nobody"-style fallback is the number). */
const char *cmd_user_name(uint32_t uid);
const char *cmd_group_name(uint32_t gid);
/* Name or numeric string to uid/gid; 0 on success, -1 if unknown. */
int cmd_user_id(const char *name, uint32_t *uid);
int cmd_group_id(const char *name, uint32_t *gid);

/* Split a comma list into a strv (empty items dropped). */
void cmd_split(strv_t *out, const char *list);
int cmd_strv_has(const strv_t *sv, const char *s);
int cmd_strv_has_case(const strv_t *sv, const char *s);

/* ---- format specifications ---- */

typedef struct fmt_field {
	int code;        /* the letter for -o, a table index for -O; -1 invalid */
	int width;       /* 0 = as wide as the value */
	int right;       /* '.': right-justified */
	char *suffix;    /* literal text printed after the field */
} fmt_field_t;

typedef struct fmt {
	char *prefix;    /* literal text before the first field (squeue) */
	fmt_field_t *f;
	size_t n;
} fmt_t;

/* Parse a -o spec. valid(c) says whether a letter is known; an unknown one
 * becomes an invalid field whose suffix is "%<token>" (what Slurm prints in
 * its place on every line) and is reported through bad(c, arg). keep_prefix:
 * squeue prints text before the first '%'; sinfo drops it. */
void fmt_parse(fmt_t *out, const char *spec, int keep_prefix,
	       int (*valid)(int c), void (*bad)(int c, void *arg), void *arg);
/* Parse a -O spec: comma-separated "Name[:[.][width][suffix]]"; no ':'
 * means width 20. lookup(name) gives the code or -1 (then bad_name is
 * called with the name and the field becomes invalid). */
void fmt_parse_long(fmt_t *out, const char *spec, int (*lookup)(const char *name),
		    void (*bad_name)(const char *name, void *arg), void *arg);
void fmt_release(fmt_t *f);

/* Append s as Slurm's print functions do: width 0 -> as is; else padded to
 * width (left, or right when right) and truncated to width. */
void fmt_add(strbuf_t *sb, const char *s, int width, int right);
/* Where to cut s (len bytes) to fit max bytes: max, or less so that no
 * UTF-8 character is cut in two (the column is then padded to its width
 * as a shorter value is). Widths stay in bytes, as Slurm's: ASCII output is
 * Slurm's byte for byte, and bytes that are not UTF-8 are cut as Slurm
 * cuts them. Every column printer cuts through it. */
size_t cmd_cut_len(const char *s, size_t len, size_t max);
/* Spaces, n of them. */
void cmd_add_spaces(strbuf_t *sb, size_t n);
/* Append v cut to width-1 bytes (cmd_cut_len) and a '+' when it is longer
 * than width (sacct, sacctmgr, sreport, sshare), else as it is; padded to
 * width on the left (right-justified) or, with left, on the right. */
void cmd_add_cut_plus(strbuf_t *sb, const char *v, size_t len, size_t width, int left);
/* Same for an unsigned number. */
void fmt_add_u(strbuf_t *sb, uint64_t v, int width, int right);

/* This host's name up to the first dot (uname, no DNS); malloc'd. */
char *cmd_short_hostname(void);

/* getopt's diagnostics in Slurm's form, then the "Try ..." line. */
void cmd_bad_option(const char *prog);

/* ---- --help and --usage ----
 *
 * One table per command (help_text.c), printed the way Slurm's getopt-style
 * commands lay out their help: "Usage: PROG SYNOPSIS", a blank line, then
 * option lines "  -X, --long=ARG   text" with the text in column col
 * (continuation lines indented to it; an option too long for its column
 * gets its text after one space), groups under "Name:" headings, and a
 * "Help options:" group; a text starting with '\n' starts on the next
 * line, in the column. --usage prints "Usage: PROG " and the usage lines,
 * continuation lines aligned under the first. Both go to stdout. */
#define CMD_HELP_NOCOL (-1)      /* cmd_opt_help_t.sopt: no short-option column */
typedef struct cmd_opt_help {
	int sopt;                /* 'A' prints "-A, "; 0 four spaces; CMD_HELP_NOCOL none */
	const char *lopt;        /* "account=name" (printed after "--"); NULL: a
				  * heading, text is printed on a line of its own
				  * after a blank line */
	const char *text;        /* '\n' separates continuation lines */
} cmd_opt_help_t;

typedef struct cmd_help {
	const char *prog;
	const char *synopsis;    /* what follows "Usage: PROG " in --help */
	const char *usage;       /* --usage: lines separated by '\n' */
	int col;                 /* the column option texts start in */
	int blank_after_synopsis; /* a blank line between synopsis and options */
	const cmd_opt_help_t *opts;   /* ends with an entry whose text is NULL */
} cmd_help_t;

void cmd_help_print(FILE *fp, const cmd_help_t *h);
void cmd_usage_print(FILE *fp, const cmd_help_t *h);

extern const cmd_help_t cmd_help_sbatch, cmd_help_srun, cmd_help_squeue, cmd_help_sinfo,
	cmd_help_scancel, cmd_help_sdiag;

#endif
