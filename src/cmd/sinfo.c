/*
 * sinfo: view nodes and partitions, as Slurm 22.05's sinfo.
 *
 * Fetches the partition list (for its order) and the node list, groups the
 * nodes into rows (print_node.c) and prints them with the chosen format.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/print.h"
#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "states.h"
#include "xalloc.h"

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_JSON, OPT_YAML, OPT_HIDE, OPT_LOCAL,
       OPT_NOCONVERT, OPT_FEDERATION };

static const struct option long_opts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "bg", no_argument, NULL, 'b' },
	{ "dead", no_argument, NULL, 'd' },
	{ "exact", no_argument, NULL, 'e' },
	{ "noheader", no_argument, NULL, 'h' },
	{ "iterate", required_argument, NULL, 'i' },
	{ "long", no_argument, NULL, 'l' },
	{ "cluster", required_argument, NULL, 'M' },
	{ "clusters", required_argument, NULL, 'M' },
	{ "nodes", required_argument, NULL, 'n' },
	{ "Node", no_argument, NULL, 'N' },
	{ "format", required_argument, NULL, 'o' },
	{ "Format", required_argument, NULL, 'O' },
	{ "partition", required_argument, NULL, 'p' },
	{ "responding", no_argument, NULL, 'r' },
	{ "list-reasons", no_argument, NULL, 'R' },
	{ "summarize", no_argument, NULL, 's' },
	{ "sort", required_argument, NULL, 'S' },
	{ "states", required_argument, NULL, 't' },
	{ "reservation", no_argument, NULL, 'T' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "usage", no_argument, NULL, OPT_USAGE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yaml", no_argument, NULL, OPT_YAML },
	{ "hide", no_argument, NULL, OPT_HIDE },
	{ "local", no_argument, NULL, OPT_LOCAL },
	{ "noconvert", no_argument, NULL, OPT_NOCONVERT },
	{ "federation", no_argument, NULL, OPT_FEDERATION },
	{ NULL, 0, NULL, 0 },
};


static void bad_letter(int c, void *arg)
{
	(void)arg;
	fprintf(stderr, "Invalid node format specification: %c\n", c);
}

static void bad_name(const char *name, void *arg)
{
	(void)arg;
	fprintf(stderr, "Invalid node format specification: %s\n", name);
}

/* sinfo -t: a state name as Slurm's _node_state_id() takes it, a
 * case-insensitive prefix of a long or compact name. 0 when unknown. */
static int state_name_ok(const char *s)
{
	/* The names 22.05.8 takes (checked against it): its ERROR state
	 * prints as "?", the reboot states as "reboot"/"boot" and
	 * "reboot^"/"boot^"; "inval", "error" or "pow_up" are refused. */
	static const char *const names[] = {
		"unknown", "unk", "down", "idle", "allocated", "alloc", "?",
		"mixed", "mix", "future", "futr", "planned", "plnd", "drain", "drained",
		"resv", "reserved", "perfctrs", "npc", "draining", "drng", "completing",
		"comp", "no_respond", "powering_down", "powered_down", "power_down",
		"powering_up", "fail", "maint", "reboot", "boot", "reboot^", "boot^",
		"cloud",
	};
	size_t len = strlen(s);
	if (!len)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strncasecmp(names[i], s, len))
			return 1;
	return 0;
}

/* Slurm 22.05.8's text, quirks included ("?" for ERROR, "unknown" again
 * at the end where it names PLANNED). */
static const char valid_states[] =
	"unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,"
	"no_respond,reserved,perfctrs,cloud,completing,powering_down,powered_down,"
	"power_down,powering_up,fail,maint,reboot,reboot^,unknown";

/* sinfo -T */
static int sinfo_reservations(int no_header)
{
	msg_info_req_t req = { 0 };
	msg_resv_info_t *m = NULL;
	int err = cmd_call(MSG_RESV_INFO_REQ, &req, MSG_RESV_INFO, (void **)&m, NULL);
	if (err) {
		fprintf(stderr, "slurm_load_reservations: %s\n", slurm_strerror(err));
		return 1;
	}
	strbuf_t sb = STRBUF_INIT;
	print_resv_sinfo(&sb, m, no_header, time(NULL));
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	proto_msg_destroy(MSG_RESV_INFO, m);
	return 0;
}

int cmd_sinfo(int argc, char **argv)
{
	int c, no_header = 0, long_fmt = 0, iterate = 0, json = 0, verbose = 0;
	const char *format = NULL, *format_long = NULL, *sort = NULL;
	strv_t parts = { 0 }, states = { 0 };
	hostlist_t *node_filter = NULL;
	sinfo_opts_t so = { 0 };
	sinfo_vopts_t vo = { 0 };  /* what -v shows, as Slurm keeps it */
	int rc = 0;
	const char *env;

	/* Environment first; options override it. */
	if (getenv("SINFO_ALL"))
		vo.all_flag = 1;
	if ((env = getenv("SINFO_PARTITION")) && *env) {
		cmd_split(&parts, env);
		vo.partition = env;
		vo.all_flag = 1;
	}
	if ((env = getenv("SINFO_SORT")) && *env)
		sort = env;

	log_init("sinfo", 0, LOG_LVL_INFO, NULL);
	/* getopt names the program from argv[0]: print "sinfo:" as Slurm does
	 * when run from PATH, whatever path we were started by. */
	argv[0] = (char *)"sinfo";
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "abdehi:lM:n:No:O:p:rRsS:t:TvV",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'b': case 'M': break;
		case 'T': vo.reservation = 1; break;
		case 'v': verbose++; break;
		case 'd': so.dead = 1; break;
		case 'e': so.exact = 1; break;
		case 'h': no_header = 1; break;
		case 'i':
			iterate = atoi(optarg);
			if (iterate <= 0) {
				fprintf(stderr, "sinfo: error: Error: invalid entry for --iterate=%s\n",
					optarg);
				return 1;
			}
			break;
		case 'l': long_fmt = 1; break;
		case 'n': {
			char *err = NULL;
			hostlist_destroy(node_filter);
			node_filter = hostlist_create(optarg, &err);
			if (!node_filter) {
				fprintf(stderr, "sinfo: error: '%s' invalid entry for --nodes\n", optarg);
				free(err);
				return 1;
			}
			/* -v shows one node by its name, a list as given */
			vo.nodes = hostlist_count(node_filter) == 1 ? hostlist_nth(node_filter, 0)
								     : optarg;
			break;
		}
		case 'N': so.node_flag = 1; break;
		case 'o': format = optarg; format_long = NULL; break;
		case 'O': format_long = optarg; format = NULL; break;
		case 'p':
			strv_free(&parts);
			cmd_split(&parts, optarg);
			vo.partition = optarg;
			vo.all_flag = 1;
			break;
		case 'a': strv_free(&parts); vo.partition = NULL; vo.all_flag = 1; break;
		case 'r': so.responding = 1; break;
		case 'R': so.list_reasons = 1; break;
		case 's': so.summarize = 1; break;
		case 'S': sort = optarg; break;
		case 't':
			strv_free(&states);
			vo.states = optarg;
			/* "a&b" asks for nodes in all the states; "a,b" any */
			for (char *c2 = optarg; *c2; c2++)
				if (*c2 == '&')
					so.states_and = 1;
			{
				char *copy = xstrdup(optarg), *save = NULL;
				for (char *t = strtok_r(copy, ",&", &save); t; t = strtok_r(NULL, ",&", &save))
					strv_push(&states, t);
				free(copy);
			}
			for (uint32_t i = 0; i < states.n; i++) {
				if (!state_name_ok(states.v[i])) {
					fprintf(stderr, "sinfo: error: Bad state string: \"%s\"\n"
						"sinfo: error: valid states: %s\n", states.v[i], valid_states);
					strv_free(&states);
					return 1;
				}
			}
			break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		case OPT_HELP: cmd_help_print(stdout, &cmd_help_sinfo); return 0;
		case OPT_USAGE: cmd_usage_print(stdout, &cmd_help_sinfo); return 0;
		case OPT_JSON: case OPT_YAML: json = 1; break;
		case OPT_HIDE: vo.all_flag = 0; break;
		case OPT_LOCAL: case OPT_NOCONVERT: case OPT_FEDERATION: break;
		default:
			cmd_bad_option("sinfo");
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sinfo: error: Unrecognized option: %s\n", argv[optind]);
		cmd_usage_print(stderr, &cmd_help_sinfo);
		return 1;
	}
	if (long_fmt && (format || format_long)) {
		fprintf(stderr, "sinfo: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n");
		return 1;
	}
	so.states = states.n ? &states : NULL;
	so.sort = sort;
	if (vo.reservation && !json) {
		/* -T: reservations only; most other options do not apply */
		strv_free(&parts);
		strv_free(&states);
		hostlist_destroy(node_filter);
		return sinfo_reservations(no_header);
	}

	fmt_t fmt;
	int hash_n = 0, hash_p = 0;
	/* SINFO_FORMAT stands in for -o, but not for the formats of -s, -N
	 * and -R (Slurm picks those first). */
	if (!format && !format_long && !so.summarize && !so.node_flag && !so.list_reasons &&
	    (env = getenv("SINFO_FORMAT")) && *env)
		format = env;
	if (verbose) {
		vo.dead = so.dead;
		vo.exact = so.exact;
		vo.iterate = iterate;
		vo.long_fmt = long_fmt;
		vo.no_header = no_header;
		vo.node_flag = so.node_flag;
		vo.responding = so.responding;
		vo.summarize = so.summarize;
		vo.verbose = verbose;
		vo.sort = sort;
		vo.format = format_long ? format_long : format;
		vo.format_long = format_long != NULL;
		if (!vo.format) {
			/* Slurm 22.05's default formats are -O lists. */
			vo.format_long = 1;
			if (so.summarize) {
				vo.part_field = 1;
				vo.format = "partition:9 ,available:.5 ,time:.10 ,nodeaiot:.16 ,nodelist:0";
			} else if (so.node_flag) {
				vo.node_field = vo.part_field = 1;
				vo.format = long_fmt ?
					"nodelist:0 ,nodes:.6 ,partition:.9 ,statelong:.11 ,cpus:4 ,"
					"socketcorethread:.8 ,memory:.6 ,disk:.8 ,weight:.6 ,features:.8 ,"
					"reason:20" :
					"nodelist:0 ,nodes:.6 ,partition:.9 ,statecompact:6";
			} else if (so.list_reasons) {
				vo.format = long_fmt ?
					"reason:20 ,userlong:12 ,timestamp:19 ,statecompact:6 ,nodelist:0" :
					"reason:20 ,user:9 ,timestamp:19 ,nodelist:0";
			} else {
				vo.part_field = 1;
				vo.format = long_fmt ?
					"partition:9 ,available:.5 ,time:.10 ,size:.10 ,root:.4 ,"
					"oversubscribe:.8 ,groups:.10 ,nodes:.6 ,statelong:.11 ,nodelist:0" :
					"partition:9 ,available:.5 ,time:.10 ,nodes:.6 ,statecompact:.6 ,nodelist:0";
			}
		}
		/* -R without -t: Slurm's implied "down,fail,drain", which it
		 * shows cut at the first comma (its parser splits it in place) */
		if (so.list_reasons && !vo.states)
			vo.states = "down";
		vo.filtering = so.dead || node_filter || vo.partition || so.responding ||
			       vo.states;
		strbuf_t vsb = STRBUF_INIT;
		print_sinfo_options(&vsb, &vo);
		fwrite(vsb.buf, 1, vsb.len, stdout);
		strbuf_release(&vsb);
	}
	if (format_long) {
		fmt_parse_long(&fmt, format_long, node_fmt_lookup, bad_name, NULL);
	} else {
		const char *spec = format;
		if (!spec) {
			if (so.summarize)
				spec = "%9P %.5a %.10l %.16F %N";   /* -O ...,nodeaiot:.16 ,nodelist:0 */
			else if (so.node_flag && long_fmt) {
				spec = "%9N %.6D %.9P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E";
				hash_n = 1;
			} else if (so.node_flag) {
				spec = "%9N %.6D %9P %6t";
				hash_n = hash_p = 1;
			} else if (so.list_reasons)
				spec = long_fmt ? "%20E %12U %19H %6t %N" : "%20E %9u %19H %N";
			else if (long_fmt)
				spec = "%9P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
			else
				spec = "%9P %.5a %.10l %.6D %.6t %N";
		}
		fmt_parse(&fmt, spec, 0, node_fmt_valid, bad_letter, NULL);
		/* "#": width computed from the data (Slurm's %#N / %#P). */
		for (size_t i = 0; i < fmt.n; i++)
			if ((hash_n && fmt.f[i].code == 'N') || (hash_p && fmt.f[i].code == 'P'))
				fmt.f[i].width = -1;
	}

	for (;;) {
		msg_info_req_t req = { 0 };
		msg_part_info_t *pi = NULL;
		msg_node_info_t *ni = NULL;
		int err = cmd_call(MSG_PART_INFO_REQ, &req, MSG_PART_INFO, (void **)&pi, NULL);
		if (err) {
			fprintf(stderr, "slurm_load_partitions: %s\n", slurm_strerror(err));
			rc = 1;
			break;
		}
		err = cmd_call(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO, (void **)&ni, NULL);
		if (err) {
			fprintf(stderr, "slurm_load_node: %s\n", slurm_strerror(err));
			proto_msg_destroy(MSG_PART_INFO, pi);
			rc = 1;
			break;
		}
		time_t now = time(NULL);
		/* Slurm 22.05's sinfo never shows FUTURE nodes (its controller
		 * leaves them out without SHOW_FUTURE, which only scontrol -F
		 * asks for): work on a shallow copy without them. */
		node_info_t *all_nodes = ni->nodes;
		uint32_t all_n = ni->nnodes, nvis = 0;
		node_info_t *vis = xmalloc((all_n ? all_n : 1) * sizeof(*vis));
		for (uint32_t i = 0; i < all_n; i++)
			if ((all_nodes[i].state & NODE_STATE_BASE) != NODE_FUTURE)
				vis[nvis++] = all_nodes[i];
		ni->nodes = vis;
		ni->nnodes = nvis;
		if (json) {
			strbuf_t sb = STRBUF_INIT;
			print_nodes_json(&sb, ni->nodes, ni->nnodes);
			fwrite(sb.buf, 1, sb.len, stdout);
			strbuf_release(&sb);
		} else {
			sinfo_row_t *rows = NULL;
			size_t n = sinfo_build(pi, ni, &fmt, &so, parts.n ? &parts : NULL,
					       node_filter, &rows);
			fmt_t f2 = fmt;    /* widths resolved per iteration */
			fmt_field_t *fcopy = xmalloc((fmt.n ? fmt.n : 1) * sizeof(*fcopy));
			memcpy(fcopy, fmt.f, fmt.n * sizeof(*fcopy));
			f2.f = fcopy;
			sinfo_fix_widths(&f2, rows, n);
			strbuf_t sb = STRBUF_INIT;
			/* Slurm dates the output of -l, -i and -v unless -h. */
			if (!no_header && (long_fmt || iterate || verbose))
				print_date_line(&sb, now);
			if (!no_header)
				print_sinfo_header(&sb, &f2);
			for (size_t i = 0; i < n; i++)
				print_sinfo_row(&sb, &f2, &rows[i]);
			fwrite(sb.buf, 1, sb.len, stdout);
			strbuf_release(&sb);
			free(fcopy);
			sinfo_rows_free(rows, n);
		}
		ni->nodes = all_nodes;
		ni->nnodes = all_n;
		free(vis);
		proto_msg_destroy(MSG_PART_INFO, pi);
		proto_msg_destroy(MSG_NODE_INFO, ni);
		fflush(stdout);
		if (iterate <= 0)
			break;
		printf("\n");
		sleep((unsigned)iterate);
	}
	fmt_release(&fmt);
	strv_free(&parts);
	strv_free(&states);
	hostlist_destroy(node_filter);
	return rc;
}
