/*
 * fileio.h: small whole-file reads (sysfs, procfs, cgroup files, spool
 * records).
 */
#ifndef SLUICE_FILEIO_H
#define SLUICE_FILEIO_H

#include <stddef.h>

/* The file's first max bytes (at most), NUL-terminated and malloc'd;
 * NULL when it cannot be opened. Reads retry on EINTR. */
char *file_read_small(const char *path, size_t max);

#endif
