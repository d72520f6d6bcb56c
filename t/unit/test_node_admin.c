/*
 * test_node_admin: node-administration output details checked against a
 * real Slurm 22.05.8 (fixtures in t/unit/print/, captured from a small
 * slurmctld: nodes n[1-4], n4 State=FUTURE, SlurmdPort default or n1's):
 * sinfo -v's options dump, scontrol show node for a node that never
 * registered (no Arch/OS/Version, CPULoad=N/A) and Port= left out when it
 * is SlurmdPort, and the scontrol update state names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/print.h"
#include "states.h"
#include "strbuf.h"
#include "tap.h"
#include "print_fixture.h"
#include "xalloc.h"

static void same(const char *got, const char *name, const char *what)
{
	char *want = fixture(name);
	int eq = !strcmp(got, want);
	ok(eq, "%s matches Slurm", what);
	if (!eq)
		printf("# --- got:\n%s# --- want:\n%s", got, want);
	free(want);
}

static void vdump(const sinfo_vopts_t *v, const char *name, const char *what)
{
	strbuf_t sb = STRBUF_INIT;
	print_sinfo_options(&sb, v);
	same(sb.buf, name, what);
	strbuf_release(&sb);
}

static void test_sinfo_verbose(void)
{
	sinfo_vopts_t v = { .part_field = 1, .verbose = 1, .format_long = 1,
		.format = "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0" };
	vdump(&v, "sinfo_-v_default.txt", "sinfo -v");

	v = (sinfo_vopts_t){ .long_fmt = 1, .node_field = 1, .node_flag = 1, .part_field = 1,
		.verbose = 1, .format_long = 1,
		.format = "nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,"
			  "socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,reason:20" };
	vdump(&v, "sinfo_-v_-N_-l.txt", "sinfo -v -N -l");

	v = (sinfo_vopts_t){ .filtering = 1, .verbose = 1, .format_long = 1, .states = "down",
		.format = "reason:20 ,user:9 ,timestamp:19 ,nodelist:0" };
	vdump(&v, "sinfo_-v_-R.txt", "sinfo -v -R");

	v = (sinfo_vopts_t){ .dead = 1, .exact = 1, .filtering = 1, .iterate = 5, .no_header = 1,
		.nodes = "n1", .part_field = 1, .responding = 1, .states = "idle,mix", .sort = "P",
		.verbose = 2, .all_flag = 1, .reservation = 1, .format_long = 1,
		.format = "partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0" };
	vdump(&v, "sinfo_-v_filters.txt", "sinfo -vv with filters");

	v = (sinfo_vopts_t){ .verbose = 1, .format_long = 1,
		.format = "Comment,Extra,Port,StateComplete,AllocMem,GresUsed,Reason,Timestamp,"
			  "UserLong,Size,Root,OverSubscribe,Groups,Weight" };
	vdump(&v, "sinfo_-v_-O.txt", "sinfo -v -O (flags of long names)");

	v = (sinfo_vopts_t){ .verbose = 1, .format = "%all" };
	vdump(&v, "sinfo_-v_-o_all.txt", "sinfo -v -o %all (flags of letters)");
}

static node_info_t never_registered(const char *name, uint32_t port)
{
	node_info_t n = { 0 };
	n.name = (char *)name;
	n.addr = (char *)"127.0.0.1";
	n.hostname = (char *)name;
	n.port = port;
	n.state = NODE_UNKNOWN;
	n.cpus = 4;
	n.sockets = 4;
	n.cores = 1;
	n.threads = 1;
	n.boards = 1;
	n.real_memory = 1000;
	n.weight = 1;
	n.partitions = (char *)"p";
	n.cfg_tres = (char *)"cpu=4,mem=1000M,billing=4";
	return n;
}

static void test_show_node(void)
{
	strbuf_t sb = STRBUF_INIT;
	node_info_t n3 = never_registered("n3", 17903);
	print_node_set_slurmd_port(6818);
	print_node_scontrol(&sb, &n3, 0);
	same(sb.buf, "scontrol_show_node_unregistered.txt",
	     "show node: never registered (no Arch/OS/Version, CPULoad=N/A)");

	strbuf_reset(&sb);
	node_info_t n1 = never_registered("n1", 17901);
	print_node_set_slurmd_port(17901);
	print_node_scontrol(&sb, &n1, 0);
	same(sb.buf, "scontrol_show_node_default_port.txt", "show node: Port= left out when SlurmdPort");
	print_node_set_slurmd_port(0);

	/* registered: Arch first on the line, Version after Port, OS line */
	strbuf_reset(&sb);
	n1.arch = (char *)"x86_64";
	n1.os = (char *)"Linux 6.1";
	n1.version = (char *)"22.05.8";
	n1.slurmd_start_time = 1795991976;
	n1.cpu_load = 262;
	print_node_scontrol(&sb, &n1, 0);
	{
		const char *l1 = "NodeName=n1 Arch=x86_64 CoresPerSocket=1 \n";
		ok(!strncmp(sb.buf, l1, strlen(l1)), "Arch= when known");
	}
	ok(strstr(sb.buf, "CPULoad=2.62\n") != NULL, "CPULoad when registered");
	ok(strstr(sb.buf, "NodeHostName=n1 Port=17901 Version=22.05.8\n   OS=Linux 6.1 \n") != NULL,
	   "Port, Version and OS when known");
	strbuf_release(&sb);
}

static void test_update_states(void)
{
	/* 22.05.8's scontrol takes these (the controller refuses some)... */
	is_int(node_update_state_parse("allocated"), NODE_UPD_ALLOCATED, "state=allocated parsed");
	is_int(node_update_state_parse("mix"), NODE_UPD_MIXED, "state=mix parsed");
	is_int(node_update_state_parse("unknown"), NODE_UPD_UNKNOWN, "state=unknown parsed");
	is_int(node_update_state_parse("power_down_asap"), NODE_UPD_POWER_DOWN_ASAP,
	       "state=power_down_asap parsed");
	/* ...and refuses these as invalid input */
	is_int(node_update_state_parse("error"), -1, "state=error is invalid input");
	is_int(node_update_state_parse("planned"), -1, "state=planned is invalid input");
	is_int(node_update_state_parse("reboot"), -1, "state=reboot is invalid input");
}

int main(void)
{
	test_sinfo_verbose();
	test_show_node();
	test_update_states();
	return done_testing();
}
