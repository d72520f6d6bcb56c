/*
 * srun_opts: srun's own options, those sbatch does not share (-K, -W,
 * --multi-prog, --overlap, --exact, --cpu-bind, --gpu-bind, --mem-bind,
 * --task-prolog/--task-epilog, --quit-on-interrupt, SRUN_EXPORT_ENV). jobopts.c hands them here (srun_opt_apply) so that the
 * shared parser keeps only the shared options. Error texts and exit
 * statuses are Slurm 22.05 srun's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/jobopts.h"
#include "xalloc.h"

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

/* Slurm's parse_int for an option that takes 0 too. */
static int parse_nonneg(const char *name, const char *v, int *out)
{
	char *end = NULL;
	long r = v ? strtol(v, &end, 10) : -1;
	if (!v || !*v || *end || r < 0 || r >= 0x7fffffff) {
		fprintf(stderr, "srun: error: Invalid numeric value \"%s\" for %s.\n",
			v ? v : "", name);
		return 1;
	}
	*out = (int)r;
	return 0;
}

/* --cpu-bind=[{quiet|verbose},]TYPE: the types of man srun. */
static int cpu_bind_ok(const char *v)
{
	static const char *const words[] = {
		"q", "quiet", "v", "verbose", "no", "none", "threads", "cores", "sockets",
		"ldoms", "rank", "rank_ldom", "help", NULL,
	};
	static const char *const lists[] = {
		"map_cpu:", "mask_cpu:", "rank_ldom", "map_ldom:", "mask_ldom:", NULL,
	};
	char *copy = xstrdup(v), *save = NULL;
	int ok = 1;
	for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
		int hit = 0;
		for (int i = 0; words[i] && !hit; i++)
			hit = !strcasecmp(t, words[i]);
		for (int i = 0; lists[i] && !hit; i++)
			if (!strncasecmp(t, lists[i], strlen(lists[i]))) {
				hit = 1;
				/* the list's items are the rest of the string */
				save = NULL;
				t = NULL;
			}
		if (!hit)
			ok = 0;
		if (!t)
			break;
	}
	free(copy);
	return ok;
}

/* --gpu-bind=[verbose,]TYPE: closest, none, single:N, per_task:N,
 * map_gpu:LIST, mask_gpu:LIST (man srun). */
static int gpu_bind_ok(const char *v)
{
	if (!strncasecmp(v, "verbose,", 8))
		v += 8;
	if (!strcasecmp(v, "closest") || !strcasecmp(v, "none"))
		return 1;
	const char *num = !strncasecmp(v, "single:", 7) ? v + 7
			: !strncasecmp(v, "per_task:", 9) ? v + 9 : NULL;
	if (num) {
		char *end = NULL;
		long n = strtol(num, &end, 10);
		return *num && !*end && n > 0;
	}
	const char *list = !strncasecmp(v, "map_gpu:", 8) ? v + 8
			 : !strncasecmp(v, "mask_gpu:", 9) ? v + 9 : NULL;
	return list && *list && strspn(list, "0123456789abcdefABCDEFxX,*") == strlen(list);
}

int srun_opt_apply(jobopts_t *o, int id, const char *arg)
{
	struct srun_opts *s = &o->sr;
	switch (id) {
	case 'K':
		if (!arg)
			s->kill_bad_exit = 1;
		else if (parse_nonneg("--kill-on-bad-exit", arg, &s->kill_bad_exit))
			return 1;
		else
			s->kill_bad_exit = s->kill_bad_exit != 0;
		break;
	case 'W':
		if (parse_nonneg("--wait", arg, &s->wait_secs))
			return 1;
		break;
	case SRUN_ID_MULTI_PROG: s->multi_prog = 1; break;
	case SRUN_ID_OVERLAP: s->overlap = 1; break;
	case SRUN_ID_EXACT: s->exact = 1; break;
	case SRUN_ID_QUIT_ON_INTERRUPT: s->quit_on_interrupt = 1; break;
	case SRUN_ID_CPU_BIND:
		if (!cpu_bind_ok(arg)) {
			fprintf(stderr, "srun: error: unrecognized --cpu-bind argument \"%s\"\n"
				"srun: fatal: Failed to parse --cpu-bind= values.\n", arg);
			return 1;
		}
		set_str(&s->cpu_bind, arg);
		break;
	case SRUN_ID_GPU_BIND:
		if (!gpu_bind_ok(arg)) {
			fprintf(stderr, "srun: error: Invalid --gpu-bind argument: %s\n", arg);
			return 1;
		}
		set_str(&s->gpu_bind, arg);
		break;
	case SRUN_ID_MEM_BIND: set_str(&s->mem_bind, arg); break;
	case SRUN_ID_TASK_PROLOG: set_str(&s->task_prolog, arg); break;
	case SRUN_ID_TASK_EPILOG: set_str(&s->task_epilog, arg); break;
	case SRUN_ID_SRUN_EXPORT:
		set_str(&o->export_spec, arg);
		break;
	default:
		return 255;
	}
	return 0;
}

void srun_opts_release(jobopts_t *o)
{
	xfree(o->sr.cpu_bind);
	xfree(o->sr.mem_bind);
	xfree(o->sr.gpu_bind);
	xfree(o->sr.task_prolog);
	xfree(o->sr.task_epilog);
	xfree(o->sr.signal);
}

