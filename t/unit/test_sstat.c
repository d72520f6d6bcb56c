/* Unit tests for sstat's aggregation and fields (src/cmd/sstat_fmt.c):
 * values as Slurm 22.05's sstat printed them on a real cluster. */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/sstat.h"
#include "jobid.h"
#include "xalloc.h"

static char *val(const char *field, const sstat_step_t *s, int node, int noconvert)
{
	static char buf[512];
	sstat_opts_t o = { .noconvert = noconvert };
	strbuf_t sb = STRBUF_INIT;
	const sstat_field_t *f = sstat_field_find(field);
	if (!f)
		return NULL;
	sstat_value(&sb, f, s, node, &o);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

static void test_num(void)
{
	char b[64];
	sstat_opts_t o = { 0 }, raw = { .noconvert = 1 };
	sstat_num_fmt(66293760, &o, b, sizeof(b));
	is_str(b, "64740K", "MaxRSS 66293760 bytes: 64740K (as 22.05)");
	sstat_num_fmt(66233685, &o, b, sizeof(b));
	is_str(b, "66233685", "not a multiple of 512: stays in bytes (22.05's AveRSS)");
	sstat_num_fmt(1049088, &o, b, sizeof(b));
	is_str(b, "1.00M", "1 MiB and a half KiB: 1.00M (22.05's MaxDiskWrite)");
	sstat_num_fmt(1048576, &o, b, sizeof(b));
	is_str(b, "1M", "exactly 1 MiB: 1M");
	sstat_num_fmt(1536, &o, b, sizeof(b));
	is_str(b, "1.50K", "1.5 KiB");
	sstat_num_fmt(0, &o, b, sizeof(b));
	is_str(b, "0", "zero");
	sstat_num_fmt(1, &o, b, sizeof(b));
	is_str(b, "1", "a page count");
	sstat_num_fmt(66293760, &raw, b, sizeof(b));
	is_str(b, "66293760", "--noconvert: bytes");
	sstat_num_fmt(1ull << 50, &o, b, sizeof(b));
	is_str(b, "1P", "a pebibyte");
}

static void test_aggregate(void)
{
	/* 3 tasks: 0 and 1 on n1, 2 on n2 */
	stat_task_t n1[] = {
		{ .step_id = 0, .rank = 0, .rss_kb = 1000, .vmsize_kb = 5000, .pages = 1,
		  .cpu_us = 12500000, .disk_read = 100, .disk_write = 10 },
		{ .step_id = 0, .rank = 1, .rss_kb = 64740, .vmsize_kb = 5000, .pages = 0,
		  .cpu_us = 3000000, .disk_read = 300, .disk_write = 30 },
	};
	stat_task_t n2[] = {
		{ .step_id = 0, .rank = 2, .rss_kb = 2000, .vmsize_kb = 67964, .pages = 0,
		  .cpu_us = 3000000, .disk_read = 200, .disk_write = 5 },
	};
	sstat_step_t s = { .job_id = 44, .step_id = 0 };
	sstat_step_add(&s, "n1", "10,11", n1, 2);
	sstat_step_add(&s, "n2", "20", n2, 1);
	is_int(s.ntasks, 3, "3 tasks");
	is_str(val("JobID", &s, -1, 0), "44.0", "JobID");
	is_str(val("NTasks", &s, -1, 0), "3", "NTasks");
	is_str(val("MaxRSS", &s, -1, 0), "64740K", "MaxRSS");
	is_str(val("MaxRSSNode", &s, -1, 0), "n1", "MaxRSSNode");
	is_str(val("MaxRSSTask", &s, -1, 0), "1", "MaxRSSTask");
	is_str(val("MaxVMSize", &s, -1, 0), "67964K", "MaxVMSize");
	is_str(val("MaxVMSizeNode", &s, -1, 0), "n2", "MaxVMSizeNode on the other node");
	is_str(val("MaxVMSizeTask", &s, -1, 0), "2", "MaxVMSizeTask");
	is_str(val("AveRSS", &s, -1, 0), "22580K", "AveRSS: (1000+64740+2000)/3 KiB");
	is_str(val("MinCPU", &s, -1, 0), "00:00:03", "MinCPU");
	is_str(val("MinCPUNode", &s, -1, 0), "n1", "MinCPU tie: the first node");
	is_str(val("MinCPUTask", &s, -1, 0), "1", "MinCPU tie: the first task");
	is_str(val("AveCPU", &s, -1, 0), "00:00:06", "AveCPU (18.5 s / 3)");
	is_str(val("MaxPages", &s, -1, 0), "1", "MaxPages");
	is_str(val("AvePages", &s, -1, 0), "0", "AvePages: 1/3 rounds down");
	is_str(val("MaxDiskRead", &s, -1, 0), "300", "MaxDiskRead bytes");
	is_str(val("MaxDiskWriteTask", &s, -1, 0), "1", "MaxDiskWriteTask");
	is_str(val("AveDiskWrite", &s, -1, 0), "15", "AveDiskWrite");
	is_str(val("Nodelist", &s, -1, 0), "n[1-2]", "Nodelist ranged");
	is_str(val("Nodelist", &s, 1, 0), "n2", "-i: one node");
	is_str(val("Pids", &s, -1, 0), "10,11,20", "Pids of all nodes");
	is_str(val("Pids", &s, 0, 0), "10,11", "-i: the node's pids");
	is_str(val("ReqCPUFreqMin", &s, -1, 0), "Unknown", "srun step: ReqCPUFreqMin Unknown");
	is_str(val("ConsumedEnergy", &s, -1, 0), "0", "ConsumedEnergy 0");
	is_str(val("MaxRSS", &s, -1, 1), "66293760", "--noconvert MaxRSS");
	is_str(val("TRESUsageInMax", &s, -1, 0),
	       "cpu=00:00:12,energy=0,fs/disk=300,mem=64740K,pages=1,vmem=67964K",
	       "TRESUsageInMax");
	is_str(val("TRESUsageInMaxNode", &s, -1, 0),
	       "cpu=n1,energy=n1,fs/disk=n1,mem=n1,pages=n1,vmem=n2", "TRESUsageInMaxNode");
	is_str(val("TRESUsageInMaxTask", &s, -1, 0), "cpu=00:00:00,fs/disk=1,mem=1,pages=0,vmem=2",
	       "TRESUsageInMaxTask: no energy, the cpu task printed as a time (22.05)");
	is_str(val("TRESUsageInMin", &s, -1, 0),
	       "cpu=00:00:03,energy=0,fs/disk=100,mem=1000K,pages=0,vmem=5000K", "TRESUsageInMin");
	is_str(val("TRESUsageInTot", &s, -1, 0),
	       "cpu=00:00:18,energy=0,fs/disk=600,mem=67740K,pages=1,vmem=77964K", "TRESUsageInTot");
	is_str(val("TRESUsageOutAve", &s, -1, 0), "energy=0,fs/disk=15", "TRESUsageOutAve");
	is_str(val("TRESUsageOutMaxNode", &s, -1, 0), "energy=n1,fs/disk=n1", "TRESUsageOutMaxNode");
	is_str(val("TRESUsageOutMinTask", &s, -1, 0), "fs/disk=2", "TRESUsageOutMinTask");
	sstat_step_release(&s);

	sstat_step_t b = { .job_id = 7, .step_id = STEP_BATCH };
	stat_task_t bt = { .step_id = STEP_BATCH, .rss_kb = 3184 };
	sstat_step_add(&b, "n1", "", &bt, 1);
	is_str(val("JobID", &b, -1, 0), "7.batch", "batch JobID");
	is_str(val("ReqCPUFreqGov", &b, -1, 0), "0", "batch step: ReqCPUFreqGov 0");
	is_str(val("AveRSS", &b, -1, 0), "3184K", "batch AveRSS");
	is_str(val("Pids", &b, -1, 0), "", "no pids known");
	sstat_step_release(&b);

	sstat_step_t e = { .job_id = 7, .step_id = 3 };
	sstat_step_add(&e, "n1", "5", NULL, 0);
	is_str(val("MaxRSS", &e, -1, 0), "0", "no tasks: zeros");
	is_str(val("AveCPU", &e, -1, 0), "00:00:00", "no tasks: AveCPU 00:00:00");
	sstat_step_release(&e);
}

static void test_format(void)
{
	sstat_out_t *out = NULL;
	size_t n = 0;
	char *bad = NULL;
	ok(sstat_format_parse("jobid%20,maxrss%-12,ntasks%3", &out, &n, &bad) == 0, "parse");
	is_int(n, 3, "3 fields");
	ok(out[0].width == 20 && !out[0].left, "JobID%%20 is right-justified");
	ok(out[1].width == 12 && out[1].left, "MaxRSS%%-12 left");
	ok(out[2].width == 3, "NTasks%%3");
	free(out);
	out = NULL;
	n = 0;
	ok(sstat_format_parse("JobID,foo", &out, &n, &bad) < 0, "unknown field refused");
	is_str(bad, "foo", "named");
	free(bad);
	free(out);
	out = NULL;
	n = 0;
	ok(sstat_format_parse(SSTAT_DEFAULT_FORMAT, &out, &n, &bad) == 0, "default format");
	is_int(n, 47, "47 default fields");
	ok(out[0].left && out[0].width == 12, "JobID left, 12");
	free(out);
	is_int(sstat_nfields, 51, "51 fields, as sstat -e lists");
}

int main(void)
{
	test_num();
	test_aggregate();
	test_format();
	return done_testing();
}
