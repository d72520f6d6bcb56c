/*
 * tap.h: a minimal TAP producer for unit tests, run by prove.
 *   plan_lazy(); ok(cond, "name"); is_int(a, b, "name"); is_str(a, b, "name");
 *   return done_testing();
 */
#ifndef SLUICE_TAP_H
#define SLUICE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) do { long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) printf("#   got: %lld\n#   expected: %lld\n", g_, w_); } while (0)
#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ ? !strcmp(g_, w_) : g_ == w_, __VA_ARGS__)) \
		printf("#   got: '%s'\n#   expected: '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

__attribute__((format(printf, 4, 5)))
static int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_fail++;
		printf("#   failed at %s:%d\n", file, line);
	}
	return pass;
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

#endif
