/*
 * ctld_main.c: `sluice ctld`, the controller: startup (config, state DB
 * recovery, listeners), the event loop hooks and the periodic timers.
 *
 * The loop's before_sleep hook is where durability is enforced: write
 * the turn's dirty records in one transaction and commit, and only then
 * flush the queued replies and send what waits for that commit (turn.c);
 * then run a scheduling pass if something changed (at most every 50 ms)
 * and commit and flush its starts the same way. A pass never sees a
 * request that is not committed, and a request whose commit failed is
 * undone (turn_failed).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/names.h"

#include "daemon.h"
#include "errors.h"
#include "log.h"
#include "timefmt.h"
#include "xalloc.h"

#define SCHED_MIN_INTERVAL_MS 50
#define PERIODIC_MS 5000
#define STORE_RETRY_MS 1000

/* SLUICE_FAULT=crash-after-submit:N (see fault_init); 0: off. */
static uint32_t fault_crash_submit;

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

/* Conns of node daemons keep what this turn queued for them (heartbeat
 * answers, registration replies, pings: what announces a change waits in
 * the outbox, turn.c), as what they reported stays pending in memory and
 * is committed once the store can be written (see store_check). */
static int is_node_conn(conn_t *c, void *arg)
{
	(void)arg;
	return conn_get_data(c) != NULL;
}

/* Wakes the loop while the store fails, so that before_sleep retries. */
static void store_timer_cb(loop_t *l, void *arg)
{
	ctld_t *cd = arg;
	if (cd->store_failing)
		loop_add_timer(l, STORE_RETRY_MS, store_timer_cb, cd);
}

/* After a commit attempt (rc: db_commit's): enter or leave the failing
 * state, each logged once. On entering, the replies this turn queued
 * announced changes that are not durable: each becomes the error. */
static void store_check(ctld_t *cd, int rc)
{
	if (rc && !cd->store_failing) {
		char *msg = store_error_msg(cd);
		error("%s: refusing state changes until it can be written (retrying every %d ms)",
		      msg, STORE_RETRY_MS);
		conn_replace_held(cd->loop, is_node_conn, NULL, cd->db_errno ? cd->db_errno : EIO, msg);
		free(msg);
		cd->store_failing = 1;
		loop_add_timer(cd->loop, STORE_RETRY_MS, store_timer_cb, cd);
	} else if (!rc && cd->store_failing) {
		info("state save location '%s' can be written again: pending changes committed,"
		     " accepting state changes", cd->conf->state_save_location);
		cd->store_failing = 0;
		ctld_sched_request(cd);
	}
}

/* One commit and what follows from it: what waited for it goes out, or
 * (on the first failure) the turn's requests are undone and their replies
 * become the error. */
static int commit_turn(ctld_t *cd)
{
	int rc = db_commit(cd);
	if (rc)
		turn_failed(cd, !cd->store_failing);
	else
		turn_committed(cd);
	store_check(cd, rc);
	return rc;
}

static void before_sleep(loop_t *l, void *arg)
{
	ctld_t *cd = arg;
	/* Durability before replies: if this turn's changes did not reach the
	 * database, nothing of it may be acknowledged or sent to a node, and
	 * what the requests did is undone (commit_turn). While the store is
	 * failing, user changes are refused up front (store_refused) and the
	 * commit of what is pending is retried at most every STORE_RETRY_MS.
	 * The requests' commit comes before the pass, so a pass schedules
	 * only committed submissions and its launches follow its own commit. */
	uint64_t now = loop_now_ms(l);
	if (!cd->store_failing || now - cd->store_retry_ms >= STORE_RETRY_MS) {
		cd->store_retry_ms = now;
		int rc = commit_turn(cd);
		if (!rc && fault_crash_submit && cd->jobs_accepted >= fault_crash_submit) {
			error("SLUICE_FAULT: crashing after the commit of submission %u", fault_crash_submit);
			_exit(86);
		}
		if (!rc)
			conn_flush_all(l);
	}
	/* While the store fails, nothing starts: a start is a change. */
	if (cd->sched_needed && !cd->store_failing) {
		if (cd->sched_now || now - cd->last_sched_ms >= SCHED_MIN_INTERVAL_MS ||
		    !cd->last_sched_ms) {
			cd->sched_needed = 0;
			cd->sched_now = 0;
			cd->last_sched_ms = now;
			ctld_schedule(cd);
			commit_turn(cd);
		} else if (!cd->sched_timer) {
			cd->sched_timer = loop_add_timer(l, SCHED_MIN_INTERVAL_MS - (now - cd->last_sched_ms),
							 sched_timer_cb, cd);
		}
	}
	/* Not committed: what this turn answered waiters waits too. */
	if (cd->store_failing)
		turn_hold_replies(cd);
	conn_flush_all(l);
	if (cd->shutdown)
		loop_stop(l);
}

static void turn_hook(loop_t *l, uint64_t busy_us, void *arg)
{
	ctld_metrics_turn(arg, busy_us);
	(void)l;
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
	resv_periodic(cd, now);          /* reservations that end or roll */
	prolog_ctld_recover(cd);         /* once: PrologSlurmctld cut by a restart */
	acct_usage_periodic(cd, now);    /* usage, fair share, rollups */
	ctld_sched_request(cd);
	loop_add_timer(l, PERIODIC_MS, periodic_cb, cd);
}

/* The controller's log file (NULL: stderr, in the foreground), for the
 * reopen on SIGUSR2 and the settings a reconfigure applies again. */
static char *ctld_log_file;
static int ctld_foreground;

void ctld_log_conf(const conf_t *conf)
{
	log_apply_conf(conf, 1, ctld_foreground, ctld_log_file != NULL,
		       conf->nctld_hosts ? conf->ctld_hosts[0] : NULL);
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
		} else if (si.ssi_signo == SIGUSR2) {
			/* logrotate, as slurmctld: reopen the log file */
			log_init("sluice-ctld", 1, log_get_level(), ctld_log_file);
			info("log reopened");
		}
	}
	(void)events;
}

/* mkdir -p: missing parents 0755, the last component mode. */
static int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST) {
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

/* The daemon pipe's write end while starting (-1 in the foreground, or
 * once serving): start-up errors go to the shell that started us. */
static int start_pipe = -1;

/* A start-up error: to the starting shell (stderr, or the daemon pipe)
 * and the log. Returns 1, the exit status. */
static int __attribute__((format(printf, 1, 2))) startup_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (start_pipe >= 0) {
		error("%s", msg);
		daemon_fail(start_pipe, msg);
		start_pipe = -1;
	} else {
		fprintf(stderr, "sluice ctld: %s\n", msg);
	}
	free(msg);
	return 1;
}

/* Make StateSaveLocation private to SlurmUser: created 0700; an existing
 * one with group/other access, or files in it with any, are tightened
 * (with a warning: they may have been read). Started as root with
 * another SlurmUser, the directory and its files are given to it. The
 * files SQLite and we create later get no group/other bits from the
 * umask (077) set before. */
static int state_dir_prepare(const char *dir, uid_t owner, gid_t group)
{
	if (mkdir_p(dir, 0700))
		return startup_fail("cannot create StateSaveLocation '%s': %s", dir, strerror(errno));
	struct stat st;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return startup_fail("StateSaveLocation '%s' is not a directory", dir);
	int chown_it = geteuid() == 0 && owner != 0;
	if (chown_it && (st.st_uid != owner || st.st_gid != group) && chown(dir, owner, group))
		return startup_fail("cannot give StateSaveLocation '%s' to SlurmUser: %s", dir,
				    strerror(errno));
	if (st.st_mode & 077) {
		if (chmod(dir, st.st_mode & 0700))
			return startup_fail("cannot make StateSaveLocation '%s' private: %s", dir,
					    strerror(errno));
		error("StateSaveLocation '%s' was mode %04o, readable by others; now %04o",
		      dir, (unsigned)(st.st_mode & 07777), (unsigned)(st.st_mode & 0700));
	}
	DIR *d = opendir(dir);
	if (!d)
		return startup_fail("cannot read StateSaveLocation '%s': %s", dir, strerror(errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct stat fs;
		/* lstat: a symlink is not followed (nor changed) */
		if (lstat(path, &fs) == 0 && (S_ISREG(fs.st_mode) || S_ISDIR(fs.st_mode))) {
			if (fs.st_mode & 077) {
				if (chmod(path, fs.st_mode & 0700) == 0)
					error("state file '%s' was mode %04o; now %04o", path,
					      (unsigned)(fs.st_mode & 07777), (unsigned)(fs.st_mode & 0700));
				else
					error("cannot make state file '%s' private: %s", path, strerror(errno));
			}
			if (chown_it && fs.st_uid != owner && lchown(path, owner, group))
				error("cannot give state file '%s' to SlurmUser: %s", path, strerror(errno));
		}
		free(path);
	}
	closedir(d);
	return 0;
}

/* Fault injection for the crash tests (documented as test-only in
 * docs/architecture.md): SLUICE_FAULT=crash-after-submit:N makes the
 * controller _exit right after the commit of the loop turn that holds the
 * Nth job accepted since start, before that turn's replies are flushed:
 * the submission is committed but never acknowledged. */
static void fault_init(void)
{
	const char *f = getenv("SLUICE_FAULT");
	if (!f || !*f)
		return;
	unsigned long n;
	char tail;
	if (sscanf(f, "crash-after-submit:%lu%c", &n, &tail) == 1 && n > 0 && n <= UINT32_MAX) {
		fault_crash_submit = (uint32_t)n;
		info("SLUICE_FAULT: crash after the commit of submission %lu (test only)", n);
	} else {
		error("SLUICE_FAULT='%s' not understood; ignored", f);
	}
}

void ctld_watch_groups(ctld_t *cd)
{
	const conf_t *conf = cd->conf;
	const char **lists = xcalloc(conf->nparts ? conf->nparts : 1, sizeof(char *));
	for (size_t i = 0; i < conf->nparts; i++)
		lists[i] = conf->parts[i].allow_groups;
	const char *v = conf_get(conf, "GroupUpdateTime");
	uint32_t update_s = v ? (uint32_t)strtoul(v, NULL, 10) : 600;
	v = conf_get(conf, "GroupUpdateForce");
	int force = v ? (strtol(v, NULL, 10) != 0 || !strcasecmp(v, "yes")) : 1;
	names_groups_watch(lists, conf->nparts, update_s, force);
	free(lists);
}

/* The controller's state lives until the process exits and is not freed
 * at shutdown (that would buy nothing). Holding it in a global keeps it
 * reachable, deterministically, for the leak checks at exit (LeakSanitizer,
 * valgrind), which then report only memory truly lost while running.
 * volatile: the store must stay although nothing reads it. */
static ctld_t *volatile ctld_state;

/* What the controller's listeners take (see net.h): the requests of
 * rpc_on_msg, never unsigned on TCP (commands that cannot sign use the
 * Unix socket, where the kernel names the peer). Not yet authenticated
 * conns: a few hundred, 10 s to send their first request, 32 MB of frames
 * in flight (one big submission fits). Authenticated ones are closed
 * after 5 idle minutes, unless they wait for an answer (a node daemon's
 * link after a heartbeat, an srun or sbatch --wait waiter: hours). */
#define CTLD_REQUESTS (NET_MSG(MSG_PING) | NET_MSG(MSG_SUBMIT) | NET_MSG(MSG_JOB_INFO_REQ) \
	| NET_MSG(MSG_NODE_INFO_REQ) | NET_MSG(MSG_PART_INFO_REQ) | NET_MSG(MSG_CONFIG_REQ) \
	| NET_MSG(MSG_CANCEL) | NET_MSG(MSG_UPDATE_NODE) | NET_MSG(MSG_UPDATE_PART) \
	| NET_MSG(MSG_UPDATE_JOB) | NET_MSG(MSG_JOB_WAIT) | NET_MSG(MSG_STEP_CREATE) \
	| NET_MSG(MSG_JOB_COMPLETE) | NET_MSG(MSG_NODE_REGISTER) | NET_MSG(MSG_NODE_HEARTBEAT) \
	| NET_MSG(MSG_RECONFIGURE) | NET_MSG(MSG_SHUTDOWN) | NET_MSG(MSG_PRIO_INFO_REQ) \
	| NET_MSG(MSG_STATS_REQ) | NET_MSG(MSG_ACCT_REQ) | NET_MSG(MSG_STEP_COMPLETE) | NET_MSG(MSG_STEP_INFO_REQ) \
	| NET_MSG(MSG_HEALTH_CHECK) \
	| NET_MSG(MSG_SET_DEBUG) | NET_MSG(MSG_STEP_STAT_AUTH) | NET_MSG(MSG_PROLOG_COMPLETE) \
	| NET_MSG(MSG_JOB_NCCL) | NET_MSG(MSG_RESV_UPDATE) | NET_MSG(MSG_RESV_INFO_REQ) \
	| NET_MSG(MSG_CONFIG_FILES_REQ))
static const net_policy_t ctld_tcp_policy = {
	.name = "controller port", .allowed = CTLD_REQUESTS, .unsigned_ok = 0,
	.max_unauth = 256, .unauth_ms = 10000, .unauth_bytes = 32u << 20,
	.idle_ms = 300000,
};
static const net_policy_t ctld_unix_policy = {
	.name = "controller socket", .allowed = CTLD_REQUESTS, .unsigned_ok = 0,
	.max_unauth = 256, .unauth_ms = 10000, .unauth_bytes = 32u << 20,
	.idle_ms = 300000,
};

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
	/* A daemon keeps nothing of its starter but stdio (as the node
	 * daemon): a descriptor inherited from the starting shell would be
	 * held for the controller's life. Nothing of our own is open yet. */
	if (!foreground)
		close_range(3, ~0u, 0);
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
	ctld_metrics_init(cd);
	cd->slurm_uid = 0;
	gid_t slurm_gid = 0;
	if (conf->slurm_user) {
		struct passwd pw, *res = NULL;
		char buf[4096];
		if (getpwnam_r(conf->slurm_user, &pw, buf, sizeof(buf), &res) == 0 && res) {
			cd->slurm_uid = pw.pw_uid;
			slurm_gid = pw.pw_gid;
		} else if (strcmp(conf->slurm_user, "root")) {
			fprintf(stderr, "sluice ctld: SlurmUser '%s' does not exist\n", conf->slurm_user);
			return 1;
		}
	}
	const char *ssl = conf->state_save_location;
	if (!ssl || !*ssl) {
		fprintf(stderr, "sluice ctld: StateSaveLocation is not set\n");
		return 1;
	}

	/* Detach first, so that everything below runs in the daemon (the
	 * state lock belongs to the process that serves), and report every
	 * start-up error to the waiting shell through the daemon pipe. */
	if (!foreground && (start_pipe = daemon_detach("sluice ctld")) < 0) {
		fprintf(stderr, "sluice ctld: cannot daemonize: %s\n", strerror(errno));
		return 1;
	}
	log_init("sluice-ctld", 1, (enum log_level)level, logfile);
	ctld_log_file = logfile ? xstrdup(logfile) : NULL;
	ctld_foreground = foreground;
	ctld_log_conf(conf);
	fault_init();

	/* Nothing the controller creates is for group or others: the state
	 * files hold every job's script and environment. */
	umask(077);
	if (state_dir_prepare(ssl, cd->slurm_uid, slurm_gid))
		return 1;
	/* One controller per state directory, before anything is served or
	 * replaced (socket, pid file, port). The lock is on the directory
	 * itself: deleting sluice-ctld.lock (which only names the holder)
	 * must not let a second controller share the state. */
	pid_t holder = 0;
	cd->lock_fd = dirlock_take(ssl, "sluice-ctld.lock", &holder);
	if (cd->lock_fd < 0) {
		int e = errno;
		if (e == EAGAIN && holder > 0)
			startup_fail("StateSaveLocation '%s' is in use by another controller (pid %d)", ssl,
				     (int)holder);
		else if (e == EAGAIN)
			startup_fail("StateSaveLocation '%s' is in use by another controller", ssl);
		else
			startup_fail("cannot lock StateSaveLocation '%s': %s", ssl, strerror(e));
		return 1;
	}

	char *err = NULL;
	cd->auth = auth_create(conf, &err);
	if (!cd->auth)
		return startup_fail("%s", err ? err : "authentication setup failed");
	auth_set_not_before(cd->auth, 0);   /* no replay of pre-restart captures */
	cd->next_job_id = conf->first_job_id ? conf->first_job_id : 1;
	/* AllowGroups members, resolved by a worker; the first time before
	 * serving (a slow NSS may hold the start, never the loop). */
	ctld_watch_groups(cd);
	if (names_groups_wait(30000))
		error("AllowGroups not resolved after 30 s (NSS slow?): those partitions refuse users until it is");
	nodes_init(cd);
	sched_glue_build(cd);
	load_priority(cd);
	char *dbpath = xasprintf("%s/sluice.db", ssl);
	if (db_open(cd, dbpath, &err))
		return startup_fail("%s", err);
	cd->db_path = dbpath;
	if (acct_init(cd, &err))
		return startup_fail("%s", err);
	/* SQLite made sluice.db-wal and -shm: give them to SlurmUser too. */
	if (state_dir_prepare(ssl, cd->slurm_uid, slurm_gid))
		return 1;

	cd->loop = loop_create();
	cd->turn_ops = &turn_undo_ops;
	int tfd = net_listen_tcp(cd->loop, cd->auth, NULL, conf->ctld_port, &ctld_tcp_policy,
				 rpc_on_msg, rpc_on_close, cd);
	if (tfd < 0)
		return startup_fail("cannot listen on port %u: %s", conf->ctld_port, strerror(errno));
	/* The run directory: what users reach (socket, pid file), apart
	 * from the private state. */
	char *rundir = conf_ctld_run_dir(conf);
	umask(022);
	int rc = mkdir_p(rundir, 0755);
	umask(077);
	if (rc)
		return startup_fail("cannot create the run directory '%s' (of SlurmctldPidFile): %s",
				    rundir, strerror(errno));
	{
		char *a = realpath(rundir, NULL), *b = realpath(ssl, NULL);
		if (a && b && !strcmp(a, b))
			error("SlurmctldPidFile is in StateSaveLocation '%s', which is private: users "
			      "who cannot read the key cannot reach the controller's socket there", ssl);
		free(a);
		free(b);
	}
	free(rundir);
	char *sock = conf_ctld_socket(conf);
	if (net_listen_unix(cd->loop, cd->auth, sock, &ctld_unix_policy, rpc_on_msg, rpc_on_close,
			    cd) < 0)
		return startup_fail("cannot listen on '%s': %s", sock, strerror(errno));
	chmod(sock, 0777);
	free(sock);
	if (conf->slurmctld_pid_file && pidfile_write(conf->slurmctld_pid_file, getpid()))
		return startup_fail("cannot write SlurmctldPidFile '%s': %s", conf->slurmctld_pid_file,
				    strerror(errno));

	/* Recovery: after listening (so the port is ours), before serving. */
	db_load(cd);
	for (uint32_t i = 0; i < cd->nnodes; i++)
		node_sync_sched(cd, &cd->nodes[i]);
	/* A full disk must not keep the controller down: serve what was
	 * recovered and commit once it can (store_check). */
	store_check(cd, db_commit(cd));
	for (size_t i = 0; i < conf->nunsupported; i++)
		verbose("slurm.conf: %s is accepted but not acted on", conf->unsupported[i]);

	/* The metrics port: after recovery, so a scrape never sees a
	 * half-loaded state. */
	if (ctld_metrics_start(cd, &err))
		return startup_fail("%s", err);

	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGUSR2);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd >= 0)
		loop_add_fd(cd->loop, sfd, LOOP_READ, signal_cb, cd);

	loop_set_before_sleep(cd->loop, before_sleep, cd);
	loop_set_turn_hook(cd->loop, turn_hook, cd);
	loop_add_timer(cd->loop, PERIODIC_MS, periodic_cb, cd);
	loop_add_timer(cd->loop, nodes_tick_interval(cd), nodes_cb, cd);
	cd->nodes_tick_ms = loop_now_ms(cd->loop);   /* a stall before the first tick counts too */
	ctld_sched_request(cd);
	info("sluice ctld %s started: cluster %s, port %u, %u nodes, %u partitions",
	     SLUICE_VERSION, conf->cluster_name ? conf->cluster_name : "?", conf->ctld_port,
	     cd->nnodes, cd->nparts);
	daemon_ready(start_pipe);
	start_pipe = -1;
	loop_run(cd->loop);

	acct_rpc_shutdown(cd);
	if (!db_commit(cd))
		turn_committed(cd);
	conn_flush_all(cd->loop);
	uint64_t turns, cpu, longest = loop_max_turn_us(cd->loop, &cpu, &turns);
	info("sluice ctld stopped (%" PRIu64 " loop turns, the longest %" PRIu64 " us, %" PRIu64
	     " us of CPU at most)", turns, longest, cpu);
	/* cd->conf: a reconfigure may have replaced the one loaded here.
	 * The pid file and socket are ours (we hold the state lock). */
	if (cd->conf->slurmctld_pid_file)
		unlink(cd->conf->slurmctld_pid_file);
	db_close(cd);
	return 0;
}
