/* Unit tests for the node daemon's environment building and stdio file
 * name pattern expansion (src/noded/environ.c). */
#include "tap.h"

#include <stdlib.h>

#include "noded/noded.h"
#include "xalloc.h"

static void check_pattern(const char *pat, const char *want, const pattern_ctx_t *ctx)
{
	char *got = pattern_expand(pat, ctx);
	is_str(got, want, "expand '%s'", pat);
	free(got);
}

int main(void)
{
	pattern_ctx_t b = {
		.job_id = 42, .step_id = NODED_BATCH_STEP, .array_task_id = NO_VAL32,
		.job_name = "train", .user = "alice", .node = "comp001.cluster",
	};
	check_pattern("slurm-%j.out", "slurm-42.out", &b);
	check_pattern("%x-%J.log", "train-42.log", &b);
	check_pattern("%u/%N/%n/%t", "alice/comp001/0/0", &b);
	check_pattern("%A_%a", "42_4294967294", &b);
	check_pattern("100%%-%5j", "100%-00042", &b);
	check_pattern("odd%q%", "odd%q%", &b);
	check_pattern("lit\\%j", "lit%j", &b);
	check_pattern("%s", "4294967291", &b);

	pattern_ctx_t s = b;
	s.step_id = 3;
	s.task_id = 7;
	s.node_id = 2;
	check_pattern("%J.%t.%n", "42.3.7.2", &s);

	pattern_ctx_t a = b;
	strv_t env = { NULL, 0 };
	strv_push(&env, "SLURM_ARRAY_JOB_ID=40");
	strv_push(&env, "SLURM_ARRAY_TASK_ID=2");
	pattern_ctx_array_from_env(&a, &env);
	check_pattern("%A_%a-%j", "40_2-42", &a);
	strv_free(&env);

	char *p = pattern_path(NULL, "slurm-%j.out", "/home/alice/run", &b);
	is_str(p, "/home/alice/run/slurm-42.out", "default output under the work dir");
	free(p);
	p = pattern_path("out/%x.txt", NULL, "/w/", &b);
	is_str(p, "/w/out/train.txt", "relative path joined to work dir");
	free(p);
	p = pattern_path("/abs/%j", NULL, "/w", &b);
	is_str(p, "/abs/42", "absolute path kept");
	free(p);

	strv_t e = { NULL, 0 };
	strv_push(&e, "PATH=/bin");
	strv_push(&e, "SLURM_JOB_ID=42");
	env_set(&e, "SLURM_JOB_ID", "43");
	is_str(env_get(&e, "SLURM_JOB_ID"), "43", "env_set replaces");
	is_int(e.n, 2, "no duplicate entry");
	env_setf(&e, "SLURM_TASK_PID", "%d", 1234);
	is_str(env_get(&e, "SLURM_TASK_PID"), "1234", "env_setf appends");
	env_set_default(&e, "PATH", "/usr/bin");
	is_str(env_get(&e, "PATH"), "/bin", "env_set_default keeps existing");
	env_set_default(&e, "HOME", "/root");
	is_str(env_get(&e, "HOME"), "/root", "env_set_default adds missing");
	ok(env_get(&e, "PAT") == NULL, "prefix is not a match");
	char **envp = env_to_envp(&e);
	int n = 0;
	while (envp[n])
		n++;
	is_int(n, 4, "envp has every entry");
	is_str(envp[0], "PATH=/bin", "envp order kept");
	free(envp);

	/* SLURM_UMASK: the submitter's umask; 0022 without a valid one */
	is_int((int)env_umask(&e), 022, "no SLURM_UMASK: 0022");
	env_set(&e, "SLURM_UMASK", "0077");
	is_int((int)env_umask(&e), 077, "SLURM_UMASK=0077");
	env_set(&e, "SLURM_UMASK", "027");
	is_int((int)env_umask(&e), 027, "three digits");
	env_set(&e, "SLURM_UMASK", "0089");
	is_int((int)env_umask(&e), 022, "not octal: 0022");
	env_set(&e, "SLURM_UMASK", "");
	is_int((int)env_umask(&e), 022, "empty: 0022");
	env_set(&e, "SLURM_UMASK", "07777");
	is_int((int)env_umask(&e), 022, "too long: 0022");
	strv_free(&e);
	return done_testing();
}
