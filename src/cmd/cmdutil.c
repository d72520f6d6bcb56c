/*
 * cmdutil: config, controller calls, name lookups and format specs shared
 * by the query commands (squeue, sinfo, scontrol). See cmdutil.h.
 */
#include <ctype.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/cmdutil.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "xalloc.h"

static conf_t *the_conf;

const conf_t *cmd_conf(void)
{
	if (the_conf)
		return the_conf;
	the_conf = conf_load(NULL, CONF_CLIENT);
	if (the_conf->nerrors) {
		for (size_t i = 0; i < the_conf->nerrors; i++)
			error("%s", the_conf->errors[i]);
		exit(1);
	}
	return the_conf;
}

int cmd_call(enum msg_type type, const void *req, enum msg_type want,
	     void **reply, const char *what)
{
	enum msg_type rtype = MSG_NONE;
	void *r = NULL;
	int rc = rpc_call_ctld(cmd_conf(), type, req, &rtype, &r);

	*reply = NULL;
	if (!rc && rtype == MSG_RC) {
		rc = ((msg_rc_t *)r)->rc;
		if (!rc)
			rc = SLUICE_E_PROTOCOL;   /* success without the data */
		proto_msg_destroy(rtype, r);
		r = NULL;
	} else if (!rc && rtype != want) {
		proto_msg_destroy(rtype, r);
		r = NULL;
		rc = SLUICE_E_PROTOCOL;
	}
	if (rc) {
		if (what)
			fprintf(stderr, "%s error: %s\n", what, slurm_strerror(rc));
		return rc;
	}
	*reply = r;
	return 0;
}

int cmd_call_rc(enum msg_type type, const void *req)
{
	return rpc_call_ctld_rc(cmd_conf(), type, req, NULL);
}

int cmd_submit(job_desc_t *d, enum msg_type *rtype, void **reply)
{
	unsigned char rnd[16];
	free(d->request_id);
	d->request_id = NULL;   /* without one, a submission is not retried */
	if (getrandom(rnd, sizeof(rnd), 0) == (ssize_t)sizeof(rnd)) {
		d->request_id = xmalloc(2 * sizeof(rnd) + 1);
		for (size_t i = 0; i < sizeof(rnd); i++)
			snprintf(d->request_id + 2 * i, 3, "%02x", rnd[i]);
	}
	int err = 0;
	cmd_retry_t rt;
	cmd_retry_init(&rt, cmd_conf()->message_timeout);
	for (;;) {
		*reply = NULL;
		*rtype = MSG_NONE;
		err = rpc_call_ctld(cmd_conf(), MSG_SUBMIT, d, rtype, reply);
		long wait_ms = d->request_id ? cmd_retry_next(&rt, err) : -1;
		if (wait_ms < 0)
			break;
		if (*reply)
			proto_msg_destroy(*rtype, *reply);
		error("%s; retrying", slurm_strerror(err));
		if (wait_ms)
			usleep((useconds_t)wait_ms * 1000);
	}
	return err;
}

void cmd_retry_init(cmd_retry_t *r, uint32_t message_timeout_s)
{
	memset(r, 0, sizeof(*r));
	uint32_t s = message_timeout_s ? message_timeout_s : 10;
	r->window_ms = s > 86400 ? 86400000u : s * 1000u;
}

long cmd_retry_next(cmd_retry_t *r, int err)
{
	if (err == SLUICE_E_TIMEOUT)
		return ++r->timeouts >= CMD_SUBMIT_TRIES ? -1 : 0;
	if (err != SLUICE_E_CONNECT || r->waited_ms >= r->window_ms)
		return -1;
	uint32_t d = r->next_ms ? r->next_ms : CMD_RETRY_FIRST_MS;
	r->next_ms = d * 2 > CMD_RETRY_MAX_MS ? CMD_RETRY_MAX_MS : d * 2;
	r->waited_ms += d;
	return (long)d;
}

/* A tiny open-addressed cache: a queue names few distinct users, but asks
 * for them once per row. */
struct name_ent { uint32_t id; int used; char *name; };
struct name_cache { struct name_ent *e; size_t n, alloc; };
static struct name_cache users, groups;

static const char *cache_get(struct name_cache *c, uint32_t id, int is_user)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].id == id)
			return c->e[i].name;
	char *name;
	if (is_user) {
		struct passwd *pw = getpwuid(id);
		name = pw ? xstrdup(pw->pw_name) : xasprintf("%u", id);
	} else {
		struct group *gr = getgrgid(id);
		name = gr ? xstrdup(gr->gr_name) : xasprintf("%u", id);
	}
	c->e = xgrow(c->e, sizeof(*c->e), c->n + 1, &c->alloc);
	c->e[c->n].id = id;
	c->e[c->n].used = 1;
	c->e[c->n].name = name;
	return c->e[c->n++].name;
}

const char *cmd_user_name(uint32_t uid) { return cache_get(&users, uid, 1); }
const char *cmd_group_name(uint32_t gid) { return cache_get(&groups, gid, 0); }

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

int cmd_user_id(const char *name, uint32_t *uid)
{
	struct passwd *pw = getpwnam(name);
	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	if (all_digits(name)) {
		*uid = (uint32_t)strtoul(name, NULL, 10);
		return 0;
	}
	return -1;
}

int cmd_group_id(const char *name, uint32_t *gid)
{
	struct group *gr = getgrnam(name);
	if (gr) {
		*gid = gr->gr_gid;
		return 0;
	}
	if (all_digits(name)) {
		*gid = (uint32_t)strtoul(name, NULL, 10);
		return 0;
	}
	return -1;
}

void cmd_split(strv_t *out, const char *list)
{
	if (!list)
		return;
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n) {
			char *s = xstrndup(p, n);
			strv_push(out, s);
			free(s);
		}
		p += n;
		if (*p == ',')
			p++;
	}
}

int cmd_strv_has(const strv_t *sv, const char *s)
{
	for (uint32_t i = 0; i < sv->n; i++)
		if (s && !strcmp(sv->v[i], s))
			return 1;
	return 0;
}

int cmd_strv_has_case(const strv_t *sv, const char *s)
{
	for (uint32_t i = 0; i < sv->n; i++)
		if (s && !strcasecmp(sv->v[i], s))
			return 1;
	return 0;
}

static fmt_field_t *fmt_push(fmt_t *out)
{
	out->f = xrealloc(out->f, (out->n + 1) * sizeof(*out->f));
	fmt_field_t *f = &out->f[out->n++];
	memset(f, 0, sizeof(*f));
	return f;
}

void fmt_parse(fmt_t *out, const char *spec, int keep_prefix,
	       int (*valid)(int c), void (*bad)(int c, void *arg), void *arg)
{
	memset(out, 0, sizeof(*out));
	const char *p = spec;
	const char *pct = strchr(p, '%');
	/* Text before the first '%': squeue prints it, sinfo tosses it. */
	if (pct != p) {
		size_t n = pct ? (size_t)(pct - p) : strlen(p);
		if (keep_prefix)
			out->prefix = xstrndup(p, n);
		p += n;
	}
	/* Tokens run from one '%' to the next; empty ones ("%%") are skipped
	 * as strtok would. */
	while (*p == '%') {
		p++;
		const char *end = strchr(p, '%');
		size_t tlen = end ? (size_t)(end - p) : strlen(p);
		if (!tlen) {
			continue;
		}
		const char *t = p;
		size_t i = 0;
		fmt_field_t *f = fmt_push(out);
		if (t[i] == '.') {
			f->right = 1;
			i++;
		}
		while (i < tlen && isdigit((unsigned char)t[i]))
			f->width = f->width * 10 + (t[i++] - '0');
		int c = i < tlen ? (unsigned char)t[i++] : 0;
		if (c && valid(c)) {
			f->code = c;
			f->suffix = xstrndup(t + i, tlen - i);
		} else {
			f->code = -1;
			f->suffix = xasprintf("%%%.*s", (int)tlen, t);
			if (bad)
				bad(c, arg);
		}
		p += tlen;
	}
}

void fmt_parse_long(fmt_t *out, const char *spec, int (*lookup)(const char *name),
		    void (*bad_name)(const char *name, void *arg), void *arg)
{
	memset(out, 0, sizeof(*out));
	char *copy = xstrdup(spec), *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		fmt_field_t *f = fmt_push(out);
		char *colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			char *w = colon + 1, *end;
			if (*w == '.') {
				f->right = 1;
				w++;
			}
			long width = strtol(w, &end, 10);
			f->width = width > 0 ? (int)width : 0;
			if (*end)
				f->suffix = xstrdup(end);
		} else {
			f->width = 20;
		}
		f->code = lookup(tok);
		if (f->code < 0) {
			free(f->suffix);
			f->suffix = xasprintf("%%%s", tok);
			if (bad_name)
				bad_name(tok, arg);
		}
		if (!f->suffix)
			f->suffix = xstrdup("");
	}
	free(copy);
}

void fmt_release(fmt_t *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->f[i].suffix);
	free(f->f);
	free(f->prefix);
	memset(f, 0, sizeof(*f));
}

void fmt_add(strbuf_t *sb, const char *s, int width, int right)
{
	if (!s)
		s = "(null)";
	if (width <= 0) {
		strbuf_addstr(sb, s);
		return;
	}
	size_t len = strlen(s);
	size_t w = (size_t)width;
	if (len >= w) {
		len = cmd_cut_len(s, len, w);
		if (len == w) {
			strbuf_add(sb, s, w);
			return;
		}
	}
	/* Write in place: this runs for every field of every row. */
	strbuf_grow(sb, w);
	char *p = sb->buf + sb->len;
	if (right) {
		memset(p, ' ', w - len);
		memcpy(p + (w - len), s, len);
	} else {
		memcpy(p, s, len);
		memset(p + len, ' ', w - len);
	}
	strbuf_setlen(sb, sb->len + w);
}

size_t cmd_cut_len(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	const unsigned char *u = (const unsigned char *)s;
	if ((u[max] & 0xc0) != 0x80)
		return max;             /* the cut falls before a character */
	/* u[max] continues a character: find its first byte (at most 3 back) */
	for (size_t j = 1; j <= 3 && j <= max; j++) {
		unsigned char c = u[max - j];
		if ((c & 0xc0) == 0x80)
			continue;
		size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > j ? max - j : max;
	}
	return max;                     /* not UTF-8: bytes, as Slurm */
}

void cmd_add_spaces(strbuf_t *sb, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, ' ', n);
	strbuf_setlen(sb, sb->len + n);
}

void cmd_add_cut_plus(strbuf_t *sb, const char *v, size_t len, size_t width, int left)
{
	size_t n = len, plus = 0;
	if (len > width) {
		n = width ? cmd_cut_len(v, len, width - 1) : 0;
		plus = width > 0;
	}
	size_t pad = width > n + plus ? width - n - plus : 0;
	if (!left)
		cmd_add_spaces(sb, pad);
	strbuf_add(sb, v, n);
	if (plus)
		strbuf_addch(sb, '+');
	if (left)
		cmd_add_spaces(sb, pad);
}

void fmt_add_u(strbuf_t *sb, uint64_t v, int width, int right)
{
	char buf[24], *p = buf + sizeof(buf) - 1;
	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fmt_add(sb, p, width, right);
}

void cmd_bad_option(const char *prog)
{
	fprintf(stderr, "Try \"%s --help\" for more information\n", prog);
}

char *cmd_short_hostname(void)
{
	struct utsname u;
	if (uname(&u) < 0)
		return xstrdup("localhost");
	char *dot = strchr(u.nodename, '.');
	if (dot)
		*dot = '\0';
	return xstrdup(u.nodename);
}

/* ---- --help and --usage ---- */

static void put_lines(FILE *fp, const char *text, int indent)
{
	const char *p = text;
	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(fp, "%.*s\n", (int)len, p);
		if (!nl)
			break;
		p = nl + 1;
		fprintf(fp, "%*s", indent, "");
	}
}

void cmd_help_print(FILE *fp, const cmd_help_t *h)
{
	fprintf(fp, "Usage: %s %s\n", h->prog, h->synopsis);
	if (h->blank_after_synopsis)
		fputc('\n', fp);
	for (const cmd_opt_help_t *o = h->opts; o->text; o++) {
		if (!o->lopt) {
			if (o != h->opts)
				fputc('\n', fp);
			fprintf(fp, "%s\n", o->text);
			continue;
		}
		int n;
		if (o->sopt == CMD_HELP_NOCOL)
			n = fprintf(fp, "  --%s", o->lopt);
		else if (o->sopt)
			n = fprintf(fp, "  -%c, --%s", o->sopt, o->lopt);
		else
			n = fprintf(fp, "      --%s", o->lopt);
		if (o->text[0] == '\n') {
			fprintf(fp, "\n%*s", h->col, "");
			put_lines(fp, o->text + 1, h->col);
			continue;
		}
		fprintf(fp, "%*s", n < h->col ? h->col - n : 1, "");
		put_lines(fp, o->text, h->col);
	}
}

void cmd_usage_print(FILE *fp, const cmd_help_t *h)
{
	fprintf(fp, "Usage: %s ", h->prog);
	put_lines(fp, h->usage, (int)strlen(h->prog) + 8);
}
