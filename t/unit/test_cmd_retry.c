/*
 * test_cmd_retry: when sbatch/srun/salloc try a submission again
 * (cmd_retry_next, src/cmd/cmdutil.c): at once and with a short backoff
 * after a refused or closed connection, for MessageTimeout in all; at once
 * after a try that timed out, CMD_SUBMIT_TRIES of those at most; never
 * after an answer or an error the controller gave.
 */
#include "cmd/cmdutil.h"
#include "errors.h"
#include "tap.h"

int main(void)
{
	cmd_retry_t r;
	cmd_retry_init(&r, 10);
	is_int(cmd_retry_next(&r, 0), -1, "an answer: no retry");
	is_int(cmd_retry_next(&r, SLUICE_E_PROTOCOL), -1, "a bad answer: no retry");
	is_int(cmd_retry_next(&r, ESLURM_INVALID_PARTITION_NAME), -1, "a refusal: no retry");

	/* closed or refused: 100 ms, doubling to 1 s, until 10 s are spent */
	cmd_retry_init(&r, 10);
	static const long want[] = { 100, 200, 400, 800, 1000, 1000 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		is_int(cmd_retry_next(&r, SLUICE_E_CONNECT), want[i], "closed connection, retry %zu after %ld ms",
		       i + 1, want[i]);
	long total = 2500 + 1000;
	int n = 6;
	long d;
	while ((d = cmd_retry_next(&r, SLUICE_E_CONNECT)) >= 0) {
		total += d;
		n++;
		if (n > 100)
			break;
	}
	ok(total >= 10000 && total < 11000, "closed connections are retried for MessageTimeout (%ld ms, %d tries)",
	   total, n);
	is_int(cmd_retry_next(&r, SLUICE_E_CONNECT), -1, "and then given up");

	/* timed out: retried at once (the wait was MessageTimeout), 3 tries in all */
	cmd_retry_init(&r, 10);
	is_int(cmd_retry_next(&r, SLUICE_E_TIMEOUT), 0, "timeout: retried at once");
	is_int(cmd_retry_next(&r, SLUICE_E_CONNECT), 100, "then a closed connection: soon");
	is_int(cmd_retry_next(&r, SLUICE_E_TIMEOUT), 0, "a second timeout: at once");
	is_int(cmd_retry_next(&r, SLUICE_E_TIMEOUT), -1, "the third try that times out is the last");

	/* MessageTimeout=2: a shorter window; 0 is Slurm's default of 10 s */
	cmd_retry_init(&r, 2);
	total = 0;
	while ((d = cmd_retry_next(&r, SLUICE_E_CONNECT)) >= 0 && total < 100000)
		total += d;
	is_int(total, 2500, "MessageTimeout=2: 100+200+400+800+1000 ms");
	cmd_retry_init(&r, 0);
	is_int(r.window_ms, 10000, "MessageTimeout unset: 10 s");
	return done_testing();
}
