/*
 * swf: the Standard Workload Format (v2) of the Parallel Workloads Archive.
 *
 * A trace is header/comment lines starting with ';' (the "; MaxNodes: 256"
 * and "; MaxProcs: 512" keys are kept) and one line per job of 18
 * whitespace-separated numbers, -1 meaning unknown: job id, submit time,
 * wait time, run time, allocated processors, average CPU time, used
 * memory, requested processors, requested time, requested memory, status,
 * user, group, executable, queue, partition, preceding job, think time.
 * Fractions (some archive logs have them in the CPU time and memory
 * fields) are accepted and truncated. A line that is not 18 numbers, or a
 * job without a submit time, is refused with its line number; what the
 * simulator cannot use (no run time, no processors) is its concern.
 */
#ifndef SLUICE_SIM_SWF_H
#define SLUICE_SIM_SWF_H

#include <stddef.h>
#include <stdint.h>

#define SWF_FIELDS 18

typedef struct swf_job {
	int64_t id, submit, wait, run;
	int64_t alloc_procs, req_procs;
	int64_t req_time, req_mem, status;
	int64_t user, group, queue, partition;
	uint32_t line;             /* line number in the trace */
} swf_job_t;

typedef struct swf {
	swf_job_t *jobs;
	size_t n;
	int64_t max_nodes, max_procs;   /* header, -1 when absent */
} swf_t;

/* Parse len bytes of trace text into *out (swf_free it, also on error).
 * 0, or -1 with "line N: why" in err. */
int swf_parse(const char *text, size_t len, swf_t *out, char *err, size_t errlen);
/* Read and parse a trace file, plain or gzip-compressed. */
int swf_load(const char *path, swf_t *out, char *err, size_t errlen);
void swf_free(swf_t *t);

#endif
