/* Unit tests for srun --multi-prog configurations (src/lib/multiprog.c)
 * and the per-task/per-node questions about file patterns (fpattern.c);
 * the error texts are those Slurm 22.05's srun printed for the same files. */
#include "tap.h"

#include <stdlib.h>

#include "pattern.h"
#include "multiprog.h"
#include "xalloc.h"

static void check_argv(const char *text, uint32_t rank, const char *want)
{
	strv_t av = { NULL, 0 };
	int rc = multiprog_argv(text, rank, &av);
	char *got = NULL;
	if (!rc) {
		size_t len = 1;
		for (uint32_t i = 0; i < av.n; i++)
			len += strlen(av.v[i]) + 1;
		got = xcalloc(len, 1);
		for (uint32_t i = 0; i < av.n; i++) {
			strcat(got, i ? "|" : "");
			strcat(got, av.v[i]);
		}
	}
	is_str(got ? got : "(none)", want, "rank %u", rank);
	free(got);
	strv_free(&av);
}

static void check_err(const char *text, uint32_t ntasks, const char *want)
{
	char *err = NULL;
	int rc = multiprog_check(text, "f.conf", ntasks, &err);
	is_str(rc ? err : "(valid)", want, "check for %u tasks", ntasks);
	free(err);
}

int main(void)
{
	const char *c = "# comment\n0 echo zero %t %o\n\n1-2,4 echo 'a b' %t%o\n* tail -n1\n";
	check_argv(c, 0, "echo|zero|0|0");
	check_argv(c, 2, "echo|a b|21");
	check_argv(c, 4, "echo|a b|42");
	check_argv(c, 3, "tail|-n1");
	check_argv("0 a \\\n b\n", 0, "a|b");
	check_argv("1 x\n", 0, "(none)");

	check_err(c, 5, "(valid)");
	check_err("0 echo zero\n", 3, "Configuration file f.conf invalid, no record for task id 1");
	check_err("0-5 echo x\n", 3, "Invalid task id, 5 >= ntasks\nLine 1 of configuration file f.conf invalid");
	check_err("0 echo a\n0-1 echo b\n", 2,
		  "Duplicate record for task 0\nLine 2 of configuration file f.conf invalid");
	check_err("x echo a\n", 1,
		  "Invalid task range specification (x)\nLine 1 of configuration file f.conf invalid");
	check_err("0\n", 1, "Line 1 of configuration file f.conf invalid");
	check_err("3-1 echo\n", 4,
		  "Invalid task range specification (3-1)\nLine 1 of configuration file f.conf invalid");

	ok(fpattern_per_task("o-%t.txt"), "%%t is per task");
	ok(fpattern_per_task("o-%4t.txt"), "%%4t is per task");
	ok(!fpattern_per_task("o-%%t.txt"), "%%%%t is not");
	ok(!fpattern_per_task("o\\-%t.txt"), "a backslash turns patterns off");
	ok(fpattern_per_node("o-%N") && fpattern_per_node("o-%n"), "%%N and %%n are per node");
	ok(!fpattern_per_node("o-%j.%s"), "%%j.%%s is neither");
	return done_testing();
}
