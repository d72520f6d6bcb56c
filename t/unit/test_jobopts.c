/*
 * test_jobopts: option, #SBATCH directive, input environment and --export
 * parsing shared by sbatch and srun, and the --wrap script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/jobopts.h"
#include "mpi_type.h"
#include "tap.h"
#include "rlimits.h"
#include "timefmt.h"

static int parse(jobopts_t *o, const char *const *args)
{
	int n = 0;
	while (args[n])
		n++;
	return jobopts_parse_argv(o, n, (char **)args, 0);
}

static int env_has(const strv_t *sv, const char *kv)
{
	for (uint32_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], kv))
			return 1;
	return 0;
}

static int env_has_name(const strv_t *sv, const char *name)
{
	size_t l = strlen(name);
	for (uint32_t i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], name, l) && sv->v[i][l] == '=')
			return 1;
	return 0;
}

int main(void)
{
	jobopts_t o;

	/* basic sbatch options */
	jobopts_init(&o, JOBOPTS_SBATCH);
	const char *a1[] = { "sbatch", "-J", "train", "-p", "defq", "-N", "2-4", "-n8", "-c", "2",
		"--mem=4G", "--gres=gpu:h100:2", "-t", "1:00:00", "--parsable", "-o", "out-%j",
		"--exclusive", "-H", "--open-mode=append", "job.sh", "arg1", NULL };
	is_int(parse(&o, a1), 0, "sbatch options parse");
	is_str(o.desc.name, "train", "-J");
	is_str(o.desc.partition, "defq", "-p");
	is_int(o.desc.min_nodes, 2, "-N min");
	is_int(o.desc.max_nodes, 4, "-N max");
	is_int(o.desc.ntasks, 8, "-n glued");
	is_int(o.desc.cpus_per_task, 2, "-c");
	is_int(o.desc.mem_per_node, 4096, "--mem=4G in MB");
	is_str(o.desc.tres_per_node, "gres:gpu:h100:2", "--gres to tres_per_node");
	is_int(o.desc.time_limit, 60, "-t 1:00:00");
	is_int(o.parsable, 1, "--parsable");
	is_str(o.desc.std_out, "out-%j", "-o kept as typed");
	ok(o.desc.flags & 0x0002u, "--exclusive");
	ok(o.desc.flags & 0x0001u, "-H hold");
	ok(o.desc.flags & 0x0040u, "--open-mode=append");
	is_int(o.argi, 20, "operand index");
	jobopts_release(&o);

	/* --exclusive values and -s (Slurm's arg_set_exclusive) */
	const struct { const char *arg; uint32_t flag; } ex[] = {
		{ "--exclusive=user", JOB_F_EXCLUSIVE_USER },
		{ "--exclusive=mcs", JOB_F_EXCLUSIVE },
		{ "--exclusive=oversubscribe", JOB_F_OVERSUBSCRIBE },
		{ "--exclusive=EXCLUSIVE", JOB_F_EXCLUSIVE },
		{ "-s", JOB_F_OVERSUBSCRIBE },
		{ "--oversubscribe", JOB_F_OVERSUBSCRIBE },
	};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		jobopts_init(&o, JOBOPTS_SBATCH);
		const char *av[] = { "sbatch", ex[i].arg, "--wrap=true", NULL };
		is_int(parse(&o, av), 0, "%s parses", ex[i].arg);
		is_int(o.desc.flags & (JOB_F_EXCLUSIVE | JOB_F_EXCLUSIVE_USER | JOB_F_OVERSUBSCRIBE),
		       ex[i].flag, "%s sets its flag alone", ex[i].arg);
		jobopts_release(&o);
	}

	/* errors and their exit statuses */
	jobopts_init(&o, JOBOPTS_SBATCH);
	const char *e1[] = { "sbatch", "-t", "foo", NULL };
	is_int(parse(&o, e1), 255, "bad --time exits 255");
	const char *e2[] = { "sbatch", "-n", "0", NULL };
	is_int(parse(&o, e2), 1, "bad --ntasks exits 1");
	const char *e3[] = { "sbatch", "--bogus", NULL };
	is_int(parse(&o, e3), 255, "unknown option exits 255");
	const char *e4[] = { "sbatch", "-N", "3-1", NULL };
	is_int(parse(&o, e4), 255, "max < min nodes");
	const char *e5[] = { "sbatch", "--array=0-15:4%2", NULL };
	is_int(parse(&o, e5), 0, "--array accepted (the controller checks it)");
	is_str(o.desc.array_inx, "0-15:4%2", "--array kept as typed");
	const char *e6[] = { "sbatch", "--signal=B:USR2@30", "--mail-type=END", "--wckey=x",
		"--get-user-env=L", "--priority=5", NULL };
	is_int(parse(&o, e6), 0, "accepted-and-ignored options");
	is_int(o.desc.warn_signal, 12, "--signal=B:USR2@30: SIGUSR2");
	is_int(o.desc.warn_time, 30, "--signal @30");
	is_int(o.desc.warn_flags, WARN_F_BATCH, "--signal B:");
	const char *e7[] = { "sbatch", "--signal=FOO", NULL };
	is_int(parse(&o, e7), 255, "bad --signal");
	jobopts_release(&o);

	/* --signal forms Slurm 22.05 takes and refuses (checked on realslurm) */
	{
		static const struct { const char *spec; int ok; uint32_t sig, secs, flags; } sv[] = {
			{ "USR2@90", 1, 12, 90, 0 }, { "R:USR1", 1, 10, 60, WARN_F_REQUEUE },
			{ "RB:10@5", 1, 10, 5, WARN_F_BATCH | WARN_F_REQUEUE },
			{ "BR:TERM", 1, 15, 60, WARN_F_BATCH | WARN_F_REQUEUE },
			{ "b:usr1", 1, 10, 60, WARN_F_BATCH }, { "USR1@", 1, 10, 60, 0 },
			{ "USR1@0", 1, 10, 0, 0 }, { "SIGUSR1@65535", 1, 10, 65535, 0 },
			{ "X:USR1", 0, 0, 0, 0 }, { "USR1@-5", 0, 0, 0, 0 },
			{ "USR1@70000", 0, 0, 0, 0 }, { "0", 0, 0, 0, 0 }, { "B:", 0, 0, 0, 0 },
			{ ":USR1", 0, 0, 0, 0 },
		};
		for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]); i++) {
			jobopts_t so;
			jobopts_init(&so, JOBOPTS_SBATCH);
			char *opt = NULL;
			if (asprintf(&opt, "--signal=%s", sv[i].spec) < 0)
				return 1;
			const char *a[] = { "sbatch", opt, NULL };
			int rc = parse(&so, a);
			is_int(rc, sv[i].ok ? 0 : 255, "--signal=%s %s", sv[i].spec,
			       sv[i].ok ? "accepted" : "refused");
			if (sv[i].ok) {
				is_int(so.desc.warn_signal, sv[i].sig, "--signal=%s: signal", sv[i].spec);
				is_int(so.desc.warn_time, sv[i].secs, "--signal=%s: time", sv[i].spec);
				is_int(so.desc.warn_flags, sv[i].flags, "--signal=%s: flags", sv[i].spec);
			}
			free(opt);
			jobopts_release(&so);
		}
	}

	/* gpus */
	jobopts_init(&o, JOBOPTS_SBATCH);
	const char *g1[] = { "sbatch", "--gpus=4", "--gpus-per-node=h100:2", "--gpus-per-node=1", NULL };
	is_int(parse(&o, g1), 0, "gpu options");
	is_str(o.desc.tres_per_job, "gres:gpu:4", "--gpus");
	is_str(o.desc.tres_per_node, "gres:gpu:1", "--gpus-per-node replaces");
	jobopts_release(&o);

	/* srun-specific */
	jobopts_init(&o, JOBOPTS_SRUN);
	const char *s1[] = { "srun", "-N2", "-l", "-u", "--mpi=none", "hostname", "-x", NULL };
	is_int(parse(&o, s1), 0, "srun options");
	ok(o.label && o.unbuffered, "-l and -u");
	is_int(o.argi, 5, "stops at the command");
	const char *s2[] = { "srun", "--parsable", NULL };
	is_int(parse(&o, s2), 255, "sbatch-only option refused by srun");
	jobopts_release(&o);

	/* --mpi: the types served; unknown ones refused */
	jobopts_init(&o, JOBOPTS_SRUN);
	const char *m1[] = { "srun", "--mpi=pmi2", "true", NULL };
	is_int(parse(&o, m1), 0, "--mpi=pmi2 taken");
	is_str(o.mpi, "pmi2", "--mpi kept");
	const char *m2[] = { "srun", "--mpi=bogus", "true", NULL };
	is_int(parse(&o, m2), 1, "--mpi=bogus refused");
	const char *m3[] = { "srun", "--mpi=pmix", "true", NULL };
	is_int(parse(&o, m3), 0, "--mpi=pmix taken (OpenPMIx's server)");
	jobopts_release(&o);
	is_int(mpi_type_parse("pmi2"), MPI_TYPE_PMI2, "pmi2 type");
	is_int(mpi_type_parse("pmix_v4"), MPI_TYPE_PMIX, "pmix_v4 is pmix");
	is_int(mpi_type_parse("PMI2"), -1, "names are exact, as Slurm's plugin names");
	is_int(mpi_type_parse(NULL), MPI_TYPE_NONE, "no type is none");
	ok(mpi_type_supported(MPI_TYPE_PMIX), "pmix served");
	ok(mpi_type_parse("pmix") == MPI_TYPE_PMIX, "pmix type");

	/* directives */
	const char *script =
		"#!/bin/bash\n"
		"# a comment\n"
		"#SBATCH -J dir-name\n"
		"#SBATCH --time=10 # trailing comment\n"
		"\n"
		"#SBATCH --comment=\"two words\"\n"
		"#SBATCHnot-a-directive\n"
		"echo hi\n"
		"#SBATCH -p ignored\n";
	strv_t args = { 0 };
	jobopts_script_args(script, &args);
	is_int(args.n, 5, "directive words");
	if (args.n == 5) {
		is_str(args.v[1], "-J", "word 1");
		is_str(args.v[3], "--time=10", "comment dropped");
		is_str(args.v[4], "--comment=two words", "quotes group");
	}
	strv_free(&args);

	jobopts_init(&o, JOBOPTS_SBATCH);
	is_int(jobopts_parse_script(&o, script), 0, "directives apply");
	is_str(o.desc.name, "dir-name", "directive -J");
	is_int(o.desc.time_limit, 10, "directive --time");
	ok(o.desc.partition == NULL, "directives stop at the first command");
	/* env overrides directives, command line overrides env */
	char *env1[] = { "SBATCH_JOB_NAME=from-env", "SBATCH_PARTITION=short", "SBATCH_REQUEUE=",
		"SLURM_NTASKS=9", "HOME=/h", NULL };
	is_int(jobopts_parse_env(&o, env1), 0, "env applies");
	is_str(o.desc.name, "from-env", "env over directive");
	is_str(o.desc.partition, "short", "SBATCH_PARTITION");
	ok(o.desc.flags & 0x0008u, "SBATCH_REQUEUE flag (empty value)");
	is_int(o.desc.ntasks, 0, "sbatch ignores SLURM_NTASKS");
	const char *c1[] = { "sbatch", "-J", "cli", NULL };
	parse(&o, c1);
	is_str(o.desc.name, "cli", "command line over env");
	jobopts_release(&o);

	jobopts_init(&o, JOBOPTS_SBATCH);
	is_int(jobopts_parse_script(&o, "#!/bin/sh\n#SBATCH --time=bad\n"), 255,
	       "bad directive value");
	jobopts_release(&o);
	jobopts_init(&o, JOBOPTS_SBATCH);
	is_int(jobopts_parse_script(&o, "#!/bin/sh\n#SBATCH -J x stray\n"), 1,
	       "operand in a directive");
	jobopts_release(&o);

	/* srun reads SLURM_* */
	jobopts_init(&o, JOBOPTS_SRUN);
	char *env2[] = { "SLURM_NTASKS=4", "SLURM_NNODES=2", "SLURM_LABELIO=1", NULL };
	jobopts_parse_env(&o, env2);
	is_int(o.desc.ntasks, 4, "SLURM_NTASKS");
	is_int(o.desc.min_nodes, 2, "SLURM_NNODES");
	ok(o.label, "SLURM_LABELIO");
	ok(!o.cli_ntasks && o.ntasks_set, "env ntasks is not a command-line one");
	jobopts_release(&o);

	/* SLURM_STEP_GRES: srun's --gres only when none was given */
	jobopts_init(&o, JOBOPTS_SRUN);
	is_int(jobopts_step_gres(&o, "gpu:1"), 0, "SLURM_STEP_GRES applies");
	is_str(o.desc.tres_per_node, "gres:gpu:1", "SLURM_STEP_GRES as --gres");
	jobopts_release(&o);
	jobopts_init(&o, JOBOPTS_SRUN);
	char *env_g[] = { "SLURM_GRES=gpu:3", NULL };
	jobopts_parse_env(&o, env_g);
	jobopts_step_gres(&o, "gpu:1");
	is_str(o.desc.tres_per_node, "gres:gpu:3", "SLURM_GRES wins over SLURM_STEP_GRES");
	jobopts_release(&o);
	jobopts_init(&o, JOBOPTS_SRUN);
	const char *cg[] = { "srun", "--gres=none", NULL };
	parse(&o, cg);
	jobopts_step_gres(&o, "gpu:1");
	is_str(o.desc.tres_per_node, "gres:none", "srun --gres=none: none (and wins)");
	jobopts_release(&o);

	/* --export */
	char *env3[] = { "HOME=/home/u", "EDITOR=vi", "SLURM_CONF=/etc/s.conf", "PATH=/bin", NULL };
	jobopts_init(&o, JOBOPTS_SBATCH);
	jobopts_build_env(&o, env3);
	is_int(o.desc.env.n, 5 + (int)rlim_count,
	       "default exports all, SLURM_UMASK and the SLURM_RLIMIT_* set");
	ok(env_has_name(&o.desc.env, "SLURM_RLIMIT_NOFILE"), "the caller's NOFILE limit");
	mode_t mask = umask(027);
	jobopts_build_env(&o, env3);
	ok(env_has(&o.desc.env, "SLURM_UMASK=0027"), "SLURM_UMASK is the umask, 4 octal digits");
	umask(mask);
	jobopts_release(&o);

	char *env4[] = { "SLURM_UMASK=0077", NULL };
	jobopts_init(&o, JOBOPTS_SRUN);
	jobopts_build_env(&o, env4);
	ok(env_has(&o.desc.env, "SLURM_UMASK=0077") && o.desc.env.n == 1 + rlim_count,
	   "a SLURM_UMASK in the environment (srun in a job) is kept");
	jobopts_release(&o);

	/* --propagate=CORE: only that limit, marked U (the node applies it
	 * whatever its PropagateResourceLimits says) */
	jobopts_init(&o, JOBOPTS_SRUN);
	const char *pr[] = { "srun", "--propagate=CORE", NULL };
	is_int(parse(&o, pr), 0, "--propagate=CORE");
	jobopts_build_env(&o, env4);
	is_int(o.desc.env.n, 2, "one limit and the umask");
	ok(!strncmp(o.desc.env.v[0], "SLURM_RLIMIT_CORE=U", 19) ||
	   !strncmp(o.desc.env.v[1], "SLURM_RLIMIT_CORE=U", 19), "SLURM_RLIMIT_CORE=U<n>");
	jobopts_release(&o);
	jobopts_init(&o, JOBOPTS_SRUN);
	const char *pn[] = { "srun", "--propagate=NONE", NULL };
	is_int(parse(&o, pn), 0, "--propagate=NONE");
	jobopts_build_env(&o, env4);
	is_int(o.desc.env.n, 1, "--propagate=NONE: no limit sent");
	jobopts_release(&o);
	jobopts_init(&o, JOBOPTS_SRUN);
	const char *pb[] = { "srun", "--propagate=CORE,nofile", NULL };
	is_int(parse(&o, pb), 1, "--propagate with a bad name exits 1");
	jobopts_release(&o);

	jobopts_init(&o, JOBOPTS_SBATCH);
	o.export_spec = strdup("NONE");
	jobopts_build_env(&o, env3);
	ok(env_has(&o.desc.env, "SLURM_CONF=/etc/s.conf"), "NONE keeps SLURM_*");
	ok(!env_has_name(&o.desc.env, "HOME"), "NONE drops the rest");
	ok(env_has(&o.desc.env, "SLURM_EXPORT_ENV=NONE"), "SLURM_EXPORT_ENV set");
	jobopts_release(&o);

	jobopts_init(&o, JOBOPTS_SBATCH);
	o.export_spec = strdup("EDITOR,ARG1=test");
	jobopts_build_env(&o, env3);
	ok(env_has(&o.desc.env, "EDITOR=vi"), "named variable kept");
	ok(env_has(&o.desc.env, "ARG1=test"), "explicit value added");
	ok(!env_has_name(&o.desc.env, "PATH"), "others dropped");
	jobopts_release(&o);

	jobopts_init(&o, JOBOPTS_SBATCH);
	o.export_spec = strdup("ALL,EDITOR=emacs,NEW=1");
	jobopts_build_env(&o, env3);
	ok(env_has(&o.desc.env, "EDITOR=emacs"), "ALL: the explicit value wins, as in Slurm");
	ok(!env_has(&o.desc.env, "EDITOR=vi"), "ALL: the caller's value is replaced");
	ok(env_has(&o.desc.env, "NEW=1"), "ALL: new value added");
	ok(env_has(&o.desc.env, "PATH=/bin"), "ALL keeps everything");
	jobopts_release(&o);

	/* wrap and script checks */
	char *w = jobopts_wrap_script("echo hi");
	is_str(w, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\necho hi\n", "wrap script");
	is_int(jobopts_check_script(w, strlen(w)), 0, "wrap script is valid");
	free(w);
	is_int(jobopts_check_script("", 0), 1, "empty script");
	is_int(jobopts_check_script(" \n", 2), 1, "whitespace script");
	is_int(jobopts_check_script("echo\n", 5), 1, "no shebang");
	is_int(jobopts_check_script("#!/bin/sh\r\n", 11), 1, "DOS line breaks");

	/* helpers */
	uint32_t mn, mx;
	is_int(jobopts_node_count("3", &mn, &mx), 0, "node count");
	is_int(mn, 3, "min");
	is_int(mx, 0, "no max");
	is_int(jobopts_node_count("1k", &mn, &mx), 0, "k suffix");
	is_int(mn, 1024, "1k");
	is_int(jobopts_node_count("abc", &mn, &mx), -1, "bad node count");
	is_int(jobopts_node_count("-4", &mn, &mx), 0, "-N -4 (no minimum)");
	is_int(mn, 1, "-4: minimum 1, as Slurm");
	is_int(mx, 4, "-4: maximum 4");
	is_int(jobopts_node_count("0-2", &mn, &mx), 0, "-N 0-2");
	is_int(mn, 0, "0-2 min");
	is_int(mx, 2, "0-2 max");
	is_int(jobopts_node_count("4-", &mn, &mx), -2, "-N 4-: no maximum");
	is_int(jobopts_node_count("-", &mn, &mx), -2, "-N -");
	{
		jobopts_t n;
		jobopts_init(&n, JOBOPTS_SBATCH);
		const char *a[] = { "sbatch", "-N", "4-", NULL };
		is_int(parse(&n, a), 255, "-N 4- exits 255");
		jobopts_release(&n);
		jobopts_init(&n, JOBOPTS_SBATCH);
		const char *b[] = { "sbatch", "-N-3", NULL };
		is_int(parse(&n, b), 0, "-N-3 glued");
		is_int(n.desc.min_nodes, 1, "-N-3 min");
		is_int(n.desc.max_nodes, 3, "-N-3 max");
		jobopts_release(&n);
	}
	is_int(jobopts_signal_parse("USR1"), 10, "USR1");
	is_int(jobopts_signal_parse("SIGKILL"), 9, "SIGKILL");
	is_int(jobopts_signal_parse("15"), 15, "numeric");
	is_int(jobopts_signal_parse("FOO"), -1, "unknown signal");

	/* -O, --mincpus, --tmp, --deadline, --test-only (Slurm 22.05) */
	{
		jobopts_t n;
		jobopts_init(&n, JOBOPTS_SBATCH);
		const char *a[] = { "sbatch", "-O", "--mincpus=4", "--tmp=2G", "--test-only",
			"--deadline=2037-01-01T10:00:00", "-v", "job.sh", NULL };
		is_int(parse(&n, a), 0, "new options parse");
		ok(n.desc.flags & JOB_F_OVERCOMMIT, "-O sets overcommit");
		ok(n.desc.flags & JOB_F_TEST_ONLY, "--test-only flag");
		is_int(n.desc.pn_min_cpus, 4, "--mincpus");
		is_int(n.desc.pn_min_tmp, 2048, "--tmp=2G in MB");
		time_t t;
		time_abs_parse("2037-01-01T10:00:00", 0, &t);
		ok(n.desc.deadline == (int64_t)t, "--deadline as a time");
		is_int(jobopts_check(&n), 0, "deadline without begin is fine");
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = open_memstream(&buf, &len);
		jobopts_print_defined(&n, fp);
		fclose(fp);
		ok(strstr(buf, "sbatch: tmp                 : 2G\n") != NULL, "-v lists tmp as 2G");
		ok(strstr(buf, "sbatch: overcommit          : set\n") != NULL, "-v: overcommit set");
		ok(strstr(buf, "sbatch: deadline            : 2037-01-01T10:00:00\n") != NULL,
		   "-v: deadline in ISO form");
		ok(strstr(buf, "sbatch: test-only           : set\n") != NULL, "-v: test-only set");
		free(buf);
		jobopts_release(&n);

		jobopts_init(&n, JOBOPTS_SBATCH);
		const char *b[] = { "sbatch", "--tmp=100", "--overcommit", NULL };
		is_int(parse(&n, b), 0, "--tmp without unit, --overcommit");
		is_int(n.desc.pn_min_tmp, 100, "--tmp=100 is MB");
		ok(n.desc.flags & JOB_F_OVERCOMMIT, "--overcommit");
		jobopts_release(&n);

		const char *bad[][3] = {
			{ "sbatch", "--mincpus=0", NULL }, { "sbatch", "--mincpus=x", NULL },
			{ "sbatch", "--tmp=abc", NULL }, { "sbatch", "--deadline=garbage", NULL },
		};
		const int want[] = { 1, 1, 255, 255 };
		for (size_t i = 0; i < 4; i++) {
			jobopts_init(&n, JOBOPTS_SBATCH);
			is_int(parse(&n, bad[i]), want[i], "%s refused with Slurm's status", bad[i][1]);
			jobopts_release(&n);
		}

		jobopts_init(&n, JOBOPTS_SRUN);
		const char *c[] = { "srun", "--begin=now+1hour", "--deadline=now+5minutes", "true", NULL };
		is_int(parse(&n, c), 0, "srun --begin/--deadline parse");
		is_int(jobopts_check(&n), 1, "begin after deadline: exit 1");
		jobopts_release(&n);

		jobopts_init(&n, JOBOPTS_SRUN);
		char *env[] = { "SLURM_OVERCOMMIT=1", NULL };
		is_int(jobopts_parse_env(&n, env), 0, "SLURM_OVERCOMMIT");
		ok(n.desc.flags & JOB_F_OVERCOMMIT, "SLURM_OVERCOMMIT=1 is -O for srun");
		jobopts_release(&n);
		jobopts_init(&n, JOBOPTS_SBATCH);
		char *env2[] = { "SBATCH_OVERCOMMIT=", NULL };
		is_int(jobopts_parse_env(&n, env2), 0, "SBATCH_OVERCOMMIT");
		ok(n.desc.flags & JOB_F_OVERCOMMIT, "SBATCH_OVERCOMMIT (empty) is -O for sbatch");
		jobopts_release(&n);
	}

	return done_testing();
}
