/*
 * log_conf: a daemon's log settings from slurm.conf beyond the file and
 * the level (see log.h): SluiceLogFormat (text, the default, or json)
 * and SlurmctldSyslogDebug / SlurmdSyslogDebug.
 *
 * Syslog as slurm.conf(5) says: at the SyslogDebug level when it is set
 * (quiet: none); otherwise none in the foreground, fatal when the daemon
 * has a log file, and the daemon's Debug level when it has none.
 */
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "log.h"

void log_apply_conf(const conf_t *conf, int ctld, int foreground, int has_file, const char *node)
{
	const char *fmt = conf_get(conf, "SluiceLogFormat");
	log_set_json(fmt && !strcasecmp(fmt, "json"));
	log_set_node(node);
	const char *sd = conf_get(conf, ctld ? "SlurmctldSyslogDebug" : "SlurmdSyslogDebug");
	int lvl;
	if (sd) {
		lvl = log_level_parse(sd);
	} else if (foreground) {
		lvl = LOG_LVL_QUIET;
	} else if (has_file) {
		lvl = LOG_LVL_FATAL;
	} else {
		lvl = ctld ? conf->slurmctld_debug : conf->slurmd_debug;
		if (lvl <= LOG_LVL_QUIET)
			lvl = LOG_LVL_FATAL;
	}
	log_set_syslog(lvl <= LOG_LVL_QUIET ? -1 : lvl);
}
