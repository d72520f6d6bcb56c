/* test_log: daemon logs collapse repeated lines and rate-limit each call
 * site, so a peer cannot fill the disk through them; commands' messages
 * are never dropped. */
#include "tap.h"
#include "log.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Lines of path containing s. */
static int count(const char *path, const char *s)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, s) != NULL;
	fclose(f);
	return n;
}

static void site_flood(int i)
{
	info("refused connection number %d", i);
}

int main(void)
{
	char path[] = "/tmp/test_log.XXXXXX";
	int fd = mkstemp(path);
	ok(fd >= 0, "temp file");
	close(fd);

	log_init("test", 1, LOG_LVL_INFO, path);
	for (int i = 0; i < 5000; i++)
		error("accept: Too many open files");
	info("something else");
	is_int(count(path, "accept: Too many open files"), 1, "5000 identical lines written once");
	is_int(count(path, "last message repeated 4999 times"), 1, "... and counted");
	is_int(count(path, "something else"), 1, "the next line follows");

	for (int i = 0; i < 5000; i++)
		site_flood(i);
	int written = count(path, "refused connection number");
	ok(written >= 200 && written < 400, "5000 lines from one call site: %d written", written);
	usleep(50000);
	site_flood(-1);
	ok(count(path, "similar messages suppressed: refused connection number %d") == 1,
	   "the suppressed ones are reported with the next line");
	is_int(count(path, "refused connection number -1"), 1, "which is written");

	/* commands (daemon 0) print everything */
	log_init("test", 0, LOG_LVL_INFO, path);
	for (int i = 0; i < 3; i++)
		error("same line");
	is_int(count(path, "same line"), 3, "a command's repeated lines are all printed");
	log_init("test", 0, LOG_LVL_INFO, NULL);
	unlink(path);
	return done_testing();
}
