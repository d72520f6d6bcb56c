/*
 * ctld_main.c: `sluice ctld`, the controller: startup (config, state DB
 * recovery, listeners), the event loop hooks and the periodic timers.
 *
 * The loop's before_sleep hook is where durability is enforced: run a
 * scheduling pass if something changed (at most every 50 ms), write every
 * dirty record in one transaction and commit, and only then flush the
 * queued replies and launches (conn_flush_all).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "ctld/ctld.h"

#include "errors.h"
#include "log.h"
#include "timefmt.h"
#include "xalloc.h"

#define SCHED_MIN_INTERVAL_MS 50
#define PERIODIC_MS 5000

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sluice ctld [-D] [-v...] [-f slurm.conf]\n"
		"  -D          run in the foreground, log to stderr\n"
		"  -v          more verbose (repeatable)\n"
		"  -f FILE     slurm.conf to read (default $SLURM_CONF or %s)\n"
		"  -h          this help\n", CONF_DEFAULT_PATH);
}

static void sched_timer_cb(loop_t *l, void *arg)
{
	ctld_t *cd = arg;
	cd->sched_timer = 0;
	/* before_sleep runs after this turn and does the pass. */
	(void)l;
}

static void before_sleep(loop_t *l, void *arg)
{
	ctld_t *cd = arg;
	if (cd->sched_needed) {
		uint64_t now = loop_now_ms(l);
		if (cd->sched_now || now - cd->last_sched_ms >= SCHED_MIN_INTERVAL_MS ||
		    !cd->last_sched_ms) {
			cd->sched_needed = 0;
			cd->sched_now = 0;
			cd->last_sched_ms = now;
			ctld_schedule(cd);
		} else if (!cd->sched_timer) {
			cd->sched_timer = loop_add_timer(l, SCHED_MIN_INTERVAL_MS - (now - cd->last_sched_ms),
							 sched_timer_cb, cd);
		}
	}
	/* Durability before replies: if this turn's changes did not reach the
	 * database, nothing of it may be acknowledged. Exit without flushing;
	 * clients see the connection drop, and a restart recovers exactly what
	 * was committed. */
	if (db_commit(cd))
		fatal("state db commit failed; exiting without acknowledging this turn's changes");
	conn_flush_all(l);
	if (cd->shutdown)
		loop_stop(l);
}

/* Node liveness on its own, shorter period (SlurmdTimeout / 4): pings
 * and timeouts, and the detection of time this loop did not run. */
static void nodes_cb(loop_t *l, void *arg)
{
	ctld_t *cd = arg;
	nodes_periodic(cd, ctld_now());
	loop_add_timer(l, nodes_tick_interval(cd), nodes_cb, cd);
}

static void periodic_cb(loop_t *l, void *arg)
{
	ctld_t *cd = arg;
	int64_t now = ctld_now();
	jobs_periodic(cd, now);
	ctld_sched_request(cd);
	loop_add_timer(l, PERIODIC_MS, periodic_cb, cd);
}

static void signal_cb(loop_t *l, int fd, uint32_t events, void *arg)
{
	ctld_t *cd = arg;
	struct signalfd_siginfo si;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			info("signal %u: shutting down", si.ssi_signo);
			cd->shutdown = 1;
			loop_stop(l);
		} else if (si.ssi_signo == SIGHUP) {
			char *msg = NULL;
			info("SIGHUP: reconfigure");
			if (ctld_reconfigure(cd, &msg))
				error("reconfigure refused, running config kept:\n%s", msg);
			free(msg);
		}
	}
	(void)events;
}

static int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, mode) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int rc = mkdir(p, mode) && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

static void load_priority(ctld_t *cd)
{
	const char *pt = cd->conf->priority_type;
	cd->multifactor = pt && strstr(pt, "multifactor") != NULL;
	const char *v;
	cd->w_age = (v = conf_get(cd->conf, "PriorityWeightAge")) ? (uint32_t)strtoul(v, NULL, 10) : 0;
	cd->w_part = (v = conf_get(cd->conf, "PriorityWeightPartition")) ? (uint32_t)strtoul(v, NULL, 10) : 0;
	cd->w_size = (v = conf_get(cd->conf, "PriorityWeightJobSize")) ? (uint32_t)strtoul(v, NULL, 10) : 0;
	uint32_t mins = 7 * 24 * 60;
	if ((v = conf_get(cd->conf, "PriorityMaxAge")))
		time_limit_parse(v, &mins);
	cd->max_age_s = mins == TIME_INFINITE ? 0 : mins * 60;
}

static int daemonize(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	setsid();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

/* The controller's state lives until the process exits and is not freed
 * at shutdown (that would buy nothing). Holding it in a global keeps it
 * reachable, deterministically, for the leak checks at exit (LeakSanitizer,
 * valgrind), which then report only memory truly lost while running.
 * volatile: the store must stay although nothing reads it. */
static ctld_t *volatile ctld_state;

int cmd_ctld(int argc, char **argv)
{
	int foreground = 0, verbose_n = 0, opt;
	const char *conf_path = NULL;
	optind = 1;
	while ((opt = getopt(argc, argv, "+Dvf:h")) != -1) {
		switch (opt) {
		case 'D': foreground = 1; break;
		case 'v': verbose_n++; break;
		case 'f': conf_path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sluice ctld: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 1;
	}
	log_init("sluice-ctld", 1, LOG_LVL_INFO, NULL);
	conf_t *conf = conf_load(conf_path, CONF_FULL);
	if (conf->nerrors) {
		for (size_t i = 0; i < conf->nerrors; i++)
			fprintf(stderr, "sluice ctld: %s\n", conf->errors[i]);
		conf_destroy(conf);
		return 1;
	}
	int level = conf->slurmctld_debug ? conf->slurmctld_debug : LOG_LVL_INFO;
	level += verbose_n;
	if (level > LOG_LVL_DEBUG2)
		level = LOG_LVL_DEBUG2;
	const char *logfile = foreground ? NULL : conf->slurmctld_log_file;
	ctld_t *cd = xcalloc(1, sizeof(*cd));
	ctld_state = cd;
	cd->conf = conf;
	cd->boot_time = ctld_now();
	ctld_stats_init(cd);
	cd->slurm_uid = 0;
	if (conf->slurm_user) {
		struct passwd pw, *res = NULL;
		char buf[4096];
		if (getpwnam_r(conf->slurm_user, &pw, buf, sizeof(buf), &res) == 0 && res)
			cd->slurm_uid = pw.pw_uid;
		else if (strcmp(conf->slurm_user, "root")) {
			fprintf(stderr, "sluice ctld: SlurmUser '%s' does not exist\n", conf->slurm_user);
			return 1;
		}
	}
	const char *ssl = conf->state_save_location;
	if (!ssl || mkdir_p(ssl, 0755)) {
		fprintf(stderr, "sluice ctld: cannot create StateSaveLocation '%s': %s\n",
			ssl ? ssl : "(null)", strerror(errno));
		return 1;
	}
	char *err = NULL;
	cd->auth = auth_create(conf, &err);
	if (!cd->auth) {
		fprintf(stderr, "sluice ctld: %s\n", err ? err : "authentication setup failed");
		return 1;
	}
	cd->next_job_id = conf->first_job_id ? conf->first_job_id : 1;
	nodes_init(cd);
	sched_glue_build(cd);
	load_priority(cd);
	char *dbpath = xasprintf("%s/sluice.db", ssl);
	if (db_open(cd, dbpath, &err)) {
		fprintf(stderr, "sluice ctld: %s\n", err);
		return 1;
	}
	free(dbpath);

	cd->loop = loop_create();
	int tfd = net_listen_tcp(cd->loop, cd->auth, NULL, conf->ctld_port, rpc_on_msg, rpc_on_close, cd);
	if (tfd < 0) {
		fprintf(stderr, "sluice ctld: cannot listen on port %u: %s\n", conf->ctld_port, strerror(errno));
		return 1;
	}
	char *sock = xasprintf("%s/sluice-ctld.sock", ssl);
	unlink(sock);
	if (net_listen_unix(cd->loop, cd->auth, sock, rpc_on_msg, rpc_on_close, cd) < 0) {
		fprintf(stderr, "sluice ctld: cannot listen on '%s': %s\n", sock, strerror(errno));
		return 1;
	}
	chmod(sock, 0777);
	free(sock);

	if (!foreground && daemonize()) {
		fprintf(stderr, "sluice ctld: cannot daemonize: %s\n", strerror(errno));
		return 1;
	}
	log_init("sluice-ctld", 1, (enum log_level)level, logfile);
	if (!foreground && conf->slurmctld_pid_file) {
		FILE *fp = fopen(conf->slurmctld_pid_file, "w");
		if (fp) {
			fprintf(fp, "%d\n", (int)getpid());
			fclose(fp);
		}
	}

	/* Recovery: after listening (so the port is ours), before serving. */
	db_load(cd);
	for (uint32_t i = 0; i < cd->nnodes; i++)
		node_sync_sched(cd, &cd->nodes[i]);
	db_commit(cd);
	for (size_t i = 0; i < conf->nunsupported; i++)
		verbose("slurm.conf: %s is accepted but not acted on", conf->unsupported[i]);

	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd >= 0)
		loop_add_fd(cd->loop, sfd, LOOP_READ, signal_cb, cd);

	loop_set_before_sleep(cd->loop, before_sleep, cd);
	loop_add_timer(cd->loop, PERIODIC_MS, periodic_cb, cd);
	loop_add_timer(cd->loop, nodes_tick_interval(cd), nodes_cb, cd);
	cd->nodes_tick_ms = loop_now_ms(cd->loop);   /* a stall before the first tick counts too */
	ctld_sched_request(cd);
	info("sluice ctld %s started: cluster %s, port %u, %u nodes, %u partitions",
	     SLUICE_VERSION, conf->cluster_name ? conf->cluster_name : "?", conf->ctld_port,
	     cd->nnodes, cd->nparts);
	loop_run(cd->loop);

	db_commit(cd);
	conn_flush_all(cd->loop);
	info("sluice ctld stopped");
	/* cd->conf: a reconfigure may have replaced the one loaded here. */
	if (!foreground && cd->conf->slurmctld_pid_file)
		unlink(cd->conf->slurmctld_pid_file);
	db_close(cd);
	return 0;
}
