/*
 * pmi2_wire: the two wire protocols a process manager serves on PMI_FD,
 * as MPICH's "simple" PMI clients speak them, plus what the node side of
 * a step and srun exchange for a fence.
 *
 * PMI-1: one command per line, "cmd=NAME key=value key=value\n" (values
 * hold no blanks); spawn is the multi-line "mcmd=spawn\n...endcmd\n".
 * PMI-2: a client opens with the PMI-1 line "cmd=init pmi_version=2
 * pmi_subversion=0\n"; from the answer on, each command is a frame: six
 * characters of decimal length (blank padded), then that many bytes of
 * "cmd=NAME;key=value;...;", a ';' inside a value doubled.
 *
 * Nothing here trusts the client: a command longer than PMI_CMD_MAX, a
 * bad length or a malformed pair is an error, not a bigger buffer.
 */
#ifndef SLUICE_PMI2_WIRE_H
#define SLUICE_PMI2_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "strbuf.h"

#define PMI_CMD_MAX (64u << 10)   /* longest command taken, either protocol */

typedef struct pmi_cmd {
	char *buf;             /* owns the strings below */
	size_t n;
	char **key, **val;
} pmi_cmd_t;

/* One command from the len bytes at in; v2: the connection is past its
 * PMI-2 init (frames), else PMI-1 lines. Returns the bytes it took (> 0)
 * with *cmd filled (pmi_cmd_free it), 0 when the command is not whole
 * yet, -1 when the bytes are no command (the connection is dropped). */
ssize_t pmi_wire_take(const char *in, size_t len, int v2, pmi_cmd_t *cmd);
/* The value of key (the first of that name), or NULL. */
const char *pmi_cmd_get(const pmi_cmd_t *c, const char *key);
/* The command's name: "cmd", or "mcmd" (PMI-1 spawn); "" if none. */
const char *pmi_cmd_name(const pmi_cmd_t *c);
void pmi_cmd_free(pmi_cmd_t *c);

/* A PMI-2 reply: begin (returns where it starts), the pairs (';' in a
 * value doubled), end (writes the length in front). */
size_t pmi_v2_begin(strbuf_t *out);
void pmi_v2_add(strbuf_t *out, const char *key, const char *val);
void pmi_v2_end(strbuf_t *out, size_t start);

/* A node's puts between two fences, as srun gathers and hands back all
 * of them: (u32 length, key, u32 length, value)*, little endian. */
void pmi_kvs_pack(strbuf_t *out, const char *key, const char *val);
/* Calls fn for each pair (NUL-terminated copies); -1 on bytes that are
 * not such a list (nothing after them is taken), else 0. */
int pmi_kvs_unpack(const void *data, size_t len,
		   void (*fn)(void *arg, const char *key, const char *val), void *arg);

/* "2,1(x3)" (SLURM_STEP_TASKS_PER_NODE) into exactly n counts: 0, or -1. */
int pmi_counts_parse(const char *s, uint32_t *counts, uint32_t n);
/* PMI_process_mapping for tasks laid out in blocks (node i has counts[i]
 * consecutive ranks): "(vector,(0,2,4),(2,1,3))" = nodes 0-1 with 4
 * tasks each, then node 2 with 3. malloc'd. */
char *pmi_process_mapping(const uint32_t *counts, uint32_t n);

#endif
