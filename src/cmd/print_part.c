/*
 * print_part: `scontrol show partition` records as Slurm 22.05 prints them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/print.h"
#include "conf.h"
#include "timefmt.h"

static const char *nz(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static const char *yn(int v)
{
	return v ? "YES" : "NO";
}

static void lim(char *buf, size_t len, uint32_t v)
{
	if (v == UINT32_MAX || v == TIME_INFINITE)
		snprintf(buf, len, "UNLIMITED");
	else
		snprintf(buf, len, "%u", v);
}

static void sep(strbuf_t *sb, int one_liner)
{
	strbuf_addstr(sb, one_liner ? " " : "\n   ");
}

void print_part_scontrol(strbuf_t *sb, const part_info_t *p, int one_liner)
{
	char b1[64], b2[64], b3[64];
	static const char *states[] = { "UP", "DOWN", "DRAIN", "INACTIVE" };

	strbuf_addf(sb, "PartitionName=%s", p->name);
	sep(sb, one_liner);
	strbuf_addf(sb, "AllowGroups=%s AllowAccounts=%s AllowQos=%s",
		    nz(p->allow_groups, "ALL"), nz(p->allow_accounts, "ALL"), nz(p->allow_qos, "ALL"));
	sep(sb, one_liner);
	strbuf_addf(sb, "AllocNodes=ALL Default=%s QoS=%s", yn(p->flags & PART_F_DEFAULT),
		    nz(p->qos, "N/A"));
	sep(sb, one_liner);
	if (p->default_time == TIME_NO_VAL || p->default_time == 0)
		snprintf(b1, sizeof(b1), "NONE");
	else
		mins_fmt_limit(p->default_time, b1, sizeof(b1));
	strbuf_addf(sb, "DefaultTime=%s DisableRootJobs=%s ExclusiveUser=%s GraceTime=%u Hidden=%s",
		    b1, yn(p->flags & PART_F_NO_ROOT), yn(p->flags & PART_F_EXCL_USER),
		    p->grace_time, yn(p->flags & PART_F_HIDDEN));
	sep(sb, one_liner);
	lim(b1, sizeof(b1), p->max_nodes);
	mins_fmt_limit(p->max_time, b2, sizeof(b2));
	lim(b3, sizeof(b3), p->max_cpus_per_node ? p->max_cpus_per_node : UINT32_MAX);
	strbuf_addf(sb, "MaxNodes=%s MaxTime=%s MinNodes=%u LLN=%s MaxCPUsPerNode=%s",
		    b1, b2, p->min_nodes, yn(p->flags & PART_F_LLN), b3);
	sep(sb, one_liner);
	strbuf_addf(sb, "Nodes=%s", nz(p->nodes, "(null)"));
	sep(sb, one_liner);
	strbuf_addf(sb, "PriorityJobFactor=%u PriorityTier=%u RootOnly=%s ReqResv=%s OverSubscribe=%s",
		    p->priority_job_factor, p->priority_tier, yn(p->flags & PART_F_ROOT_ONLY),
		    yn(p->flags & PART_F_REQ_RESV), nz(p->oversubscribe, "NO"));
	sep(sb, one_liner);
	strbuf_addstr(sb, "OverTimeLimit=NONE PreemptMode=OFF");
	sep(sb, one_liner);
	strbuf_addf(sb, "State=%s TotalCPUs=%u TotalNodes=%u SelectTypeParameters=NONE",
		    p->state < 4 ? states[p->state] : "UNKNOWN", p->total_cpus, p->total_nodes);
	sep(sb, one_liner);
	strbuf_addstr(sb, "JobDefaults=(null)");
	sep(sb, one_liner);
	if (p->def_mem_per_cpu)
		strbuf_addf(sb, "DefMemPerCPU=%" PRIu64, p->def_mem_per_cpu);
	else if (p->def_mem_per_node)
		strbuf_addf(sb, "DefMemPerNode=%" PRIu64, p->def_mem_per_node);
	else
		strbuf_addstr(sb, "DefMemPerNode=UNLIMITED");
	if (p->max_mem_per_cpu)
		strbuf_addf(sb, " MaxMemPerCPU=%" PRIu64, p->max_mem_per_cpu);
	else if (p->max_mem_per_node)
		strbuf_addf(sb, " MaxMemPerNode=%" PRIu64, p->max_mem_per_node);
	else
		strbuf_addstr(sb, " MaxMemPerNode=UNLIMITED");
	sep(sb, one_liner);
	strbuf_addf(sb, "TRES=%s", nz(p->tres, "(null)"));
	strbuf_addstr(sb, one_liner ? "\n" : "\n\n");
}
