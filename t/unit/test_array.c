/* Unit tests for array_range: job array specs ("1-4,7:2%3"), their sets
 * and Slurm's formatting of them. */
#include <stdlib.h>
#include <string.h>

#include "array_range.h"
#include "tap.h"

static void spec_fmt(const char *spec, uint32_t max, const char *want, uint32_t want_thr,
		     uint32_t want_count)
{
	array_set_t s;
	uint32_t thr = 99;
	int rc = array_spec_parse(spec, max, &s, &thr);
	is_int(rc, 0, "'%s' parses", spec);
	if (rc)
		return;
	char *f = array_set_fmt(&s);
	is_str(f, want, "'%s' formats as '%s'", spec, want);
	is_int(thr, want_thr, "'%s' throttle", spec);
	is_int(s.count, want_count, "'%s' count", spec);
	free(f);
	array_set_free(&s);
}

static void spec_bad(const char *spec, uint32_t max)
{
	array_set_t s = { 0 };
	uint32_t thr = 7;
	is_int(array_spec_parse(spec, max, &s, &thr), -1, "'%s' refused (max %u)", spec, max);
	ok(s.w == NULL && thr == 7, "'%s': outputs untouched", spec);
}

int main(void)
{
	spec_fmt("1-10000", 10001, "1-10000", 0, 10000);
	spec_fmt("0-15:4", 1001, "0,4,8,12", 0, 4);
	spec_fmt("1,3,5-7", 1001, "1,3,5-7", 0, 5);
	spec_fmt("1-6%2", 1001, "1-6", 2, 6);
	spec_fmt("1-4%0", 1001, "1-4", 0, 4);
	spec_fmt("1-4%", 1001, "1-4", 0, 4);
	spec_fmt("7,3,3,1-2", 1001, "1-3,7", 0, 4);
	spec_fmt("0", 1, "0", 0, 1);
	spec_fmt("63-65,127-128", 0, "63-65,127-128", 0, 5);
	spec_fmt("0-99999", 100000, "0-99999", 0, 100000);

	spec_bad("", 1001);
	spec_bad("abc", 1001);
	spec_bad("5-3", 1001);
	spec_bad("1-4:0", 1001);
	spec_bad("-1", 1001);
	spec_bad("1-10001", 10001);
	spec_bad("10001", 10001);
	spec_bad("1-3,x", 1001);
	spec_bad("1,,2", 1001);
	spec_bad("1-3%x", 1001);
	spec_bad("[1-3]", 1001);
	spec_bad("99999999999999999999", 0);

	/* The set operations the controller's split uses. */
	array_set_t s;
	uint32_t thr;
	array_spec_parse("3-6,70,200", 1001, &s, &thr);
	is_int(array_set_next(&s, 0), 3, "first id");
	is_int(array_set_next(&s, 7), 70, "next across a word");
	is_int(array_set_next(&s, 71), 200, "next across words");
	is_int(array_set_next(&s, 201), ARRAY_NONE, "none after the last");
	is_int(array_set_last(&s), 200, "last id");
	array_set_del(&s, 4);
	array_set_del(&s, 4);
	is_int(s.count, 5, "deleting twice counts once");
	char *f = array_set_fmt(&s);
	is_str(f, "3,5-6,70,200", "a hole splits the range");
	free(f);
	array_set_add(&s, 5000);
	ok(array_set_has(&s, 5000) && s.count == 6, "add past the end grows the set");
	is_int(array_set_last(&s), 5000, "last after growing");
	for (uint32_t id = array_set_next(&s, 0); id != ARRAY_NONE; id = array_set_next(&s, 0))
		array_set_del(&s, id);
	is_int(s.count, 0, "emptied");
	f = array_set_fmt(&s);
	is_str(f, "", "an empty set formats as ''");
	free(f);
	is_int(array_set_last(&s), ARRAY_NONE, "no last in an empty set");
	array_set_free(&s);
	return done_testing();
}
