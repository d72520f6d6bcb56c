/*
 * sbcast: copy a file to every node of a job (man sbcast): sbcast [-f]
 * [-p] [-C] [-j JOBID] SOURCE DEST, inside an allocation or with --jobid.
 *
 * The copy is a job step that overlaps the job's others (it waits for no
 * CPUs): one task per node, run as the job's user, which writes its
 * stdin to a temporary file beside DEST and renames it into place, so a
 * reader never sees half a file; srun's machinery (srun_step.c) sends the
 * file as every task's stdin and the launch credential covers what is
 * run. Slurm's sbcast uses a file-transfer RPC of slurmd's instead of a
 * step: here the copy shows up as a step named "sbcast" in sacct.
 *
 * Mode: the source's, always (Slurm sends it); -p also keeps its access
 * and modification times. Without -f an existing DEST is an error
 * ("File exists", exit status EEXIST as Slurm's). Errors are Slurm's:
 * "REQUEST_FILE_BCAST(NODE): REASON" per node, the exit status the errno.
 * -C/--compress, -F/--fanout, -s/--size, -t/--timeout are accepted (the
 * transfer is one stream per node, uncompressed).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/jobopts.h"
#include "cmd/srun_int.h"
#include "errors.h"
#include "log.h"
#include "xalloc.h"

/* What each node runs: sh -c WRITER sbcast DEST FORCE MODE ATIME MTIME.
 * Exit codes are errno values (sbcast prints strerror of them). */
static const char writer[] =
	"d=$1\n"
	"if [ \"$2\" = 0 ] && [ -e \"$d\" ]; then exit 17; fi\n"
	"dir=$(dirname -- \"$d\")\n"
	"[ -d \"$dir\" ] || exit 2\n"
	"[ -w \"$dir\" ] || exit 13\n"
	"t=$(mktemp -- \"$d.sbcast.XXXXXX\" 2>/dev/null) || exit 13\n"
	"cat >\"$t\" || { rm -f -- \"$t\"; exit 28; }\n"
	"chmod \"$3\" -- \"$t\" 2>/dev/null\n"
	"if [ -n \"$4\" ]; then touch -a -d \"@$4\" -- \"$t\"; touch -m -d \"@$5\" -- \"$t\"; fi\n"
	"mv -f -- \"$t\" \"$d\" 2>/dev/null || { rm -f -- \"$t\"; exit 13; }\n";

static void sbcast_usage(FILE *fp)
{
	fprintf(fp, "Usage: sbcast [-CfFjpstvV] SOURCE DEST\n");
}

static void sbcast_help(void)
{
	printf(
"Usage: sbcast [OPTIONS] SOURCE DEST\n"
"  -C, --compress[=lib]  compress the file being transmitted (accepted)\n"
"  -f, --force           replace destination file as required\n"
"  -F, --fanout=num      specify message fanout (accepted)\n"
"  -j, --jobid=#         specify job ID\n"
"  -p, --preserve        preserve modes and times of source file\n"
"  -s, --size=num        block size in bytes (accepted)\n"
"  -t, --timeout=secs    specify message timeout (accepted)\n"
"  -v, --verbose         provide detailed event logging\n"
"  -V, --version         print version information and exit\n"
"\nHelp options:\n"
"  --help                show this help message\n"
"  --usage               display brief usage message\n");
}

static int env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && (!*v || !strcasecmp(v, "yes") || atoi(v) != 0);
}

int cmd_sbcast(int argc, char **argv)
{
	log_init("sbcast", 0, LOG_LVL_INFO, NULL);
	static const struct option lo[] = {
		{ "compress", optional_argument, NULL, 'C' }, { "force", no_argument, NULL, 'f' },
		{ "fanout", required_argument, NULL, 'F' }, { "jobid", required_argument, NULL, 'j' },
		{ "preserve", no_argument, NULL, 'p' }, { "size", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' }, { "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' }, { "help", no_argument, NULL, 'h' },
		{ "usage", no_argument, NULL, 'u' }, { "exclude", required_argument, NULL, 'x' },
		{ "send-libs", optional_argument, NULL, 'L' }, { NULL, 0, NULL, 0 },
	};
	int force = env_flag("SBCAST_FORCE"), preserve = env_flag("SBCAST_PRESERVE"), verbose = 0;
	const char *jobid = NULL;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "C::fF:j:ps:t:vVh", lo, NULL)) != -1) {
		switch (c) {
		case 'f': force = 1; break;
		case 'p': preserve = 1; break;
		case 'j': jobid = optarg; break;
		case 'v': verbose++; break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		case 'h': sbcast_help(); return 0;
		case 'u': sbcast_usage(stdout); return 0;
		case 'C': case 'F': case 's': case 't': case 'x': case 'L': break;
		default:
			fprintf(stderr, "Try \"sbcast --help\" for more information\n");
			return 1;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "Need two file names, have %d names\n"
			"Try \"sbcast --help\" for more information\n", argc - optind);
		return 1;
	}
	if (verbose)
		log_set_level((enum log_level)(LOG_LVL_INFO + verbose));
	const char *src = argv[optind], *dest = argv[optind + 1];
	if (!jobid)
		jobid = getenv("SLURM_JOB_ID");
	if (!jobid || !*jobid) {
		error("Need a job id to run this command.  Run from within a Slurm job or use "
		      "the --jobid option.");
		return 1;
	}
	char *end;
	unsigned long jid = strtoul(jobid, &end, 10);
	if (*end || !jid || jid > UINT32_MAX) {
		error("Invalid job id %s", jobid);
		return 1;
	}
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		error("Can't open `%s`: %s", src, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 255;
	}
	close(fd);

	/* the job: one task on each of its nodes */
	void *reply = NULL;
	msg_info_req_t ir = { .job_id = (uint32_t)jid };
	int err = cmd_call(MSG_JOB_INFO_REQ, &ir, MSG_JOB_INFO, &reply, NULL);
	if (err || !((msg_job_info_t *)reply)->njobs) {
		error("Unable to read job %lu: %s", jid, slurm_strerror(err ? err : ESLURM_INVALID_JOB_ID));
		if (reply)
			proto_msg_destroy(MSG_JOB_INFO, reply);
		return 1;
	}
	uint32_t nn = ((msg_job_info_t *)reply)->jobs[0].num_nodes;
	proto_msg_destroy(MSG_JOB_INFO, reply);

	jobopts_t o;
	jobopts_init(&o, JOBOPTS_SRUN);
	o.prog = "sbcast";
	o.desc.ntasks = nn ? nn : 1;
	o.desc.min_nodes = nn;
	o.desc.name = xstrdup("sbcast");
	o.sr.overlap = 1;
	o.sr.sbcast = 1;
	char cwd[PATH_MAX];
	if (src[0] != '/' && getcwd(cwd, sizeof(cwd)))
		o.desc.std_in = xasprintf("%s/%s", cwd, src);
	else
		o.desc.std_in = xstrdup(src);
	char mode[16], at[32] = "", mt[32] = "";
	snprintf(mode, sizeof(mode), "%o", (unsigned)(st.st_mode & 07777));
	if (preserve) {
		snprintf(at, sizeof(at), "%lld", (long long)st.st_atime);
		snprintf(mt, sizeof(mt), "%lld", (long long)st.st_mtime);
	}
	char *cmd[] = { "/bin/sh", "-c", (char *)writer, "sbcast", (char *)dest,
			force ? "1" : "0", mode, at, mt, NULL };
	srun_setup_signals();
	uint32_t worst = 0;
	int rc = srun_run_step(&o, (uint32_t)jid, cmd, 9, 0, NULL, &worst);
	jobopts_release(&o);
	return rc;
}
