/*
 * test_sprio: sprio's formatter against Slurm 22.05's captured output
 * (t/compat/sprio.txt: weights Age=1000 Fairshare=10000 JobSize=1000
 * Partition=1000 QOS=1000, jobs 8-12 in defq), its default formats, the
 * weights row, normalized values, sorting, and the wire form of the sprio
 * and sdiag messages (doubles carried as bit patterns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sprio.h"
#include "proto.h"
#include "tap.h"
#include "xalloc.h"

static char *compat(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "t/compat/%s", name);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return xstrdup("(missing fixture)");
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	char *nl = strchr(sb.buf, '\n');   /* drop the "$ sprio" line */
	char *out = xstrdup(nl ? nl + 1 : "");
	strbuf_release(&sb);
	return out;
}

static void set_job(prio_job_t *j, uint32_t id, double js)
{
	memset(j, 0, sizeof(*j));
	j->job_id = id;
	j->user_id = 0;
	j->partition = (char *)"defq";
	j->fairshare = proto_dbl_bits(10000.0);
	j->jobsize = proto_dbl_bits(js);
	j->part = proto_dbl_bits(100.0);
	j->age = proto_dbl_bits(0.0);
	j->qos = proto_dbl_bits(0.0);
}

static int same(const char *got, const char *want, const char *what)
{
	int eq = !strcmp(got, want);
	ok(eq, "%s", what);
	if (!eq)
		printf("# --- got:\n%s# --- want:\n%s", got, want);
	return eq;
}

int main(void)
{

	prio_job_t jobs[5];
	/* Slurm truncates the sum and rounds each factor: fractional job
	 * size factors reproduce the capture exactly. Given out of order to
	 * check the default sort by job id. */
	set_job(&jobs[0], 10, 158.6);
	set_job(&jobs[1], 8, 16.6);
	set_job(&jobs[2], 9, 190.2);
	set_job(&jobs[3], 12, 15.6);
	set_job(&jobs[4], 11, 158.6);
	msg_prio_info_t m = { .multifactor = 1, .w_age = 1000, .w_fairshare = 10000,
			      .w_jobsize = 1000, .w_part = 1000, .w_qos = 1000,
			      .njobs = 5, .jobs = jobs };

	char *fmt = sprio_default_format(&m, 0, 0, 0);
	is_str(fmt, "%.15i %9r %.10Y %.10S %.10A %.10F %.10J %.10P %.10Q",
	   "default format has a column per weighted factor");
	sprio_sort(&m, NULL);
	strbuf_t sb = STRBUF_INIT;
	sprio_format(&sb, &m, fmt, 0, NULL, NULL);
	char *want = compat("sprio.txt");
	same(sb.buf, want, "default output matches Slurm's sprio");
	free(want);
	strbuf_reset(&sb);

	sprio_format(&sb, &m, fmt, SPRIO_F_WEIGHTS, NULL, NULL);
	same(sb.buf,
	     "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION        QOS\n"
	     "        Weights                               1       1000      10000       1000       1000       1000\n",
	     "-w prints the weights row");
	strbuf_reset(&sb);

	sprio_format(&sb, &m, fmt, SPRIO_F_NOHEADER, NULL, NULL);
	ok(!strncmp(sb.buf, "              8 defq           10116", 36), "-h drops the header");
	strbuf_reset(&sb);
	free(fmt);

	fmt = sprio_default_format(&m, 1, 0, 1);
	is_str(fmt, "%.15i %9r %.8u %10y %10a %10f %10j %10p %10q", "normalized format with -u");
	free(fmt);
	sprio_format(&sb, &m, "%i %a %j %p", SPRIO_F_NOHEADER, NULL, NULL);
	ok(!strncmp(sb.buf, "8 0.0000000 0.0166000 0.1000000\n", 32), "normalized factors are weighted / weight");
	strbuf_reset(&sb);

	fmt = sprio_default_format(&m, 0, 1, 0);
	is_str(fmt, "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T",
	   "long format");
	free(fmt);

	sprio_sort(&m, "-y");
	ok(m.jobs[0].job_id == 9 && m.jobs[4].job_id == 12, "-S -y sorts by descending priority");
	sprio_sort(&m, "-j,i");
	ok(m.jobs[0].job_id == 9 && m.jobs[1].job_id == 10 && m.jobs[2].job_id == 11,
	   "-S -j,i: ties by job id");

	/* Wire form. */
	prio_tres_t tr = { (char *)"gres/gpu", proto_dbl_bits(1234.5), proto_dbl_bits(3000) };
	jobs[0].tres = &tr;
	jobs[0].ntres = 1;
	strbuf_t enc = STRBUF_INIT;
	proto_encode(MSG_PRIO_INFO, &m, &enc);
	msg_prio_info_t back;
	char *err = NULL;
	int rc = proto_decode(MSG_PRIO_INFO, &back, enc.buf, enc.len, &err);
	ok(!rc && back.njobs == 5 && back.w_fairshare == 10000 &&
	   proto_dbl(back.jobs[1].jobsize) == proto_dbl(m.jobs[1].jobsize) &&
	   back.jobs[0].ntres == 1 && proto_dbl(back.jobs[0].tres[0].weighted) == 1234.5 &&
	   !strcmp(back.jobs[0].tres[0].name, "gres/gpu"),
	   "msg_prio_info round-trips with its doubles");
	if (!rc)
		proto_free(MSG_PRIO_INFO, &back);
	free(err);
	strbuf_release(&enc);

	rpc_stat_t rs[2] = { { 4003, (char *)"REQUEST_SUBMIT_BATCH_JOB", 14, 35067 },
			     { 1008, (char *)"REQUEST_PING", 3, 1366 } };
	msg_stats_t st = { .req_time = 1795992033, .sched_cycles = 5, .bf_last_when = 1795992003,
			   .nrpc_types = 2, .rpc_types = rs };
	strbuf_init(&enc);
	proto_encode(MSG_STATS, &st, &enc);
	msg_stats_t sb2;
	rc = proto_decode(MSG_STATS, &sb2, enc.buf, enc.len, &err);
	ok(!rc && sb2.sched_cycles == 5 && sb2.nrpc_types == 2 && sb2.rpc_types[0].time_us == 35067 &&
	   !strcmp(sb2.rpc_types[1].name, "REQUEST_PING") && sb2.bf_last_when == 1795992003,
	   "msg_stats round-trips");
	if (!rc)
		proto_free(MSG_STATS, &sb2);
	free(err);
	strbuf_release(&enc);
	strbuf_release(&sb);
	return done_testing();
}
