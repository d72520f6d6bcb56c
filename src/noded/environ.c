/*
 * environ: environments for jobs and step tasks (a counted "NAME=value"
 * array with replace-or-append semantics, as the controller already put
 * the SLURM_* set in). The stdio file name patterns are src/lib/pattern.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* Milliseconds on the monotonic clock. */
static int64_t env_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#define ENV_MARKER "__SLUICE_USER_ENV__"

int env_load_user(strv_t *env, uint32_t flags, char **err)
{
	struct passwd *pw = getpwuid(getuid());
	*err = NULL;
	if (!pw) {
		*err = xasprintf("no passwd entry for uid %u", (unsigned)getuid());
		return -1;
	}
	const char *shell = pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh";
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* what su - gives a login shell to start from */
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(p[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		if (chdir(pw->pw_dir) < 0)
			(void)!chdir("/");
		const char *base = strrchr(shell, '/');
		base = base ? base + 1 : shell;
		char *arg0 = (flags & GUE_SHORT) ? xstrdup(base) : xasprintf("-%s", base);
		char *home = xasprintf("HOME=%s", pw->pw_dir), *usr = xasprintf("USER=%s", pw->pw_name);
		char *logn = xasprintf("LOGNAME=%s", pw->pw_name), *sh = xasprintf("SHELL=%s", shell);
		char *envp[] = { home, usr, logn, sh,
				 (char *)"PATH=/usr/local/bin:/usr/bin:/bin", NULL };
		/* a marker: what the profile scripts print comes before it */
		char *argv[] = { arg0, (char *)"-c",
				 (char *)"echo " ENV_MARKER "; exec env -0", NULL };
		execve(shell, argv, envp);
		_exit(127);
	}
	close(p[1]);
	strbuf_t out = STRBUF_INIT;
	int64_t end = env_now_ms() + (int64_t)GUE_TIMEOUT(flags) * 1000;
	int timed_out = 0;
	for (;;) {
		int64_t left = end - env_now_ms();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		struct pollfd pfd = { p[0], POLLIN, 0 };
		int n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			timed_out = n == 0;
			break;
		}
		char buf[4096];
		ssize_t r = read(p[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		strbuf_add(&out, buf, (size_t)r);
	}
	close(p[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (timed_out || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		*err = timed_out ? xasprintf("%s did not print the environment within %u s", shell,
					     GUE_TIMEOUT(flags)) :
			xasprintf("%s could not print the environment (status %d)", shell, st);
		strbuf_release(&out);
		return -1;
	}
	/* the user's variables first, then the job's over them */
	strv_t merged = { NULL, 0 };
	strbuf_addch(&out, '\0');
	const char *mk = memmem(out.buf, out.len, ENV_MARKER "\n", sizeof(ENV_MARKER));
	size_t start = mk ? (size_t)(mk - out.buf) + sizeof(ENV_MARKER) : out.len;
	for (size_t i = start; i < out.len; i += strlen(out.buf + i) + 1) {
		const char *e = out.buf + i;
		if (!strchr(e, '=') || !strncmp(e, "PWD=", 4) || !strncmp(e, "_=", 2) ||
		    !strncmp(e, "OLDPWD=", 7))
			continue;
		strv_push(&merged, e);
	}
	strbuf_release(&out);
	for (uint32_t i = 0; i < env->n; i++) {
		const char *eq = strchr(env->v[i], '=');
		if (!eq)
			continue;
		char *name = xstrndup(env->v[i], (size_t)(eq - env->v[i]));
		env_set(&merged, name, eq + 1);
		free(name);
	}
	strv_free(env);
	*env = merged;
	return 0;
}
