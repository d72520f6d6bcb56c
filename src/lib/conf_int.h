/*
 * conf_int: what conf.c shares with conf_extra.c (gres.conf, topology.conf,
 * cgroup.conf) and conf_show.c; not for use outside the conf module.
 *
 * A conf_t is the first member of struct conf_priv, so the public pointer
 * converts back to the private one; the hash tables behind
 * conf_node_find/conf_part_find live here without widening conf.h.
 */
#ifndef SLUICE_CONF_INT_H
#define SLUICE_CONF_INT_H

#include "conf.h"
#include "conf_keys.h"
#include "strbuf.h"

/* String -> index, open addressing; keys are borrowed. */
struct strmap {
	const char **keys;
	size_t *vals;
	size_t cap, n;
};
long strmap_get(const struct strmap *m, const char *key);
long strmap_put(struct strmap *m, const char *key, size_t val);
void strmap_release(struct strmap *m);

struct conf_pairs { char **key, **val; size_t n, alloc; };

struct conf_rec { const char *file; int line; char **vals; };
struct conf_recs { struct conf_rec *v; size_t n, alloc; };
struct conf_idxv { size_t *v; size_t n; };

struct conf_priv {
	conf_t pub;                 /* first: (conf_t *) <-> (struct conf_priv *) */
	enum conf_mode mode;
	struct strmap node_map, part_map;
	char **files; size_t nfiles; /* interned paths (conf_node.file etc.) */
	size_t nodes_alloc, kv_alloc;
	/* Only while reading: */
	char **node_def, **part_def; /* NodeName=DEFAULT / PartitionName=DEFAULT values */
	struct conf_recs parts, nodesets, downs;
	const char **nodeset_names;
	struct conf_idxv *nodeset_idx;
	struct conf_pairs kp;
};

void conf_err(conf_t *conf, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void conf_note_unsupported(conf_t *conf, const char *key);
const char *conf_intern_path(struct conf_priv *p, const char *path);
int conf_read_file(const char *path, strbuf_t *sb);
int conf_next_line(const char **pos, const char *end, int *lineno, int *start_line, strbuf_t *out);
int conf_split_pairs(const char *s, struct conf_pairs *kp, char **bad);
void conf_pairs_release(struct conf_pairs *kp);
void conf_pairs_free(struct conf_pairs *kp);
const struct conf_keydef *conf_check_key(conf_t *conf, const struct conf_keytab *tab,
					 const char *file, int line, const char *key, const char *val);
int conf_parse_gres(const char *s, conf_gres_t **g, size_t *ng, char **err);
size_t conf_idx_uniq(size_t *v, size_t n);

/* gres.conf, topology.conf, cgroup.conf from conf->dir (conf_extra.c). */
void conf_read_extra(struct conf_priv *p);

/* The numeric SchedulerParameters in val (from file:line) within Slurm's
 * ranges; each one out of range is a conf_err (conf_sched.c). */
void conf_check_sched_params(conf_t *conf, const char *file, int line, const char *val);

/* SlurmdMetricsPort: a port, or "+N" (each node's Port plus N, *offset
 * set to 1). The port or offset, or -1 when malformed (conf_query.c). */
long conf_metrics_port_parse(const char *v, int *offset);

#endif
