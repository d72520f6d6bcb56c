/*
 * conf_files: configless operation (Slurm 20.02+, SlurmctldParameters=
 * enable_configless): the controller serves its config files to node
 * daemons started with --conf-server, which keep them in a cache
 * directory and read them from there.
 *
 * Served: slurm.conf and, where they exist beside it, the files a node
 * daemon reads (CONF_FILES_SERVED: gres.conf, topology.conf, cgroup.conf,
 * acct_gather.conf, job_container.conf, plugstack.conf, helpers.conf and
 * Sluice's health.conf). Never the cluster key or anything else in the
 * directory: the names are a fixed list, and a listed name that is the
 * key file itself (a link) is refused.
 */
#ifndef SLUICE_CONF_FILES_H
#define SLUICE_CONF_FILES_H

#include <stdint.h>

#include "proto.h"

/* The file names served, NULL-terminated; slurm.conf first. */
extern const char *const CONF_FILES_SERVED[];
/* A whole file, and all of them together, at most this large. */
#define CONF_FILES_MAX (4u << 20)

/* Read slurm.conf at conf_path and the other served files present in its
 * directory into out (names and data, in CONF_FILES_SERVED order). key_path: the cluster key's file (NULL:
 * none), never served even under a listed name. 0, or -1 with *err
 * (malloc'd): slurm.conf missing, a file unreadable, not regular, the
 * key, holding a NUL byte or over CONF_FILES_MAX; out then holds nothing. */
int conf_files_read(const char *conf_path, const char *key_path, msg_config_files_t *out,
		    char **err);

/* Write a controller's answer into the cache directory dir (made 0755
 * when missing): every file atomically (mode 0644), and served files the
 * answer no longer has are removed. Names not in CONF_FILES_SERVED, or an
 * answer without slurm.conf, are refused before anything is written.
 * 0, or -1 with *err (malloc'd). */
int conf_cache_write(const char *dir, const msg_config_files_t *m, char **err);

/* "HOST", "HOST:PORT" or "[V6]:PORT" (--conf-server): *host malloc'd,
 * *port def_port when not given. 0, or -1 on a bad port or empty host. */
int conf_server_parse(const char *s, uint16_t def_port, char **host, uint16_t *port);

#endif
