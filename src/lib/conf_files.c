/*
 * conf_files: the files of configless operation (conf_files.h): what the
 * controller serves, and the node daemon's cache of them.
 */
#include "conf_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

const char *const CONF_FILES_SERVED[] = {
	"slurm.conf", "gres.conf", "topology.conf", "cgroup.conf", "acct_gather.conf",
	"job_container.conf", "plugstack.conf", "helpers.conf", "health.conf", NULL,
};

static int served(const char *name)
{
	for (size_t i = 0; CONF_FILES_SERVED[i]; i++)
		if (!strcmp(name, CONF_FILES_SERVED[i]))
			return 1;
	return 0;
}

/* The whole regular file at fd (at most max bytes), NUL-terminated. NULL
 * with *why when it is not regular, larger, or holds a NUL. */
static char *read_fd(int fd, size_t max, const char **why)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return NULL;
	}
	if ((uint64_t)st.st_size > max) {
		*why = "too large";
		return NULL;
	}
	size_t cap = (size_t)st.st_size + 1, len = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*why = strerror(errno);
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > max) {
			*why = "too large";
			free(buf);
			return NULL;
		}
		if (len == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		*why = "holds a NUL byte";
		free(buf);
		return NULL;
	}
	return buf;
}

int conf_files_read(const char *conf_path, const char *key_path, msg_config_files_t *out,
		    char **err)
{
	memset(out, 0, sizeof(*out));
	*err = NULL;
	const char *slash = strrchr(conf_path, '/');
	char *dir = !slash ? xstrdup(".") : slash == conf_path ? xstrdup("/")
		  : xstrndup(conf_path, (size_t)(slash - conf_path));
	struct stat key;
	int have_key = key_path && stat(key_path, &key) == 0;
	size_t total = 0;
	for (size_t i = 0; CONF_FILES_SERVED[i]; i++) {
		char *p = i ? xasprintf("%s/%s", dir, CONF_FILES_SERVED[i]) : xstrdup(conf_path);
		int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			if (errno == ENOENT && i > 0) {
				free(p);
				continue;
			}
			*err = xasprintf("%s: %s", p, strerror(errno));
			free(p);
			goto fail;
		}
		struct stat st;
		const char *why = NULL;
		char *data = NULL;
		if (fstat(fd, &st) == 0 && have_key && st.st_dev == key.st_dev &&
		    st.st_ino == key.st_ino)
			why = "it is the cluster key";
		else
			data = read_fd(fd, CONF_FILES_MAX - total, &why);
		close(fd);
		if (!data) {
			*err = xasprintf("%s: not served: %s", p, why);
			free(p);
			goto fail;
		}
		free(p);
		total += strlen(data);
		strv_push(&out->names, CONF_FILES_SERVED[i]);
		strv_push(&out->data, data);
		free(data);
	}
	free(dir);
	return 0;
fail:
	free(dir);
	strv_free(&out->names);
	strv_free(&out->data);
	return -1;
}

static int write_atomic(const char *path, const char *data, char **err)
{
	char *tmp = xasprintf("%s.new.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t len = strlen(data), off = 0;
	int rc = fd < 0 ? -1 : 0;
	while (rc == 0 && off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = -1;
		else
			off += (size_t)w;
	}
	if (rc == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		rc = -1;
	if (fd >= 0 && close(fd) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1;
	if (rc < 0) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

int conf_cache_write(const char *dir, const msg_config_files_t *m, char **err)
{
	*err = NULL;
	int have_conf = 0;
	if (m->names.n != m->data.n) {
		*err = xstrdup("malformed answer: names and files do not pair");
		return -1;
	}
	for (uint32_t i = 0; i < m->names.n; i++) {
		const char *n = m->names.v[i];
		if (!n || !served(n) || !m->data.v[i]) {
			*err = xasprintf("refusing file '%s' from the controller", n ? n : "(null)");
			return -1;
		}
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(m->names.v[j], n)) {
				*err = xasprintf("file '%s' twice in the answer", n);
				return -1;
			}
		if (!strcmp(n, "slurm.conf"))
			have_conf = 1;
	}
	if (!have_conf) {
		*err = xstrdup("the controller's answer has no slurm.conf");
		return -1;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		*err = xasprintf("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < m->names.n; i++) {
		char *p = xasprintf("%s/%s", dir, m->names.v[i]);
		int rc = write_atomic(p, m->data.v[i], err);
		free(p);
		if (rc < 0)
			return -1;
	}
	/* A file removed on the controller goes from the cache too. */
	for (size_t k = 0; CONF_FILES_SERVED[k]; k++) {
		int kept = 0;
		for (uint32_t i = 0; i < m->names.n && !kept; i++)
			kept = !strcmp(m->names.v[i], CONF_FILES_SERVED[k]);
		if (kept)
			continue;
		char *p = xasprintf("%s/%s", dir, CONF_FILES_SERVED[k]);
		if (unlink(p) < 0 && errno != ENOENT) {
			*err = xasprintf("cannot remove %s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

int conf_server_parse(const char *s, uint16_t def_port, char **host, uint16_t *port)
{
	*host = NULL;
	*port = def_port;
	const char *colon = NULL, *h = s, *he;
	if (*s == '[') {
		const char *rb = strchr(s, ']');
		if (!rb || (rb[1] && rb[1] != ':'))
			return -1;
		h = s + 1;
		he = rb;
		colon = rb[1] ? rb + 1 : NULL;
	} else {
		colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon)
			colon = NULL;   /* a bare IPv6 address */
		he = colon ? colon : s + strlen(s);
	}
	if (he == h)
		return -1;
	if (colon) {
		char *end;
		errno = 0;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || errno || p == 0 || p > 65535)
			return -1;
		*port = (uint16_t)p;
	}
	*host = xstrndup(h, (size_t)(he - h));
	return 0;
}
