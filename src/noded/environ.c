/*
 * environ: environments for jobs and step tasks (a counted "NAME=value"
 * array with replace-or-append semantics, as the controller already put
 * the SLURM_* set in). The stdio file name patterns are src/lib/pattern.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noded.h"
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

mode_t env_umask(const strv_t *env)
{
	const char *v = env_get(env, "SLURM_UMASK");
	if (!v || !*v || strlen(v) > 4 || strspn(v, "01234567") != strlen(v))
		return 022;
	return (mode_t)(strtoul(v, NULL, 8) & 0777);
}
