/*
 * prom: writing the Prometheus text exposition format (version 0.0.4, what
 * `promtool check metrics` and every Prometheus scrape read): a family's
 * HELP and TYPE lines, samples with escaped label values, and fixed-bucket
 * histograms. Callers keep each family's samples together and each label
 * set unique within a family (the format requires both).
 */
#ifndef SLUICE_PROM_H
#define SLUICE_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* "# HELP name help\n# TYPE name type\n"; type: "gauge", "counter",
 * "histogram". help is escaped (backslash, newline). */
void prom_family(strbuf_t *sb, const char *name, const char *type, const char *help);

/* One sample: name{k1="v1",...} value. Labels are pairs of const char *
 * after the value, ended by NULL; a NULL value is written as "". */
void prom_sample(strbuf_t *sb, const char *name, double v, ...);
/* The same with an integer value (exact beyond 2^53). */
void prom_sample_u(strbuf_t *sb, const char *name, uint64_t v, ...);
/* A sample whose label set was built once (prom_labels) for many
 * families: name + lbl + value. */
void prom_sample_lbl(strbuf_t *sb, const char *name, const char *lbl, double v);
/* {k1="v1",...} (escaped) from NULL-ended pairs, appended to sb. */
void prom_labels(strbuf_t *sb, ...);
/* A gauge family with one unlabelled sample. */
void prom_gauge(strbuf_t *sb, const char *name, const char *help, double v);

/* A label value escaped as the format wants (\\, \", \n). */
void prom_escape(strbuf_t *sb, const char *s);

/* A histogram with fixed upper bounds (ascending, +Inf implicit). */
typedef struct prom_hist {
	const double *bounds;
	uint32_t nbounds;
	uint64_t *counts;        /* nbounds + 1, per bucket (not cumulative) */
	uint64_t count;
	double sum;
} prom_hist_t;

void prom_hist_init(prom_hist_t *h, const double *bounds, uint32_t nbounds);
void prom_hist_release(prom_hist_t *h);
void prom_hist_observe(prom_hist_t *h, double v);
/* name_bucket{labels...,le="..."}, name_sum, name_count; labels as for
 * prom_sample (NULL-ended pairs). The family line is the caller's. */
void prom_hist_write(strbuf_t *sb, const char *name, const prom_hist_t *h, ...);

#endif
