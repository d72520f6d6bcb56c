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

/* The rate limiter's clock, moved by the test only: on a loaded machine
 * the floods below took long enough for the buckets to refill. */
static uint64_t fake_ms = 1000000;
static uint64_t fake_clock(void)
{
	return fake_ms;
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
	log_set_clock(fake_clock);
	for (int i = 0; i < 5000; i++)
		error("accept: Too many open files");
	info("something else");
	is_int(count(path, "accept: Too many open files"), 1, "5000 identical lines written once");
	is_int(count(path, "last message repeated 4999 times"), 1, "... and counted");
	is_int(count(path, "something else"), 1, "the next line follows");

	for (int i = 0; i < 5000; i++)
		site_flood(i);
	int written = count(path, "refused connection number");
	is_int(written, 200, "5000 lines from one call site at once: the burst (200) written");
	fake_ms += 50;
	site_flood(-1);
	ok(count(path, "similar messages suppressed: refused connection number %d") == 1,
	   "the suppressed ones are reported with the next line");
	is_int(count(path, "refused connection number -1"), 1, "which is written");

	/* commands (daemon 0) print everything */
	log_init("test", 0, LOG_LVL_INFO, path);
	for (int i = 0; i < 3; i++)
		error("same line");
	is_int(count(path, "same line"), 3, "a command's repeated lines are all printed");

	/* which job a message is about */
	is_int(log_msg_job_id("job 12 started on comp001"), 12, "job N");
	is_int(log_msg_job_id("job 12: ended"), 12, "job N:");
	is_int(log_msg_job_id("update JobId=7 by uid 0"), 7, "JobId=N");
	is_int(log_msg_job_id("step 9.0: ended"), 9, "step N.M");
	is_int(log_msg_job_id("subjob 5 x"), -1, "not inside a word");
	is_int(log_msg_job_id("node comp001 registered (0 jobs running there)"), -1, "none");
	is_int(log_msg_job_id("job x, then job 3"), 3, "the first job followed by a number");

	/* JSON lines */
	unlink(path);
	log_init("slurmd", 1, LOG_LVL_VERBOSE, path);
	log_set_json(1);
	log_set_node("comp\"7");
	error("job 42: bad \"quote\" back\\slash\n\ttab \x01 stray \xff utf8 \xc3\xa9 end");
	info("no id here");
	verbose("step 3.1: verbose");
	debug("not written");
	log_set_json(0);
	is_int(count(path, "\"job_id\":42,"), 1, "job_id as a number");
	is_int(count(path, "\"level\":\"error\",\"daemon\":\"slurmd\",\"node\":\"comp\\\"7\""), 1,
	       "level, daemon and node (escaped)");
	is_int(count(path, "bad \\\"quote\\\" back\\\\slash\\n\\ttab \\u0001 stray \\ufffd utf8 \xc3\xa9 end\"}"), 1,
	       "the message escaped as JSON, valid UTF-8 kept, stray bytes replaced");
	is_int(count(path, "\"level\":\"info\""), 1, "info line");
	is_int(count(path, "\"job_id\""), 2, "no job_id where the message names none");
	is_int(count(path, "\"level\":\"verbose\",\"daemon\":\"slurmd\",\"node\":\"comp\\\"7\",\"job_id\":3,"), 1,
	       "verbose level named");
	is_int(count(path, "not written"), 0, "below the level: nothing");
	if (system("command -v jq >/dev/null 2>&1") == 0) {
		char *cmd = xasprintf("jq -e -s 'length == 3 and all(.[]; .time and .level and .daemon and .message)' %s >/dev/null", path);
		ok(system(cmd) == 0, "jq reads every line");
		free(cmd);
	} else {
		ok(1, "# SKIP jq not installed");
	}

	log_init("test", 0, LOG_LVL_INFO, NULL);
	unlink(path);
	return done_testing();
}
