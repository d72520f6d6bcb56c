/*
 * test_acct_fmt: acct_fmt_f6 (src/ctld/acct_rpc.c) writes exactly what
 * printf's "%f" writes, for the values reports hold (fractions, usage,
 * factors) and around every rounding tie, and hands the rest to printf.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/acct.h"
#include "tap.h"

static int bad;

static void check(double v)
{
	char a[ACCT_F6_LEN], b[ACCT_F6_LEN];
	int n = acct_fmt_f6(a, v);
	snprintf(b, sizeof(b), "%f", v);
	if (strcmp(a, b) || n != (int)strlen(b)) {
		if (bad++ < 5)
			printf("# %.17g: got '%s' (%d), printf '%s'", v, a, n, b);
	}
}

int main(void)
{
	static const double fixed[] = {
		0, 1, 0.5, 1e-7, 5e-7, 4.9999995e-7, 5.0000005e-7, 0.0000005, 0.0000015,
		0.1234565, 0.9999995, 0.99999949999, 1.0 / 3, 2.0 / 3, 123456.5, 999999999.9999995,
		999999999.999999, 1e9, 1e12, 1e300, -0.0, -1.5, -1e-9, 0.25, 0.125, 0.0625,
		4503599627.370496, 2.2250738585072014e-308, 4.9406564584124654e-324,
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check(fixed[i]);
	check(INFINITY);
	check(-INFINITY);
	check(NAN);
	srand(7);
	for (int i = 0; i < 200000; i++) {
		double u = (double)rand() / RAND_MAX;
		check(u);                                   /* [0, 1] */
		check(u * pow(10, rand() % 10));            /* up to 1e9 */
		check(u * 1e-6);                            /* below one digit */
		/* just beside a tie: (k + 0.5) / 1e6 and its neighbours */
		double t = ((double)(rand() % 100000000) + 0.5) / 1e6;
		check(t);
		check(nextafter(t, 0));
		check(nextafter(t, 1e10));
	}
	is_int(bad, 0, "1,200,000 values and the edge cases as printf writes them with %%f");
	return done_testing();
}
