/*
 * jobopts: the job options shared by sbatch and srun, parsed the way
 * Slurm 22.05's clients parse them, into a job_desc_t.
 *
 * Three sources, lowest precedence first (as Slurm): #SBATCH directives in
 * the script, input environment variables (SBATCH_* for sbatch, SLURM_*
 * for srun), the command line. Callers apply them in that order on one
 * jobopts_t; each later source overwrites what it sets.
 *
 * Errors are printed on stderr with Slurm's wording ("sbatch: error:
 * Invalid --time specification") and the parse functions return the exit
 * status Slurm uses for them (1 or 255); 0 means go on.
 */
#ifndef SLUICE_JOBOPTS_H
#define SLUICE_JOBOPTS_H

#include <stdint.h>
#include <stdio.h>

#include "proto.h"

enum jobopts_cmd { JOBOPTS_SBATCH = 1, JOBOPTS_SRUN = 2 };

typedef struct jobopts {
	enum jobopts_cmd cmd;
	const char *prog;        /* "sbatch" / "srun" (error prefix) */
	job_desc_t desc;         /* what goes to the controller */

	/* command-only settings */
	char *export_spec;       /* --export as typed; NULL = ALL */
	char *wrap;              /* sbatch --wrap */
	char *array;             /* --array (rejected: not supported yet) */
	char *jobid;             /* srun --jobid */
	char *mpi;               /* srun --mpi */
	char *propagate;         /* --propagate list ("ALL" without a value);
				  * NULL: not given (the node's config decides) */
	int parsable, wait, verbose, quiet, label, unbuffered, pty;
	int help, usage, version;
	int ntasks_set, nodes_set;   /* given by the user (any source) */
	int gres_set;                /* --gres or SLURM_GRES given */
	int cli_ntasks, cli_nodes;   /* given on the command line */

	int argi;                /* after jobopts_parse_argv: first operand */
	strv_t shown;            /* "name\tvalue" of each option set, any
				  * source, for the -v listing */

	/* srun only (parsed by srun_opt_apply, src/cmd/srun_opts.c) */
	struct srun_opts {
		int kill_bad_exit;   /* -K: -1 unset (KillOnBadExit), 0, 1 */
		int wait_secs;       /* -W N: -1 unset */
		int multi_prog, overlap, exact, quit_on_interrupt;
		char *cpu_bind, *mem_bind, *task_prolog, *task_epilog;
		char *gpu_bind;      /* --gpu-bind as typed */
		char *signal;
		int sbcast;          /* the step is sbcast's copy (sbcast.c) */
	} sr;
} jobopts_t;

/* Option ids of srun's own options (above jobopts.c's). */
enum srun_opt_id {
	SRUN_ID_MULTI_PROG = 512, SRUN_ID_OVERLAP, SRUN_ID_EXACT, SRUN_ID_MEM_BIND,
	SRUN_ID_TASK_PROLOG, SRUN_ID_TASK_EPILOG, SRUN_ID_QUIT_ON_INTERRUPT,
	SRUN_ID_SRUN_EXPORT, SRUN_ID_CPU_BIND, SRUN_ID_GPU_BIND,
};

/* srun_opts.c: apply one of srun's own options (-K, -W, --multi-prog,
 * the ids above, --cpu-bind, --signal); 0 or an exit status. */
int srun_opt_apply(jobopts_t *o, int id, const char *arg);
void srun_opts_release(jobopts_t *o);

void jobopts_init(jobopts_t *o, enum jobopts_cmd cmd);
void jobopts_release(jobopts_t *o);

/* Parse argv (argv[0] is ignored; getopt messages use o->prog). Stops at
 * the first operand (the script or the command); o->argi is its index.
 * from_script: the argv came from #SBATCH lines (operands are an error).
 * Returns 0, or the exit status after printing the error. */
int jobopts_parse_argv(jobopts_t *o, int argc, char **argv, int from_script);

/* Apply the #SBATCH directives of script (up to the first line that is
 * neither blank nor a comment). Returns 0 or an exit status. */
int jobopts_parse_script(jobopts_t *o, const char *script);

/* Split the directives of script into an argv (argv[0] = "sbatch"); for
 * tests and jobopts_parse_script. Caller frees with strv_free. */
void jobopts_script_args(const char *script, strv_t *out);

/* Apply input environment variables from env (NULL-terminated "K=V").
 * Returns 0 or an exit status. */
int jobopts_parse_env(jobopts_t *o, char *const *env);

/* srun: SLURM_STEP_GRES (v) as --gres for a step given none by --gres
 * or SLURM_GRES (man srun; Slurm 22.05 uses it only then). 0 or an exit
 * status. */
int jobopts_step_gres(jobopts_t *o, const char *v);

/* Checks across options, once every source is applied (Slurm's
 * messages): --begin after --deadline. 0 or the exit status. */
int jobopts_check(jobopts_t *o);

/* jobtest.c: --test-only: send o->desc flagged JOB_F_TEST_ONLY and print
 * the controller's answer as Slurm does ("PROG: Job N to start at ...",
 * or "allocation failure: ..."). The exit status. */
int jobopts_test_only(jobopts_t *o);

/* Build desc.env from env (the submitting environment) following
 * o->export_spec. Returns 0, or 1 after printing an error. */
int jobopts_build_env(jobopts_t *o, char *const *env);

/* -v: the options set (from any source) as Slurm lists them on stderr,
 * sorted by name between "PROG: defined options" and "PROG: end of
 * defined options". Prints nothing unless o->verbose and not o->quiet. */
void jobopts_print_defined(const jobopts_t *o, FILE *fp);

/* The script sbatch --wrap submits (malloc'd). */
char *jobopts_wrap_script(const char *cmd);

/* Check a script as sbatch does (empty, only whitespace, no #!, NUL,
 * DOS line breaks); prints Slurm's error lines. 0 ok, else 1. */
int jobopts_check_script(const char *buf, size_t len);

/* Parse a node count "N", "MIN-MAX" or "-MAX" (minimum 1), each with an
 * optional k/m suffix. 0, -2 for "MIN-" (no maximum), -1 otherwise. */
int jobopts_node_count(const char *s, uint32_t *min, uint32_t *max);

/* Signal name or number ("USR1", "SIGUSR1", "10") to a number; -1 if
 * unknown. */
int jobopts_signal_parse(const char *s);

/* srun --mpi=, SLURM_MPI_TYPE, MpiDefault: the type (mpi_type.h) if this
 * build serves it; else -1 after prog's error line (an unknown type as
 * Slurm says it, pmix as not served yet). */
int jobopts_mpi_check(const char *prog, const char *name);

#endif
