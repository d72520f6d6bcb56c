/*
 * jobacct_sample: the cost of one resource-use sample (src/noded/jobacct.c)
 * as a step's supervisor takes it every JobAcctGatherFrequency seconds.
 *
 * Starts TASKS tasks (default 4), each leading its own session with
 * CHILDREN children (default 3) as the supervisors' tasks do, then times
 * ROUNDS samples (default 2000) and prints the mean and median per sample,
 * per task and per process of the job (a sample walks each task's tree:
 * its cost grows with the job's processes; full_scan=1 means the kernel
 * has no children files and every process of the host was read).
 *   make bench-jobacct [TASKS=4 CHILDREN=3 ROUNDS=2000]
 */
#include <dirent.h>
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded/jobacct.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && atoi(v) > 0 ? atoi(v) : dflt;
}

int main(void)
{
	int ntasks = env_int("TASKS", 4), nchild = env_int("CHILDREN", 3);
	int rounds = env_int("ROUNDS", 2000);
	pid_t *pids = calloc((size_t)ntasks, sizeof(*pids));
	for (int i = 0; i < ntasks; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			setsid();
			for (int k = 0; k < nchild; k++)
				if (fork() == 0) {
					pause();
					_exit(0);
				}
			pause();
			_exit(0);
		}
	}
	usleep(200000);      /* the children are forked */
	jobacct_conf_t c = { JAG_LINUX, 30 };
	jobacct_t *ja = jobacct_new(&c, (uint32_t)ntasks, NULL);
	for (int i = 0; i < ntasks; i++)
		jobacct_task_start(ja, (uint32_t)i, pids[i], (uint32_t)i, 0);
	uint64_t *ns = calloc((size_t)rounds, sizeof(*ns));
	for (int r = 0; r < rounds; r++) {
		uint64_t before = ja->sample_ns;
		jobacct_sample(ja, 0);
		ns[r] = ja->sample_ns - before;
	}
	qsort(ns, (size_t)rounds, sizeof(*ns), cmp_u64);
	int nproc = 0;
	DIR *d = opendir("/proc");
	for (struct dirent *de; d && (de = readdir(d));)
		nproc += isdigit((unsigned char)de->d_name[0]) != 0;
	if (d)
		closedir(d);
	double mean = (double)ja->sample_ns / (double)ja->samples / 1000.0;
	printf("jobacct_sample_tasks=%d\njobacct_sample_procs_per_task=%d\n", ntasks, nchild + 1);
	printf("jobacct_sample_host_procs=%d\n", nproc);
	printf("jobacct_sample_mean_us=%.1f\njobacct_sample_median_us=%.1f\n", mean,
	       (double)ns[rounds / 2] / 1000.0);
	printf("jobacct_sample_median_us_per_task=%.1f\n", (double)ns[rounds / 2] / 1000.0 / ntasks);
	printf("jobacct_sample_median_us_per_proc=%.1f\n",
	       (double)ns[rounds / 2] / 1000.0 / (ntasks * (nchild + 1)));
	printf("jobacct_sample_full_scan=%d\n", ja->full_scan);
	printf("jobacct_sample_rss_kb_task0=%llu\n", (unsigned long long)ja->t[0].u.rss_kb);
	for (int i = 0; i < ntasks; i++)
		kill(-pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	jobacct_free(ja);
	free(ns);
	free(pids);
	return 0;
}
