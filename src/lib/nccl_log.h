/*
 * nccl_log: what a job's output says about the network its collective
 * library (NCCL, or RCCL, which logs alike) uses between nodes, and what
 * the fabric's port counters say when the output says nothing. Pure: text
 * and numbers in, verdicts out (the node daemon's nccl_watch.c reads the
 * files and the counters; the unit tests and a libFuzzer target drive
 * this directly).
 *
 * With NCCL_DEBUG=INFO, NCCL prints (to the job's stdout unless
 * NCCL_DEBUG_FILE says otherwise) lines of the form
 *
 *   [TIMESTAMP ]HOST:PID:TID [DEV] NCCL INFO MESSAGE
 *
 * and two messages name the network plugin a communicator uses: its
 * initialisation "Using network NAME" and each inter-node channel's
 * "Channel CC/I : R[D] -> R[D] [send|receive] via NET/NAME/DEV[...]".
 * NAME is "Socket" for the TCP socket transport (the fallback when no
 * InfiniBand/RoCE device is usable), "IB" for verbs, or a plugin's name
 * ("IBext", "IBext_v8", "AWS Libfabric", "UCX", ...). Only those two
 * messages decide: "NET/Socket : Using ..." also appears for bootstrap
 * interfaces and so proves nothing about the data path.
 */
#ifndef SLUICE_NCCL_LOG_H
#define SLUICE_NCCL_LOG_H

#include <stddef.h>
#include <stdint.h>

/* Longest network name kept ("AWS Libfabric" fits). */
#define NCCL_NAME_MAX 32
/* Longest line kept whole; NCCL's own log lines are under 1024 bytes. */
#define NCCL_LINE_MAX 2048

/* Verdict kinds, worst last (a socket anywhere outweighs a fabric). */
enum nccl_verdict {
	NCCL_NONE = 0,           /* nothing known */
	NCCL_FABRIC = 1,         /* a network other than sockets */
	NCCL_SOCKET = 2,         /* the TCP socket transport */
};

/* One line: if it is an NCCL INFO line naming a network, the name into
 * name (NUL-terminated, cut to NCCL_NAME_MAX-1) and NCCL_SOCKET or
 * NCCL_FABRIC; else NCCL_NONE. line need not be NUL-terminated; a
 * trailing newline is ignored. */
enum nccl_verdict nccl_line_parse(const char *line, size_t len, char name[NCCL_NAME_MAX]);

/* A scanner over a growing output file, fed its new bytes in any pieces:
 * whole lines are parsed as they complete, a partial last line waits in
 * carry (a line longer than NCCL_LINE_MAX is skipped to its end). The
 * worst verdict seen wins; on a tie the first is kept. */
typedef struct nccl_scan {
	enum nccl_verdict verdict;
	char name[NCCL_NAME_MAX];      /* the network of the verdict */
	char line[256];                /* the deciding message (from "NCCL INFO") */
	uint64_t tagged;               /* "NCCL INFO" lines parsed */
	char carry[NCCL_LINE_MAX];
	size_t ncarry;
	int skipping;                  /* inside an over-long line */
} nccl_scan_t;

void nccl_scan_init(nccl_scan_t *s);
/* Feed bytes; returns 1 when the verdict changed. */
int nccl_scan_feed(nccl_scan_t *s, const char *buf, size_t len);
/* Parse the partial last line as if complete (the file is finished). */
int nccl_scan_finish(nccl_scan_t *s);

/* The second signal: the fabric's data counters of the node over a job's
 * run. bytes: what the node's active fabric ports moved (received plus
 * sent) since the job started, secs: for how long. Below min_rate bytes
 * per second averaged over at least window seconds, the fabric was
 * "nearly still": NCCL_SOCKET (the collectives went elsewhere, most
 * likely TCP over Ethernet); at or above min_rate NCCL_FABRIC; before
 * window seconds NCCL_NONE (too early to say). */
enum nccl_verdict nccl_counters_verdict(uint64_t bytes, double secs, double window,
					double min_rate);

/* "Socket", "IB", ... are NCCL's; these name the verdict's source. */
#define NCCL_SRC_LOG 1u          /* the job's output (NCCL_DEBUG lines) */
#define NCCL_SRC_COUNTERS 2u     /* the fabric's port counters */
const char *nccl_source_name(uint32_t src);

#endif
