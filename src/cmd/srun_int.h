/*
 * srun_int.h: what srun.c (options, allocation, main), srun_step.c (one
 * step: create, launch, relay, end) and srun_io.c (where the tasks'
 * output goes, where their input comes from) share. Private to srun.
 */
#ifndef SLUICE_SRUN_INT_H
#define SLUICE_SRUN_INT_H

#include <pthread.h>
#include <stdint.h>

#include "cmd/jobopts.h"
#include "net.h"
#include "proto.h"
#include "strbuf.h"

/* Signals srun caught, written one byte each (srun.c). */
extern int srun_sig_pipe[2];

/* Sends on node connections come from the main thread (signals) and the
 * stdin thread: one lock for all of them. */
extern pthread_mutex_t srun_send_lock;
int srun_send(rpc_t *r, enum msg_type type, const void *msg);

/* The step as srun sees it once created. */
typedef struct srun_layout {
	uint32_t job_id, step_id;
	uint32_t ntasks, nnodes;
	char **node_names;          /* per node */
	uint32_t *first, *count;    /* per node: first rank, tasks */
	uint32_t *task_node;        /* per task: its node */
	const char *job_name, *user, *work_dir;
	uint32_t array_job_id, array_task_id;
} srun_layout_t;

/* ---- srun_step.c ---- */

/* Run one step of job job_id: cmd (ncmd words; with --multi-prog the
 * config file). standalone: srun made the allocation, ji its record.
 * Returns srun's exit status; *worst_status the raw wait status it came
 * from (for the allocation's end). */
int srun_run_step(jobopts_t *o, uint32_t job_id, char **cmd, int ncmd, int standalone,
		  const job_info_t *ji, uint32_t *worst_status);
/* "2,1(x3)" of counts (Slurm's SLURM_TASKS_PER_NODE form). malloc'd. */
char *srun_counts_str(const uint32_t *v, uint32_t n);

/* ---- srun.c ---- */

/* Catch SIGINT/TERM/HUP/QUIT/USR1/USR2 into srun_sig_pipe. */
void srun_setup_signals(void);
/* Catch one more signal into srun_sig_pipe (--pty: SIGWINCH). */
void srun_catch_signal(int sig);
/* Submit o->desc as an interactive allocation and wait for it to start,
 * with Slurm's messages (salloc: also "Pending job allocation N"); a
 * signal while waiting cancels it. 0, or an exit status after the error. */
/* A job description's defaults from the caller: the work dir (absolute),
 * the name (the command's base name), the submit host and session. */
void srun_desc_defaults(job_desc_t *d, const char *cmd0);
int srun_allocate(jobopts_t *o, uint32_t *job_id_out, int salloc);
void srun_cancel_job(uint32_t job_id);

void srun_env_set(strv_t *env, const char *key, const char *val);
void srun_env_seti(strv_t *env, const char *key, uint32_t v);
/* The job's variables a standalone srun's tasks get (they are the job's
 * only step): name, account, partition, QOS, submit dir and host, ... */
void srun_alloc_env(strv_t *env, const jobopts_t *o, const job_info_t *ji, const char *dir);

/* ---- srun_pmi.c ---- */

/* --mpi=pmi2: srun is where the nodes' fences meet (noded/pmi2.h). Each
 * node's share of a fence in (node index, its STEP_IO_PMI data); once
 * every node's is, 1 with *all the whole (valid until the next call),
 * for every node; else 0. -1 for a node that sent twice. */
typedef struct srun_pmi srun_pmi_t;
srun_pmi_t *srun_pmi_new(uint32_t nnodes);
int srun_pmi_add(srun_pmi_t *p, uint32_t node, const void *data, size_t len,
		 const strbuf_t **all);
void srun_pmi_free(srun_pmi_t *p);

/* ---- srun_io.c ---- */

typedef struct srun_io srun_io_t;

/* Open the output side for the step: -o/-e as Slurm's srun reads them
 * (none, a task number, a file name pattern with %j %J %s %t %n %N %u %x
 * %A %a, one file per distinct name, truncated, or appended with
 * --open-mode=append), -l labels. NULL after printing an error. */
srun_io_t *srun_io_open(const jobopts_t *o, const srun_layout_t *lay);
/* One MSG_STEP_IO frame from a node, written with one write(2); with -l
 * each line labelled ("%*u: ", the width of the largest task id) and a
 * frame that ends inside a line ended with a newline, as Slurm's srun. */
void srun_io_relay(srun_io_t *io, const msg_step_io_t *m);
/* Close the files. */
void srun_io_close(srun_io_t *io);

/* Stdin: what the launch says (STEP_F_STDIN, stdin_task), then a thread
 * forwarding it once the connections exist. */
typedef struct srun_stdin srun_stdin_t;
/* What the launch says of stdin, from -i/--pty alone (it is in the
 * digest srun has signed before the step exists): *flags STEP_F_STDIN or
 * 0 (tasks read /dev/null), *stdin_task the one rank that reads it or
 * NO_VAL32 for every task. */
void srun_stdin_mode(const jobopts_t *o, uint32_t *flags, uint32_t *stdin_task);
/* The plan for that, once the layout is known. NULL: nothing to forward
 * (-i none, or a task the step does not have: an error says so, and no
 * task reads srun's stdin). Prints an error and returns NULL with
 * *failed for a file that does not open. */
srun_stdin_t *srun_stdin_plan(const jobopts_t *o, const srun_layout_t *lay, int *failed);
/* Start forwarding to the node connections (conns[i] NULL: not
 * launched). */
void srun_stdin_start(srun_stdin_t *s, rpc_t **conns);
/* Stop the thread (before the connections close) and free s. */
void srun_stdin_stop(srun_stdin_t *s);

/* ---- srun_pty.c ---- */

/* --pty: srun's stdout is a terminal: 1 and its size. Otherwise Slurm's
 * two error lines and 0 (the step runs without a pseudo terminal). */
int srun_pty_check(uint32_t *rows, uint32_t *cols);
/* srun's window size now (stdout). 0, or -1 when it is no terminal. */
int srun_pty_winsize(uint32_t *rows, uint32_t *cols);
/* srun's terminal (stdin) in raw mode (cfmakeraw, as Slurm); restored
 * by srun_pty_end, at exit, and on the fatal signals srun does not catch.
 * Nothing when stdin is no terminal. */
void srun_pty_raw(void);
/* Put srun's terminal back as srun_pty_raw found it (again: nothing). */
void srun_pty_end(void);

#endif
