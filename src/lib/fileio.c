/*
 * fileio: small whole-file reads (see fileio.h). One implementation for
 * the node daemon's readers of sysfs, procfs and cgroup files.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fileio.h"
#include "xalloc.h"

char *file_read_small(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf = xmalloc(max + 1);
	size_t len = 0;
	while (len < max) {
		ssize_t r = read(fd, buf + len, max - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}
