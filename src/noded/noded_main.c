/*
 * noded_main: `sluice noded`, the node daemon (slurmd's role).
 *
 * Startup does everything that can fail before detaching, so errors reach
 * the shell that started it (config errors, all of them; an unknown node
 * name; the spool dir; the step port). Then: one event loop with the
 * controller link (ctld_link.c) and the srun step port (step.c). Jobs run
 * in detached supervisors (supervisor.c) that outlive this process; a
 * restarted noded finds them through the spool (spool.c) and lists them in
 * its registration.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "daemon.h"
#include "cgroup.h"
#include "metrics.h"
#include "noded.h"
#include "health.h"
#include "conf_files.h"
#include "xalloc.h"

#define CONF_CACHE_DEFAULT "/var/spool/slurmd/conf-cache"

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: sluice noded [OPTIONS]\n"
		"  -D            run in the foreground, log to stderr\n"
		"  -N nodename   run as this NodeName from slurm.conf\n"
		"  -f file       use this slurm.conf\n"
		"  --conf-server host[:port]\n"
		"                configless: fetch the config files from the controller\n"
		"                (SlurmctldParameters=enable_configless; port 6817 by default)\n"
		"  --conf-cache dir\n"
		"                where fetched files are kept (default " CONF_CACHE_DEFAULT ")\n"
		"  --authinfo info\n"
		"                configless: sign with this AuthInfo (key=PATH: auth/slurm)\n"
		"  -v            more verbose (repeat for more)\n"
		"  -h            show this help\n");
}

/* mkdir -p with mode for the directories it creates. */
static int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return rc;
}

static char *short_hostname(void)
{
	char h[256];
	if (gethostname(h, sizeof(h)) < 0)
		return xstrdup("localhost");
	h[sizeof(h) - 1] = '\0';
	h[strcspn(h, ".")] = '\0';
	return xstrdup(h);
}

/* The node this host is when -N is not given: NodeHostname or NodeName
 * equal to the short host name. */
static long find_self(const conf_t *conf, const char *host)
{
	for (size_t i = 0; i < conf->nnodes; i++)
		if (conf->nodes[i].hostname && !strcmp(conf->nodes[i].hostname, host))
			return (long)i;
	return conf_node_find(conf, host);
}

/* The log settings of a config (SlurmdDebug + -v, SlurmdLogFile). */
static void log_settings(const noded_t *nd, const conf_t *conf, enum log_level *lvl, char **file)
{
	int l = conf->slurmd_debug > 0 ? conf->slurmd_debug : LOG_LVL_INFO;
	l += nd->verbose_n;
	*lvl = (enum log_level)(l > LOG_LVL_DEBUG2 ? LOG_LVL_DEBUG2 : l);
	*file = NULL;
	if (!nd->foreground && conf->slurmd_log_file) {
		char *host = short_hostname();
		*file = conf_expand_path(conf->slurmd_log_file, nd->name, host);
		free(host);
	}
}

static int str_eq(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The keys whose value differs between two configs, as "A, B" (malloc'd;
 * NULL: none), from the lines `scontrol show config` prints. */
static char *changed_keys(const conf_t *a, const conf_t *b)
{
	char **ka, **va, **kb, **vb;
	size_t na = conf_show_lines(a, &ka, &va), nb = conf_show_lines(b, &kb, &vb);
	strbuf_t sb = STRBUF_INIT;
	for (size_t i = 0; i < nb; i++) {
		size_t j = i < na && !strcmp(ka[i], kb[i]) ? i : na;
		for (size_t k = 0; j == na && k < na; k++)
			if (!strcmp(ka[k], kb[i]))
				j = k;
		if (j < na && str_eq(va[j], vb[i]))
			continue;
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", kb[i]);
	}
	for (size_t i = 0; i < na; i++) {
		free(ka[i]);
		free(va[i]);
	}
	for (size_t i = 0; i < nb; i++) {
		free(kb[i]);
		free(vb[i]);
	}
	free(ka);
	free(va);
	free(kb);
	free(vb);
	return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

/* What a running node daemon keeps until it restarts: its ports, spool
 * and pid file, how it signs, and the hardware it reports (a node must
 * not grow under its running jobs; the controller drains one that now
 * reports less than configured, as Slurm's "Low CPUs"). Each said. */
static void say_restart_needed(const noded_t *nd, const conf_t *nc, const conf_node_t *nn)
{
	const conf_t *bc = nd->boot_conf;
	const conf_node_t *bn = nd->boot_node;
	const char *what = "needs a restart of this node daemon";
	if (nn->port != bn->port)
		info("reconfigure: Port changed (%u -> %u): %s", bn->port, nn->port, what);
	if (conf_node_metrics_port(nc, nn) != conf_node_metrics_port(bc, bn))
		info("reconfigure: SlurmdMetricsPort changed (%u -> %u): %s",
		     (unsigned)conf_node_metrics_port(bc, bn), (unsigned)conf_node_metrics_port(nc, nn),
		     what);
	struct { const char *key; uint64_t was, now; } hw[] = {
		{ "CPUs", bn->cpus, nn->cpus }, { "Boards", bn->boards, nn->boards },
		{ "Sockets", bn->sockets, nn->sockets },
		{ "CoresPerSocket", bn->cores_per_socket, nn->cores_per_socket },
		{ "ThreadsPerCore", bn->threads_per_core, nn->threads_per_core },
		{ "RealMemory", bn->real_memory, nn->real_memory },
		{ "TmpDisk", bn->tmp_disk, nn->tmp_disk },
	};
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++)
		if (hw[i].was != hw[i].now)
			info("reconfigure: %s changed (%" PRIu64 " -> %" PRIu64 "): %s (it reports %"
			     PRIu64 " until then)", hw[i].key, hw[i].was, hw[i].now, what, hw[i].was);
	struct { const char *key, *was, *now; } fixed[] = {
		{ "SlurmdSpoolDir", bc->slurmd_spool_dir, nc->slurmd_spool_dir },
		{ "SlurmdPidFile", bc->slurmd_pid_file, nc->slurmd_pid_file },
		{ "AuthType", bc->auth_type, nc->auth_type },
		{ "AuthInfo", bc->auth_info, nc->auth_info },
		{ "SlurmUser", bc->slurm_user, nc->slurm_user },
		{ "HealthCheckInterval", conf_get(bc, "HealthCheckInterval"),
		  conf_get(nc, "HealthCheckInterval") },
		{ "HealthCheckNodeState", conf_get(bc, "HealthCheckNodeState"),
		  conf_get(nc, "HealthCheckNodeState") },
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!str_eq(fixed[i].was, fixed[i].now))
			info("reconfigure: %s changed: %s", fixed[i].key, what);
}

/* scontrol reconfigure and SIGHUP, as slurmd's: re-read slurm.conf and
 * the files next to it and put the new config in force for what comes
 * next: Prolog, Epilog, TaskProlog, TaskEpilog, PrologFlags and their
 * timeout, gres.conf (devices of new jobs, what the node reports),
 * cgroup.conf (limits of new jobs), health.conf and HealthCheckProgram,
 * the log keys (the log is reopened in any case, for logrotate). What is
 * fixed at start is said (say_restart_needed). Running jobs are their
 * supervisors' and are not touched. */
void noded_reconfigure(noded_t *nd)
{
	if (nd->conf_server) {
		char *err = NULL;
		if (configless_fetch(nd, &err) < 0)
			error("reconfigure: %s: the cached files in %s are read", err, nd->conf_cache);
		free(err);
	}
	conf_t *nc = conf_load(nd->conf_path, CONF_FULL);
	char *aerr = NULL;
	if (!nc->nerrors && nd->conf_server && configless_auth_fix(nd, nc, &aerr) < 0) {
		error("reconfigure: %s: config not applied", aerr);
		free(aerr);
		conf_destroy(nc);
		log_init("slurmd", 1, nd->log_level, nd->log_file);
		return;
	}
	if (nc->nerrors) {
		for (size_t i = 0; i < nc->nerrors; i++)
			error("reconfigure: %s", nc->errors[i]);
		error("reconfigure: config not applied");
		conf_destroy(nc);
		log_init("slurmd", 1, nd->log_level, nd->log_file);
		return;
	}
	long idx = conf_node_find(nc, nd->name);
	if (idx < 0) {
		error("reconfigure: node %s is no longer in slurm.conf; restart or stop this daemon "
		      "(config not applied)", nd->name);
		conf_destroy(nc);
		log_init("slurmd", 1, nd->log_level, nd->log_file);
		return;
	}
	enum log_level lvl;
	char *file;
	log_settings(nd, nc, &lvl, &file);
	free(nd->log_file);
	nd->log_file = file;
	nd->log_level = lvl;
	log_init("slurmd", 1, nd->log_level, nd->log_file);
	log_apply_conf(nc, 0, nd->foreground, nd->log_file != NULL, nd->name);

	char *changed = changed_keys(nd->conf, nc);
	say_restart_needed(nd, nc, &nc->nodes[idx]);
	conf_t *old = nd->conf;
	nd->conf = nc;
	nd->node = &nc->nodes[idx];
	noded_cgroup_reload(nd, old);
	resources_rescan();          /* gres.conf: the next registration */
	health_reload(nd->health);
	info("reconfigure: slurm.conf re-read (log level %d), changed: %s", (int)nd->log_level,
	     changed ? changed : "nothing");
	free(changed);
	if (old != nd->boot_conf)
		conf_destroy(old);
}

static void on_signal(loop_t *l, int fd, uint32_t events, void *arg)
{
	noded_t *nd = arg;
	struct signalfd_siginfo si;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			noded_reconfigure(nd);
		} else if (si.ssi_signo == SIGUSR2) {
			/* logrotate, as slurmd: reopen the log file */
			log_init("slurmd", 1, nd->log_level, nd->log_file);
			info("log reopened");
		} else {
			info("caught signal %u, shutting down (jobs keep running)", si.ssi_signo);
			loop_stop(l);
		}
	}
}

static void before_sleep(loop_t *l, void *arg)
{
	conn_flush_all(l);
}

static void stop_cb(loop_t *l, void *arg)
{
	loop_stop(l);
}

int cmd_noded(int argc, char **argv)
{
	int foreground = 0, verbose_n = 0, opt;
	const char *node_name = NULL, *conf_path = NULL;
	const char *conf_server = NULL, *conf_cache = NULL, *authinfo = NULL;
	log_init("slurmd", 0, LOG_LVL_INFO, NULL);
	static const struct option longopts[] = {
		{ "conf-server", required_argument, NULL, 1 },
		{ "conf-cache", required_argument, NULL, 2 },
		{ "authinfo", required_argument, NULL, 3 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	optind = 1;
	while ((opt = getopt_long(argc, argv, "DN:f:vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'D': foreground = 1; break;
		case 'N': node_name = optarg; break;
		case 'f': conf_path = optarg; break;
		case 'v': verbose_n++; break;
		case 1: conf_server = optarg; break;
		case 2: conf_cache = optarg; break;
		case 3: authinfo = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "slurmd: error: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	if (conf_server && conf_path) {
		fprintf(stderr, "slurmd: error: --conf-server and -f exclude each other\n");
		return 1;
	}
	/* A daemon keeps nothing of its starter but stdio (pipes held open
	 * would keep a starting ssh or script waiting, and are no business
	 * of ours); nothing of our own is open yet. */
	if (!foreground)
		close_range(3, ~0u, 0);

	/* Configless: the files come from the controller into the cache,
	 * and are read from there like a local slurm.conf. */
	noded_t boot = { 0 };
	char *cache_conf = NULL;
	if (conf_server) {
		if (conf_server_parse(conf_server, 6817, &boot.conf_server, &boot.conf_port) < 0) {
			fprintf(stderr, "slurmd: error: bad --conf-server '%s': HOST[:PORT]\n", conf_server);
			return 1;
		}
		boot.conf_cache = xstrdup(conf_cache ? conf_cache : CONF_CACHE_DEFAULT);
		boot.auth_conf = configless_boot_auth(authinfo);
		char *err = NULL;
		int f = configless_fetch(&boot, &err);
		cache_conf = xasprintf("%s/slurm.conf", boot.conf_cache);
		if (f == -2 || (f < 0 && access(cache_conf, R_OK) < 0))
			fatal("configless: %s%s%s", err, f == -2 ? "" : "; no cached config in ",
			      f == -2 ? "" : boot.conf_cache);
		if (f < 0)
			error("configless: %s: starting from the cached config in %s", err, boot.conf_cache);
		free(err);
		conf_path = cache_conf;
	}
	conf_t *conf = conf_load(conf_path, CONF_FULL);
	char *aerr = NULL;
	if (!conf->nerrors && conf_server && configless_auth_fix(&boot, conf, &aerr) < 0)
		fatal("configless: %s", aerr);
	if (conf->nerrors) {
		for (size_t i = 0; i < conf->nerrors; i++)
			error("%s", conf->errors[i]);
		conf_destroy(conf);
		return 1;
	}
	char *host = short_hostname();
	long idx = node_name ? conf_node_find(conf, node_name) : find_self(conf, host);
	if (idx < 0) {
		fatal("node name '%s' not found in slurm.conf", node_name ? node_name : host);
	}

	noded_t *nd = xcalloc(1, sizeof(*nd));
	nd->conf = nd->boot_conf = conf;
	nd->node = nd->boot_node = &conf->nodes[idx];
	nd->name = xstrdup(nd->node->name);
	nd->listen_fd = -1;
	nd->start_time = time(NULL);
	/* The argv strings are contiguous as the kernel laid them out; the
	 * supervisors overwrite them with their own title. */
	nd->title = argv[0];
	nd->title_len = strlen(argv[0]) + 1;
	for (int i = 1; i < argc && argv[i] == nd->title + nd->title_len; i++)
		nd->title_len += strlen(argv[i]) + 1;
	const char *spool_tmpl = conf->slurmd_spool_dir ? conf->slurmd_spool_dir : "/var/spool/slurmd";
	nd->spool = conf_expand_path(spool_tmpl, nd->name, host);
	if (mkdir_p(nd->spool, 0755) < 0 || access(nd->spool, W_OK | X_OK) < 0)
		fatal("unable to use spool dir '%s': %s", nd->spool, strerror(errno));

	nd->conf_path = conf_path;
	nd->conf_server = boot.conf_server;
	nd->conf_port = boot.conf_port;
	nd->conf_cache = boot.conf_cache;
	nd->auth_conf = boot.auth_conf;
	nd->verbose_n = verbose_n;
	nd->foreground = foreground;
	log_settings(nd, conf, &nd->log_level, &nd->log_file);
	log_init("slurmd", 0, nd->log_level, NULL);
	/* A daemon logs only to its file: one it cannot open is a start-up
	 * error, said here where it reaches the starting shell. */
	if (nd->log_file) {
		int lf = open(nd->log_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
		if (lf < 0)
			fatal("unable to open log file '%s': %s", nd->log_file, strerror(errno));
		close(lf);
	}

	char *err = NULL;
	nd->auth = auth_create(nd->auth_conf ? nd->auth_conf : conf, &err);
	if (!nd->auth)
		fatal("authentication setup failed: %s", err ? err : "unknown error");
	auth_set_not_before(nd->auth, 0);   /* no replay of pre-restart captures */
	if (!auth_can_sign(nd->auth))
		fatal("cannot sign messages (no access to the cluster key?): the node daemon must run as root or SlurmUser");
	struct passwd *pw = conf->slurm_user ? getpwnam(conf->slurm_user) : NULL;
	nd->slurm_uid = pw ? pw->pw_uid : 0;

	signal(SIGPIPE, SIG_IGN);
	nd->loop = loop_create();
	if (step_server_start(nd) < 0)
		fatal("unable to listen on port %u: %s", nd->node->port, strerror(errno));
	if (metrics_start(nd, &err) < 0)
		fatal("%s", err);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);

	if (!foreground) {
		/* The pid file is written by the parent, so that it is in
		 * place when the starting shell gets control back and a
		 * failure reaches that shell (said, not fatal, as for slurmd). */
		char *pf = conf->slurmd_pid_file ?
			conf_expand_path(conf->slurmd_pid_file, nd->name, host) : NULL;
		fflush(NULL);
		pid_t p = fork();
		if (p < 0)
			fatal("fork: %s", strerror(errno));
		if (p > 0) {
			if (pf && pidfile_write(pf, p) < 0)
				error("cannot write pid file %s: %s", pf, strerror(errno));
			_exit(0);
		}
		free(pf);
		setsid();
		int dn = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (dn >= 0) {
			dup2(dn, 0);
			dup2(dn, 1);
			if (nd->log_file)
				dup2(dn, 2);
			if (dn > 2)
				close(dn);
		}
	}
	/* After the fork: epoll reports a signalfd's readiness for the
	 * process that registered it. */
	int sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0 || loop_add_fd(nd->loop, sigfd, LOOP_READ, on_signal, nd) < 0)
		fatal("signalfd: %s", strerror(errno));
	log_init("slurmd", 1, nd->log_level, nd->log_file);
	log_apply_conf(conf, 0, foreground, nd->log_file != NULL, nd->name);
	info("slurmd version %s started on node %s, port %u, spool %s", SLURM_COMPAT_VERSION,
	     nd->name, nd->node->port, nd->spool);
	if (conf->nunsupported)
		verbose("%zu slurm.conf key(s) accepted but not acted on", conf->nunsupported);

	noded_cgroup_init(nd);
	metrics_start_hw(nd);
	nd->health = health_create(nd, NULL, NULL);
	health_start(nd->health);
	loop_set_before_sleep(nd->loop, before_sleep, nd);
	nd->reconfigure = noded_reconfigure;
	nd->link = ctld_link_start(nd);
	loop_run(nd->loop);

	ctld_link_destroy(nd->link);
	health_destroy(nd->health);
	nd->health = NULL;
	metrics_destroy(nd->metrics);
	nd->metrics = NULL;
	conn_flush_all(nd->loop);
	/* Closed conns are freed by zero-delay loop timers: a last turn runs
	 * them (the 1 ms stop timer comes after them in the heap). */
	loop_add_timer(nd->loop, 1, stop_cb, NULL);
	loop_run(nd->loop);
	loop_destroy(nd->loop);
	close(sigfd);
	auth_destroy(nd->auth);
	cgroup_close(nd->cgroup);
	free(nd->spool);
	free(nd->log_file);
	free(nd->name);
	free(host);
	free(nd->conf_server);
	free(nd->conf_cache);
	conf_destroy(nd->auth_conf);
	free(cache_conf);
	if (nd->conf != conf)
		conf_destroy(nd->conf);
	free(nd);
	conf_destroy(conf);
	return 0;
}
