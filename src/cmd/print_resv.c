/*
 * print_resv: reservations as scontrol show reservation and sinfo -T
 * print them (Slurm 22.05's layouts, captured from a real cluster).
 */
#include <string.h>

#include "cmd/print.h"
#include "resv_spec.h"
#include "timefmt.h"

#define NUL(s) ((s) && *(s) ? (s) : "(null)")

void print_resv_scontrol(strbuf_t *sb, const resv_info_t *r, int one_liner, time_t now)
{
	char st[32], et[32], dur[32], fl[256];	/* every flag name fits */
	const char *sep = one_liner ? " " : "\n   ";
	time_fmt_iso((time_t)r->start_time, st, sizeof(st));
	time_fmt_iso((time_t)r->end_time, et, sizeof(et));
	secs_fmt_hms((long)(r->end_time - r->start_time), dur, sizeof(dur));
	resv_flags_fmt(r->flags, r->purge_comp, fl, sizeof(fl));
	int active = r->start_time <= (int64_t)now && (int64_t)now < r->end_time;
	strbuf_addf(sb, "ReservationName=%s StartTime=%s EndTime=%s Duration=%s", r->name, st, et,
		    dur);
	strbuf_addf(sb, "%sNodes=%s NodeCnt=%u CoreCnt=%u Features=%s PartitionName=%s Flags=%s",
		    sep, r->nodes && *r->nodes ? r->nodes : "(null)", r->node_cnt, r->core_cnt,
		    NUL(r->features), NUL(r->partition), fl);
	strbuf_addf(sb, "%sTRES=%s", sep, r->tres ? r->tres : "");
	strbuf_addf(sb, "%sUsers=%s Groups=(null) Accounts=%s Licenses=(null) State=%s "
		    "BurstBuffer=(null) Watts=n/a", sep, NUL(r->users), NUL(r->accounts),
		    active ? "ACTIVE" : "INACTIVE");
	strbuf_addf(sb, "%sMaxStartDelay=(null)\n", sep);
	if (!one_liner)
		strbuf_addch(sb, '\n');
}

void print_resv_sinfo(strbuf_t *sb, const msg_resv_info_t *m, int no_header, time_t now)
{
	/* The name column is as wide as the longest name (at least the
	 * header's); the others have fixed widths, two spaces apart. */
	int w = 9;
	for (uint32_t i = 0; i < m->nresvs; i++) {
		int l = (int)strlen(m->resvs[i].name);
		if (l > w)
			w = l;
	}
	if (!no_header)
		strbuf_addf(sb, "%-*s  %8s  %19s  %19s  %11s  %s\n", w, "RESV_NAME", "STATE",
			    "START_TIME", "END_TIME", "DURATION", "NODELIST");
	for (uint32_t i = 0; i < m->nresvs; i++) {
		const resv_info_t *r = &m->resvs[i];
		char st[32], et[32], dur[32];
		time_fmt_iso((time_t)r->start_time, st, sizeof(st));
		time_fmt_iso((time_t)r->end_time, et, sizeof(et));
		secs_fmt_hms((long)(r->end_time - r->start_time), dur, sizeof(dur));
		int active = r->start_time <= (int64_t)now && (int64_t)now < r->end_time;
		strbuf_addf(sb, "%-*s  %8s  %19s  %19s  %11s  %s\n", w, r->name,
			    active ? "ACTIVE" : "INACTIVE", st, et, dur, r->nodes ? r->nodes : "");
	}
}
