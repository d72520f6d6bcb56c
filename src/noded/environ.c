/*
 * environ: environments for jobs and step tasks (a counted "NAME=value"
 * array with replace-or-append semantics, as the controller already put
 * the SLURM_* set in), and the stdio file name patterns of sbatch/srun
 * (%j, %x, %N, ...) expanded as Slurm's stepd does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "noded.h"
#include "rlimits.h"
#include "xalloc.h"

static long env_index(const strv_t *env, const char *name)
{
	size_t n = strlen(name);
	for (uint32_t i = 0; i < env->n; i++)
		if (env->v[i] && !strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return i;
	return -1;
}

const char *env_get(const strv_t *env, const char *name)
{
	long i = env_index(env, name);
	return i < 0 ? NULL : env->v[i] + strlen(name) + 1;
}

void env_set(strv_t *env, const char *name, const char *value)
{
	char *kv = xasprintf("%s=%s", name, value ? value : "");
	long i = env_index(env, name);
	if (i >= 0) {
		free(env->v[i]);
		env->v[i] = kv;
		return;
	}
	strv_push(env, kv);
	free(kv);
}

void env_setf(strv_t *env, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *v = xvasprintf(fmt, ap);
	va_end(ap);
	env_set(env, name, v);
	free(v);
}

void env_set_default(strv_t *env, const char *name, const char *value)
{
	if (env_index(env, name) < 0)
		env_set(env, name, value);
}

char **env_to_envp(const strv_t *env)
{
	char **envp = xcalloc(env->n + 1, sizeof(*envp));
	uint32_t k = 0;
	for (uint32_t i = 0; i < env->n; i++)
		if (env->v[i])
			envp[k++] = env->v[i];
	envp[k] = NULL;
	return envp;
}

void pattern_ctx_array_from_env(pattern_ctx_t *ctx, const strv_t *env)
{
	const char *aj = env_get(env, "SLURM_ARRAY_JOB_ID");
	const char *at = env_get(env, "SLURM_ARRAY_TASK_ID");
	if (aj && at && *aj && *at) {
		ctx->array_job_id = (uint32_t)strtoul(aj, NULL, 10);
		ctx->array_task_id = (uint32_t)strtoul(at, NULL, 10);
	}
}

static void add_num(strbuf_t *sb, int width, unsigned long v)
{
	strbuf_addf(sb, "%0*lu", width, v);
}

char *pattern_expand(const char *pat, const pattern_ctx_t *ctx)
{
	strbuf_t sb = STRBUF_INIT;
	if (!pat)
		return strbuf_detach(&sb);
	/* man sbatch: a backslash anywhere turns off all replacement. */
	if (strchr(pat, '\\')) {
		for (const char *p = pat; *p; p++)
			if (*p != '\\')
				strbuf_addch(&sb, *p);
		return strbuf_detach(&sb);
	}
	for (const char *p = pat; *p; p++) {
		if (*p != '%') {
			strbuf_addch(&sb, *p);
			continue;
		}
		const char *start = p++;
		int width = 0;
		while (*p >= '0' && *p <= '9') {
			if (width < 10)     /* Slurm caps the pad width at 10 */
				width = width * 10 + (*p - '0');
			p++;
		}
		if (width > 10)
			width = 10;
		switch (*p) {
		case '%':
			strbuf_addch(&sb, '%');
			break;
		case 'j':
			add_num(&sb, width, ctx->job_id);
			break;
		case 'J':
			add_num(&sb, width, ctx->job_id);
			if (ctx->step_id != NODED_BATCH_STEP)
				strbuf_addf(&sb, ".%u", ctx->step_id);
			break;
		case 's':
			add_num(&sb, width, ctx->step_id);
			break;
		case 'A':
			add_num(&sb, width, ctx->array_job_id ? ctx->array_job_id : ctx->job_id);
			break;
		case 'a':
			add_num(&sb, width, ctx->array_job_id ? ctx->array_task_id : NO_VAL32);
			break;
		case 'x':
			strbuf_addstr(&sb, ctx->job_name ? ctx->job_name : "");
			break;
		case 'u':
			strbuf_addstr(&sb, ctx->user ? ctx->user : "");
			break;
		case 'N': {
			/* the short host name: up to the first '.' */
			const char *n = ctx->node ? ctx->node : "";
			strbuf_add(&sb, n, strcspn(n, "."));
			break;
		}
		case 'n':
			add_num(&sb, width, ctx->node_id);
			break;
		case 't':
			add_num(&sb, width, ctx->task_id);
			break;
		case '\0':
			strbuf_addstr(&sb, start);
			return strbuf_detach(&sb);
		default:
			strbuf_add(&sb, start, (size_t)(p - start + 1));
			break;
		}
	}
	return strbuf_detach(&sb);
}

char *pattern_path(const char *pat, const char *dflt, const char *work_dir,
		   const pattern_ctx_t *ctx)
{
	char *name = pattern_expand(pat && *pat ? pat : dflt, ctx);
	if (name[0] == '/' || !work_dir || !*work_dir)
		return name;
	size_t wl = strlen(work_dir);
	char *full = xasprintf("%s%s%s", work_dir,
			       work_dir[wl - 1] == '/' ? "" : "/", name);
	free(name);
	return full;
}

mode_t env_umask(const strv_t *env)
{
	const char *v = env_get(env, "SLURM_UMASK");
	if (!v || !*v || strlen(v) > 4 || strspn(v, "01234567") != strlen(v))
		return 022;
	return (mode_t)(strtoul(v, NULL, 8) & 0777);
}

int env_apply_rlimits(strv_t *env, const conf_t *conf)
{
	unsigned allow = (1u << rlim_count) - 1, except = 0;
	const char *v = conf ? conf_get(conf, "PropagateResourceLimits") : NULL;
	if (v && rlim_list_parse(v, &allow, NULL) < 0)
		allow = (1u << rlim_count) - 1;
	v = conf ? conf_get(conf, "PropagateResourceLimitsExcept") : NULL;
	if (v && rlim_list_parse(v, &except, NULL) < 0)
		except = 0;
	allow &= ~except;

	int set = 0;
	uint32_t w = 0;
	for (uint32_t i = 0; i < env->n; i++) {
		char *e = env->v[i];
		if (strncmp(e, "SLURM_RLIMIT_", 13)) {
			env->v[w++] = e;
			continue;
		}
		const char *name = e + 13, *eq = strchr(name, '=');
		for (size_t k = 0; eq && k < rlim_count; k++) {
			if (strlen(rlim_names[k].name) != (size_t)(eq - name) ||
			    strncmp(name, rlim_names[k].name, (size_t)(eq - name)))
				continue;
			const char *val = eq + 1;
			int user = *val == 'U';
			if (user)
				val++;
			char *end;
			unsigned long long x = strtoull(val, &end, 10);
			struct rlimit rl;
			if (!*val || *end || (!user && !(allow & (1u << k))) ||
			    getrlimit(rlim_names[k].resource, &rl) < 0)
				break;
			rl.rlim_cur = (rlim_t)x;
			if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
				rl.rlim_cur = rl.rlim_max;
			if (setrlimit(rlim_names[k].resource, &rl) == 0)
				set++;
			break;
		}
		free(e);
	}
	env->n = w;
	return set;
}
