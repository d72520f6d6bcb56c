/*
 * conf_keys: the tables behind the config parser (internal to conf*.c and
 * check-config): every key Slurm 22.05 documents for slurm.conf (global,
 * node, partition, nodeset, frontend and DownNodes lines), cgroup.conf,
 * gres.conf and topology.conf, with its value type and whether Sluice acts
 * on it; and the `scontrol show config` key list in Slurm's order with
 * Slurm's defaults as that command prints them.
 *
 * The tables are data, not code, so a key added by a later Slurm version is
 * one line here.
 */
#ifndef SLUICE_CONF_KEYS_H
#define SLUICE_CONF_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* How a value is checked at parse time. */
enum conf_vtype {
	CV_STR = 0,   /* anything */
	CV_UINT,      /* unsigned number */
	CV_UINTU,     /* number, or UNLIMITED/INFINITE/-1 */
	CV_BOOL,      /* YES/NO/TRUE/FALSE/1/0 */
	CV_TIME,      /* Slurm time: min, min:sec, h:m:s, d-h[:m[:s]], INFINITE */
	CV_MEM,       /* megabytes, optional K/M/G/T suffix, or UNLIMITED */
	CV_ENUM,      /* one of values ("a|b|c", case-insensitive) */
	CV_LIST,      /* comma list, each item one of values */
	CV_DEBUG,     /* quiet..debug5 or a number */
	CV_PORT,      /* port number or a range "6817-6820" */
};

#define CK_ACTED 1    /* Sluice acts on this key */
#define CK_PREFIX 2   /* enum items may carry ":N" or "=value" (OverSubscribe, lists) */

struct conf_keydef {
	const char *name;     /* canonical spelling */
	uint8_t type;         /* enum conf_vtype */
	uint8_t flags;        /* CK_* */
	const char *values;   /* CV_ENUM/CV_LIST: "a|b|c" */
};

struct conf_keytab {
	const char *what;     /* "key", "node option", ... (for messages) */
	const struct conf_keydef *keys;
	size_t nkeys;
};

extern const struct conf_keytab conf_global_tab, conf_node_tab, conf_part_tab,
	conf_nodeset_tab, conf_frontend_tab, conf_down_tab, conf_cgroup_tab,
	conf_gres_tab, conf_topo_tab;

/* Case-insensitive lookup; NULL when unknown. */
const struct conf_keydef *conf_key_lookup(const struct conf_keytab *tab, const char *name);
/* The closest known key within a small edit distance, or NULL. */
const char *conf_key_suggest(const struct conf_keytab *tab, const char *name);
/* Check value against def; NULL if fine, else a static text naming the
 * expected form ("a number", "YES or NO", ...). */
const char *conf_key_check(const struct conf_keydef *def, const char *value);

/* Value parsers shared by conf.c (return 0 or -1). */
int conf_parse_uint(const char *s, uint64_t max, uint64_t *out);
int conf_parse_bool(const char *s, int *out);
int conf_parse_time(const char *s, uint32_t *mins);   /* TIME_INFINITE for INFINITE */
int conf_parse_mem(const char *s, uint64_t *mb);      /* UINT64_MAX for UNLIMITED */

/* `scontrol show config` entries. */
enum conf_showfmt {
	SF_STR = 0,   /* value as written, default as given */
	SF_SEC,       /* "N sec" */
	SF_MIN,       /* "N min" */
	SF_USEC,      /* "N usec" */
	SF_PCT,       /* "N percent" */
	SF_RATE,      /* "N nodes/min" */
	SF_YESNO,     /* "Yes"/"No" */
	SF_NUMBOOL,   /* "1"/"0" */
	SF_UPPER,     /* upper-cased */
	SF_USER,      /* "name(uid)" */
	SF_TIME,      /* Slurm time in minutes printed "[D-]HH:MM:SS" */
	SF_SPECIAL,   /* computed in conf.c */
	SF_IFSET,     /* Sluice's and newer Slurm's keys: shown only when set,
	               * so the list stays Slurm 22.05's by default */
};

struct conf_showdef {
	const char *show;     /* name as scontrol prints it */
	uint8_t fmt;          /* enum conf_showfmt */
	const char *def;      /* default, without the unit suffix */
};

extern const struct conf_showdef conf_show_keys[];
extern const size_t conf_nshow_keys;

#endif
