/*
 * conf_keys: the key tables of Slurm 22.05's config files, taken from its
 * man pages (slurm.conf(5), cgroup.conf(5), gres.conf(5), topology.conf(5)),
 * the value checks that go with their types, and the `scontrol show config`
 * list (keys, order, defaults as printed) from the captured output of real
 * Slurm 22.05.8. See conf_keys.h.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_keys.h"
#include "log.h"
#include "timefmt.h"

#define A CK_ACTED
#define TAB(var, what, arr) const struct conf_keytab var = { what, arr, ARRAY_SIZE(arr) }
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static const char debug_levels[] = "quiet|fatal|error|info|verbose|debug|debug2|debug3|debug4|debug5";

static const struct conf_keydef global_keys[] = {
	{ "AccountingStorageBackupHost", CV_STR, 0, NULL },
	{ "AccountingStorageEnforce", CV_LIST, A, "all|associations|limits|nojobs|nosteps|qos|safe|wckeys|none" },
	{ "AccountingStorageExternalHost", CV_STR, 0, NULL },
	{ "AccountingStorageHost", CV_STR, 0, NULL },
	{ "AccountingStorageParameters", CV_STR, 0, NULL },
	{ "AccountingStoragePass", CV_STR, 0, NULL },
	{ "AccountingStoragePort", CV_UINT, 0, NULL },
	{ "AccountingStorageTRES", CV_STR, 0, NULL },
	{ "AccountingStorageType", CV_ENUM, A, "accounting_storage/none|accounting_storage/slurmdbd" },
	{ "AccountingStorageUser", CV_STR, 0, NULL },
	{ "AccountingStoreFlags", CV_LIST, 0, "job_comment|job_env|job_script" },
	{ "AcctGatherNodeFreq", CV_UINT, 0, NULL },
	{ "AcctGatherEnergyType", CV_STR, 0, NULL },
	{ "AcctGatherInterconnectType", CV_STR, 0, NULL },
	{ "AcctGatherFilesystemType", CV_STR, 0, NULL },
	{ "AcctGatherProfileType", CV_STR, 0, NULL },
	{ "AllowSpecResourcesUsage", CV_BOOL, 0, NULL },
	{ "AuthAltTypes", CV_STR, 0, NULL },
	{ "AuthAltParameters", CV_STR, 0, NULL },
	{ "AuthInfo", CV_STR, A, NULL },
	{ "AuthType", CV_STR, A, NULL },
	{ "BackupAddr", CV_STR, A, NULL },
	{ "BackupController", CV_STR, A, NULL },
	{ "BatchStartTimeout", CV_UINT, A, NULL },
	{ "BcastExclude", CV_STR, 0, NULL },
	{ "BcastParameters", CV_STR, 0, NULL },
	{ "BurstBufferType", CV_STR, 0, NULL },
	{ "CliFilterPlugins", CV_STR, 0, NULL },
	{ "ClusterName", CV_STR, A, NULL },
	{ "CommunicationParameters", CV_STR, 0, NULL },
	{ "CompleteWait", CV_UINT, 0, NULL },
	{ "ControlAddr", CV_STR, A, NULL },
	{ "ControlMachine", CV_STR, A, NULL },
	{ "CoreSpecPlugin", CV_STR, 0, NULL },
	{ "CpuFreqDef", CV_STR, 0, NULL },
	{ "CpuFreqGovernors", CV_STR, 0, NULL },
	{ "CredType", CV_STR, A, NULL },
	{ "DebugFlags", CV_STR, 0, NULL },
	{ "DefCpuPerGPU", CV_UINT, 0, NULL },
	{ "DefMemPerCPU", CV_MEM, A, NULL },
	{ "DefMemPerGPU", CV_MEM, 0, NULL },
	{ "DefMemPerNode", CV_MEM, A, NULL },
	{ "DependencyParameters", CV_STR, 0, NULL },
	{ "DisableRootJobs", CV_BOOL, A, NULL },
	{ "EioTimeout", CV_UINT, 0, NULL },
	{ "EnforcePartLimits", CV_ENUM, A, "ALL|ANY|NO|YES" },
	{ "Epilog", CV_STR, A, NULL },
	{ "EpilogMsgTime", CV_UINT, 0, NULL },
	{ "EpilogSlurmctld", CV_STR, A, NULL },
	{ "ExtSensorsFreq", CV_UINT, 0, NULL },
	{ "ExtSensorsType", CV_STR, 0, NULL },
	{ "FairShareDampeningFactor", CV_UINT, 0, NULL },
	{ "FederationParameters", CV_STR, 0, NULL },
	{ "FirstJobId", CV_UINT, A, NULL },
	{ "GetEnvTimeout", CV_UINT, 0, NULL },
	{ "GpuFreqDef", CV_STR, 0, NULL },
	{ "GresTypes", CV_STR, A, NULL },
	{ "GroupUpdateForce", CV_BOOL, 0, NULL },
	{ "GroupUpdateTime", CV_UINT, 0, NULL },
	{ "HealthCheckInterval", CV_UINT, A, NULL },
	{ "HealthCheckNodeState", CV_LIST, A, "alloc|any|cycle|idle|mixed|nondrained_idle" },
	{ "HealthCheckProgram", CV_STR, A, NULL },
	{ "InactiveLimit", CV_UINT, A, NULL },
	{ "InteractiveStepOptions", CV_STR, 0, NULL },
	{ "JobAcctGatherType", CV_ENUM, A, "jobacct_gather/none|jobacct_gather/linux|jobacct_gather/cgroup" },
	{ "JobAcctGatherFrequency", CV_STR, A, NULL },
	{ "JobAcctGatherParams", CV_STR, 0, NULL },
	{ "JobCompHost", CV_STR, 0, NULL },
	{ "JobCompLoc", CV_STR, 0, NULL },
	{ "JobCompParams", CV_STR, 0, NULL },
	{ "JobCompPass", CV_STR, 0, NULL },
	{ "JobCompPort", CV_UINT, 0, NULL },
	{ "JobCompType", CV_STR, 0, NULL },
	{ "JobCompUser", CV_STR, 0, NULL },
	{ "JobContainerType", CV_STR, 0, NULL },
	{ "JobCredentialPrivateKey", CV_STR, 0, NULL },
	{ "JobCredentialPublicCertificate", CV_STR, 0, NULL },
	{ "JobFileAppend", CV_UINT, 0, NULL },
	{ "JobRequeue", CV_UINT, A, NULL },
	{ "JobSubmitPlugins", CV_STR, 0, NULL },
	{ "KillOnBadExit", CV_UINT, A, NULL },
	{ "KillWait", CV_UINT, A, NULL },
	{ "NodeFeaturesPlugins", CV_STR, 0, NULL },
	{ "LaunchParameters", CV_STR, 0, NULL },
	{ "LaunchType", CV_STR, 0, NULL },
	{ "Licenses", CV_STR, 0, NULL },
	{ "LogTimeFormat", CV_STR, 0, NULL },
	{ "MailDomain", CV_STR, 0, NULL },
	{ "MailProg", CV_STR, 0, NULL },
	{ "MaxArraySize", CV_UINT, A, NULL },
	{ "MaxDBDMsgs", CV_UINT, 0, NULL },
	{ "MaxJobCount", CV_UINT, A, NULL },
	{ "MaxJobId", CV_UINT, A, NULL },
	{ "MaxMemPerCPU", CV_MEM, A, NULL },
	{ "MaxMemPerNode", CV_MEM, A, NULL },
	{ "MaxNodeCount", CV_UINT, 0, NULL },
	{ "MaxStepCount", CV_UINT, 0, NULL },
	{ "MaxTasksPerNode", CV_UINT, 0, NULL },
	{ "MCSParameters", CV_STR, 0, NULL },
	{ "MCSPlugin", CV_STR, 0, NULL },
	{ "MessageTimeout", CV_UINT, A, NULL },
	{ "MetricsAddress", CV_STR, A, NULL },      /* Sluice: bind address of MetricsPort */
	{ "MetricsAllowFrom", CV_STR, A, NULL },    /* Sluice: addresses/CIDRs allowed */
	{ "MetricsPort", CV_UINT, A, NULL },        /* Sluice: the HTTP port of /metrics */
	{ "MetricsTokenFile", CV_STR, A, NULL },    /* Sluice: bearer token file (0600) */
	{ "MetricsType", CV_ENUM, A, "metrics/openmetrics|metrics/none" },   /* Slurm 25.11 */
	{ "MinJobAge", CV_UINT, A, NULL },
	{ "MpiDefault", CV_STR, A, NULL },
	{ "MpiParams", CV_STR, 0, NULL },
	{ "OverTimeLimit", CV_UINTU, A, NULL },
	{ "PluginDir", CV_STR, 0, NULL },
	{ "PlugStackConfig", CV_STR, 0, NULL },
	{ "PowerParameters", CV_STR, 0, NULL },
	{ "PowerPlugin", CV_STR, 0, NULL },
	{ "PreemptMode", CV_LIST, 0, "OFF|CANCEL|GANG|REQUEUE|SUSPEND|WITHIN" },
	{ "PreemptType", CV_STR, 0, NULL },
	{ "PreemptExemptTime", CV_TIME, 0, NULL },
	{ "PrEpParameters", CV_STR, 0, NULL },
	{ "PrEpPlugins", CV_STR, 0, NULL },
	{ "PriorityCalcPeriod", CV_TIME, A, NULL },
	{ "PriorityDecayHalfLife", CV_TIME, A, NULL },
	{ "PriorityFavorSmall", CV_BOOL, A, NULL },
	{ "PriorityFlags", CV_STR, 0, NULL },
	{ "PriorityMaxAge", CV_TIME, A, NULL },
	{ "PriorityParameters", CV_STR, 0, NULL },
	{ "PrioritySiteFactorParameters", CV_STR, 0, NULL },
	{ "PrioritySiteFactorPlugin", CV_STR, 0, NULL },
	{ "PriorityType", CV_ENUM, A, "priority/basic|priority/multifactor" },
	{ "PriorityUsageResetPeriod", CV_ENUM, 0, "NONE|NOW|DAILY|WEEKLY|MONTHLY|QUARTERLY|YEARLY" },
	{ "PriorityWeightAge", CV_UINT, A, NULL },
	{ "PriorityWeightAssoc", CV_UINT, A, NULL },
	{ "PriorityWeightFairshare", CV_UINT, A, NULL },
	{ "PriorityWeightJobSize", CV_UINT, A, NULL },
	{ "PriorityWeightPartition", CV_UINT, A, NULL },
	{ "PriorityWeightQOS", CV_UINT, A, NULL },
	{ "PriorityWeightTRES", CV_STR, 0, NULL },
	{ "PrivateData", CV_STR, 0, NULL },
	{ "ProctrackType", CV_ENUM, A, "proctrack/cgroup|proctrack/cray_aries|proctrack/linuxproc|proctrack/pgid" },
	{ "Prolog", CV_STR, A, NULL },
	{ "PrologEpilogTimeout", CV_UINT, A, NULL },
	{ "PrologFlags", CV_STR, A, NULL },
	{ "PrologSlurmctld", CV_STR, A, NULL },
	{ "PropagatePrioProcess", CV_UINT, 0, NULL },
	{ "PropagateResourceLimits", CV_STR, 0, NULL },
	{ "PropagateResourceLimitsExcept", CV_STR, 0, NULL },
	{ "RebootProgram", CV_STR, 0, NULL },
	{ "ReconfigFlags", CV_STR, 0, NULL },
	{ "RequeueExit", CV_STR, 0, NULL },
	{ "RequeueExitHold", CV_STR, 0, NULL },
	{ "ResumeFailProgram", CV_STR, 0, NULL },
	{ "ResumeProgram", CV_STR, 0, NULL },
	{ "ResumeRate", CV_UINT, 0, NULL },
	{ "ResumeTimeout", CV_UINT, 0, NULL },
	{ "ResvEpilog", CV_STR, 0, NULL },
	{ "ResvOverRun", CV_UINTU, 0, NULL },
	{ "ResvProlog", CV_STR, 0, NULL },
	{ "ReturnToService", CV_ENUM, A, "0|1|2" },
	{ "RoutePlugin", CV_STR, 0, NULL },
	{ "SchedulerParameters", CV_STR, A, NULL },
	{ "SchedulerTimeSlice", CV_UINT, 0, NULL },
	{ "SchedulerType", CV_ENUM, A, "sched/backfill|sched/builtin" },
	{ "ScronParameters", CV_STR, 0, NULL },
	{ "SelectType", CV_ENUM, A, "select/cons_tres|select/cons_res|select/linear|select/cray_aries" },
	{ "SelectTypeParameters", CV_LIST, A,
	  "CR_CPU|CR_CPU_Memory|CR_Core|CR_Core_Memory|CR_Socket|CR_Socket_Memory|CR_Memory|"
	  "CR_ONE_TASK_PER_CORE|CR_CORE_DEFAULT_DIST_BLOCK|CR_LLN|CR_Pack_Nodes|LL_SHARED_GRES|"
	  "MULTIPLE_SHARING_GRES_PJ|ENFORCE_BINDING_GRES|ONE_TASK_PER_SHARING_GRES|"
	  "OTHER_CONS_RES|OTHER_CONS_TRES|NHC_ABSOLUTELY_NO|NHC_NO_STEPS|NHC_NO" },
	{ "SlurmctldAddr", CV_STR, 0, NULL },
	{ "SlurmctldDebug", CV_DEBUG, A, NULL },
	{ "SlurmctldHost", CV_STR, A, NULL },
	{ "SlurmctldLogFile", CV_STR, A, NULL },
	{ "SlurmctldParameters", CV_STR, 0, NULL },
	{ "SlurmctldPidFile", CV_STR, A, NULL },
	{ "SlurmctldPlugstack", CV_STR, 0, NULL },
	{ "SlurmctldPort", CV_PORT, A, NULL },
	{ "SlurmctldPrimaryOffProg", CV_STR, 0, NULL },
	{ "SlurmctldPrimaryOnProg", CV_STR, 0, NULL },
	{ "SlurmctldSyslogDebug", CV_DEBUG, A, NULL },
	{ "SlurmctldTimeout", CV_UINT, A, NULL },
	{ "SlurmdDebug", CV_DEBUG, A, NULL },
	{ "SlurmdLogFile", CV_STR, A, NULL },
	{ "SlurmdMetricsDcgmMapDir", CV_STR, A, NULL }, /* Sluice: dcgm-exporter job mapping files */
	{ "SlurmdMetricsPort", CV_STR, A, NULL },       /* Sluice: node /metrics, "N" or "+N" */
	{ "SlurmdParameters", CV_STR, 0, NULL },
	{ "SlurmdPidFile", CV_STR, A, NULL },
	{ "SlurmdPort", CV_PORT, A, NULL },
	{ "SlurmdSpoolDir", CV_STR, A, NULL },
	{ "SlurmdSyslogDebug", CV_DEBUG, A, NULL },
	{ "SlurmdTimeout", CV_UINT, A, NULL },
	{ "SlurmdUser", CV_STR, A, NULL },
	{ "SlurmSchedLogFile", CV_STR, 0, NULL },
	{ "SlurmSchedLogLevel", CV_UINT, 0, NULL },
	{ "SluiceLogFormat", CV_ENUM, A, "text|json" },  /* Sluice: daemon log lines */
	{ "SlurmUser", CV_STR, A, NULL },
	{ "SrunEpilog", CV_STR, A, NULL },
	{ "SrunPortRange", CV_STR, 0, NULL },
	{ "SrunProlog", CV_STR, A, NULL },
	{ "StateSaveLocation", CV_STR, A, NULL },
	{ "SuspendExcNodes", CV_STR, 0, NULL },
	{ "SuspendExcParts", CV_STR, 0, NULL },
	{ "SuspendProgram", CV_STR, 0, NULL },
	{ "SuspendRate", CV_UINT, 0, NULL },
	{ "SuspendTime", CV_UINTU, 0, NULL },
	{ "SuspendTimeout", CV_UINT, 0, NULL },
	{ "SwitchParameters", CV_STR, 0, NULL },
	{ "SwitchType", CV_STR, 0, NULL },
	{ "TaskEpilog", CV_STR, A, NULL },
	{ "TaskPlugin", CV_STR, A, NULL },
	{ "TaskPluginParam", CV_STR, 0, NULL },
	{ "TaskProlog", CV_STR, A, NULL },
	{ "TCPTimeout", CV_UINT, A, NULL },
	{ "TmpFS", CV_STR, A, NULL },
	{ "TopologyParam", CV_STR, 0, NULL },
	{ "TopologyPlugin", CV_ENUM, A, "topology/tree|topology/none|topology/3d_torus|topology/hypercube" },
	{ "TrackWCKey", CV_BOOL, 0, NULL },
	{ "TreeWidth", CV_UINT, 0, NULL },
	{ "UnkillableStepProgram", CV_STR, 0, NULL },
	{ "UnkillableStepTimeout", CV_UINT, 0, NULL },
	{ "UsePAM", CV_BOOL, 0, NULL },
	{ "VSizeFactor", CV_UINT, 0, NULL },
	{ "WaitTime", CV_UINT, A, NULL },
	{ "X11Parameters", CV_STR, 0, NULL },
	/* Line-starting keys (NodeName=..., etc.) are in their own tables. */
	{ "NodeName", CV_STR, A, NULL },
	{ "PartitionName", CV_STR, A, NULL },
	{ "DownNodes", CV_STR, A, NULL },
	{ "NodeSet", CV_STR, A, NULL },
	{ "FrontendName", CV_STR, 0, NULL },
};
TAB(conf_global_tab, "key", global_keys);

static const char node_states[] = "CLOUD|DOWN|DRAIN|FAIL|FAILING|FUTURE|UNKNOWN";

static const struct conf_keydef node_keys[] = {
	{ "NodeName", CV_STR, A, NULL },
	{ "NodeHostname", CV_STR, A, NULL },
	{ "NodeAddr", CV_STR, A, NULL },
	{ "BcastAddr", CV_STR, 0, NULL },
	{ "Boards", CV_UINT, A, NULL },
	{ "CoreSpecCount", CV_UINT, 0, NULL },
	{ "CoresPerSocket", CV_UINT, A, NULL },
	{ "CpuBind", CV_STR, 0, NULL },
	{ "CPUs", CV_UINT, A, NULL },
	{ "CpuSpecList", CV_STR, 0, NULL },
	{ "Features", CV_STR, A, NULL },
	{ "Feature", CV_STR, A, NULL },
	{ "Gres", CV_STR, A, NULL },
	{ "MemSpecLimit", CV_MEM, 0, NULL },
	{ "Port", CV_STR, A, NULL },
	{ "Procs", CV_UINT, A, NULL },
	{ "RealMemory", CV_MEM, A, NULL },
	{ "Reason", CV_STR, A, NULL },
	{ "Sockets", CV_UINT, A, NULL },
	{ "SocketsPerBoard", CV_UINT, A, NULL },
	{ "State", CV_ENUM, A, node_states },
	{ "ThreadsPerCore", CV_UINT, A, NULL },
	{ "TmpDisk", CV_MEM, A, NULL },
	{ "Weight", CV_UINT, A, NULL },
};
TAB(conf_node_tab, "node option", node_keys);

static const struct conf_keydef part_keys[] = {
	{ "PartitionName", CV_STR, A, NULL },
	{ "AllocNodes", CV_STR, 0, NULL },
	{ "AllowAccounts", CV_STR, A, NULL },
	{ "AllowGroups", CV_STR, A, NULL },
	{ "AllowQos", CV_STR, A, NULL },
	{ "Alternate", CV_STR, 0, NULL },
	{ "CpuBind", CV_STR, 0, NULL },
	{ "Default", CV_BOOL, A, NULL },
	{ "DefaultTime", CV_TIME, A, NULL },
	{ "DefCpuPerGPU", CV_UINT, 0, NULL },
	{ "DefMemPerCPU", CV_MEM, A, NULL },
	{ "DefMemPerGPU", CV_MEM, 0, NULL },
	{ "DefMemPerNode", CV_MEM, A, NULL },
	{ "DenyAccounts", CV_STR, 0, NULL },
	{ "DenyQos", CV_STR, 0, NULL },
	{ "DisableRootJobs", CV_BOOL, A, NULL },
	{ "ExclusiveUser", CV_BOOL, A, NULL },
	{ "GraceTime", CV_UINT, A, NULL },
	{ "Hidden", CV_BOOL, A, NULL },
	{ "LLN", CV_BOOL, A, NULL },
	{ "MaxCPUsPerNode", CV_UINTU, A, NULL },
	{ "MaxMemPerCPU", CV_MEM, A, NULL },
	{ "MaxMemPerNode", CV_MEM, A, NULL },
	{ "MaxNodes", CV_UINTU, A, NULL },
	{ "MaxTime", CV_TIME, A, NULL },
	{ "MinNodes", CV_UINT, A, NULL },
	{ "Nodes", CV_STR, A, NULL },
	{ "OverSubscribe", CV_ENUM, A | CK_PREFIX, "EXCLUSIVE|FORCE|YES|NO" },
	{ "OverTimeLimit", CV_UINTU, 0, NULL },
	{ "PreemptMode", CV_LIST, 0, "OFF|CANCEL|GANG|REQUEUE|SUSPEND|WITHIN" },
	{ "PriorityJobFactor", CV_UINT, A, NULL },
	{ "PriorityTier", CV_UINT, A, NULL },
	{ "QOS", CV_STR, 0, NULL },
	{ "ReqResv", CV_BOOL, A, NULL },
	{ "ResumeTimeout", CV_UINT, 0, NULL },
	{ "RootOnly", CV_BOOL, A, NULL },
	{ "SelectTypeParameters", CV_STR, 0, NULL },
	{ "Shared", CV_ENUM, A | CK_PREFIX, "EXCLUSIVE|FORCE|YES|NO" },
	{ "State", CV_ENUM, A, "UP|DOWN|DRAIN|INACTIVE" },
	{ "SuspendTime", CV_UINTU, 0, NULL },
	{ "SuspendTimeout", CV_UINT, 0, NULL },
	{ "TRESBillingWeights", CV_STR, 0, NULL },
};
TAB(conf_part_tab, "partition option", part_keys);

static const struct conf_keydef nodeset_keys[] = {
	{ "NodeSet", CV_STR, A, NULL },
	{ "Feature", CV_STR, A, NULL },
	{ "Nodes", CV_STR, A, NULL },
};
TAB(conf_nodeset_tab, "nodeset option", nodeset_keys);

static const struct conf_keydef frontend_keys[] = {
	{ "FrontendName", CV_STR, 0, NULL },
	{ "FrontendAddr", CV_STR, 0, NULL },
	{ "AllowGroups", CV_STR, 0, NULL },
	{ "AllowUsers", CV_STR, 0, NULL },
	{ "DenyGroups", CV_STR, 0, NULL },
	{ "DenyUsers", CV_STR, 0, NULL },
	{ "Port", CV_UINT, 0, NULL },
	{ "Reason", CV_STR, 0, NULL },
	{ "State", CV_ENUM, 0, "DOWN|DRAIN|FAIL|FAILING|UNKNOWN" },
};
TAB(conf_frontend_tab, "frontend option", frontend_keys);

static const struct conf_keydef down_keys[] = {
	{ "DownNodes", CV_STR, A, NULL },
	{ "Reason", CV_STR, A, NULL },
	{ "State", CV_ENUM, A, "DOWN|DRAIN|FAIL|FAILING|FUTURE" },
};
TAB(conf_down_tab, "DownNodes option", down_keys);

static const struct conf_keydef cgroup_keys[] = {
	{ "CgroupAutomount", CV_BOOL, 0, NULL },
	{ "CgroupMountpoint", CV_STR, A, NULL },
	{ "CgroupPlugin", CV_ENUM, A, "cgroup/v1|cgroup/v2|autodetect" },
	{ "IgnoreSystemd", CV_BOOL, A, NULL },
	{ "IgnoreSystemdOnFailure", CV_BOOL, 0, NULL },
	{ "AllowedKmemSpace", CV_UINT, 0, NULL },
	{ "AllowedRAMSpace", CV_UINT, A, NULL },
	{ "AllowedSwapSpace", CV_UINT, A, NULL },
	{ "ConstrainCores", CV_BOOL, A, NULL },
	{ "ConstrainDevices", CV_BOOL, A, NULL },
	{ "ConstrainKmemSpace", CV_BOOL, 0, NULL },
	{ "ConstrainRAMSpace", CV_BOOL, A, NULL },
	{ "ConstrainSwapSpace", CV_BOOL, A, NULL },
	{ "MaxRAMPercent", CV_UINT, A, NULL },
	{ "MaxSwapPercent", CV_UINT, A, NULL },
	{ "MaxKmemPercent", CV_UINT, 0, NULL },
	{ "MemorySwappiness", CV_UINT, 0, NULL },
	{ "MinKmemSpace", CV_UINT, 0, NULL },
	{ "MinRAMSpace", CV_UINT, A, NULL },
	{ "PidsLimit", CV_UINT, A, NULL },          /* Sluice: pids.max of each job */
	/* Deprecated in 22.05 but still read by it. */
	{ "CgroupReleaseAgentDir", CV_STR, 0, NULL },
	{ "TaskAffinity", CV_BOOL, 0, NULL },
};
TAB(conf_cgroup_tab, "cgroup.conf key", cgroup_keys);

static const struct conf_keydef gres_keys[] = {
	{ "AutoDetect", CV_ENUM, A, "nvml|rsmi|oneapi|off" },
	{ "Count", CV_STR, A, NULL },
	{ "Cores", CV_STR, A, NULL },
	{ "File", CV_STR, A, NULL },
	{ "Flags", CV_LIST, 0, "CountOnly|nvidia_gpu_env|amd_gpu_env|intel_gpu_env|opencl_env|no_gpu_env" },
	{ "Links", CV_STR, 0, NULL },
	{ "MultipleFiles", CV_STR, 0, NULL },
	{ "Name", CV_STR, A, NULL },
	{ "NodeName", CV_STR, A, NULL },
	{ "Type", CV_STR, A, NULL },
};
TAB(conf_gres_tab, "gres.conf key", gres_keys);

static const struct conf_keydef topo_keys[] = {
	{ "SwitchName", CV_STR, A, NULL },
	{ "Switches", CV_STR, A, NULL },
	{ "Nodes", CV_STR, A, NULL },
	{ "LinkSpeed", CV_UINT, A, NULL },
};
TAB(conf_topo_tab, "topology.conf key", topo_keys);

const struct conf_showdef conf_show_keys[] = {
	{ "AccountingStorageBackupHost", SF_STR, "(null)" },
	{ "AccountingStorageEnforce", SF_STR, "none" },
	{ "AccountingStorageHost", SF_STR, "(null)" },
	{ "AccountingStorageExternalHost", SF_STR, "(null)" },
	{ "AccountingStorageParameters", SF_STR, "(null)" },
	{ "AccountingStoragePort", SF_STR, "0" },
	{ "AccountingStorageTRES", SF_SPECIAL, "cpu,mem,energy,node,billing,fs/disk,vmem,pages" },
	{ "AccountingStorageType", SF_STR, "accounting_storage/none" },
	{ "AccountingStorageUser", SF_STR, "N/A" },
	{ "AccountingStoreFlags", SF_STR, "(null)" },
	{ "AcctGatherEnergyType", SF_STR, "acct_gather_energy/none" },
	{ "AcctGatherFilesystemType", SF_STR, "acct_gather_filesystem/none" },
	{ "AcctGatherInterconnectType", SF_STR, "acct_gather_interconnect/none" },
	{ "AcctGatherNodeFreq", SF_SEC, "0" },
	{ "AcctGatherProfileType", SF_STR, "acct_gather_profile/none" },
	{ "AllowSpecResourcesUsage", SF_YESNO, "No" },
	{ "AuthAltTypes", SF_STR, "(null)" },
	{ "AuthAltParameters", SF_STR, "(null)" },
	{ "AuthInfo", SF_STR, "(null)" },
	{ "AuthType", SF_STR, "auth/munge" },
	{ "BatchStartTimeout", SF_SEC, "10" },
	{ "BcastExclude", SF_STR, "/lib,/usr/lib,/lib64,/usr/lib64" },
	{ "BcastParameters", SF_STR, "(null)" },
	{ "BOOT_TIME", SF_STR, "(null)" },    /* the controller's start: filled by it */
	{ "BurstBufferType", SF_STR, "(null)" },
	{ "CliFilterPlugins", SF_STR, "(null)" },
	{ "ClusterName", SF_STR, "(null)" },
	{ "CommunicationParameters", SF_STR, "(null)" },
	{ "CompleteWait", SF_SEC, "0" },
	{ "CoreSpecPlugin", SF_STR, "core_spec/none" },
	{ "CpuFreqDef", SF_STR, "Unknown" },
	{ "CpuFreqGovernors", SF_STR, "OnDemand,Performance,UserSpace" },
	{ "CredType", SF_STR, "cred/munge" },
	{ "DebugFlags", SF_STR, "(null)" },
	{ "DefMemPerCPU", SF_SPECIAL, "UNLIMITED" },
	{ "DependencyParameters", SF_STR, "(null)" },
	{ "DisableRootJobs", SF_YESNO, "No" },
	{ "EioTimeout", SF_STR, "60" },
	{ "EnforcePartLimits", SF_UPPER, "NO" },
	{ "Epilog", SF_STR, "(null)" },
	{ "EpilogMsgTime", SF_USEC, "2000" },
	{ "EpilogSlurmctld", SF_STR, "(null)" },
	{ "ExtSensorsType", SF_STR, "ext_sensors/none" },
	{ "ExtSensorsFreq", SF_SEC, "0" },
	{ "FairShareDampeningFactor", SF_STR, "1" },
	{ "FederationParameters", SF_STR, "(null)" },
	{ "FirstJobId", SF_STR, "1" },
	{ "GetEnvTimeout", SF_SEC, "2" },
	{ "GresTypes", SF_STR, "(null)" },
	{ "GpuFreqDef", SF_STR, "high,memory=high" },
	{ "GroupUpdateForce", SF_NUMBOOL, "1" },
	{ "GroupUpdateTime", SF_SEC, "600" },
	{ "HASH_VAL", SF_SPECIAL, "Match" },
	{ "HealthCheckInterval", SF_SEC, "0" },
	{ "HealthCheckNodeState", SF_STR, "ANY" },
	{ "HealthCheckProgram", SF_STR, "(null)" },
	{ "InactiveLimit", SF_SEC, "0" },
	{ "InteractiveStepOptions", SF_STR, "--interactive --preserve-env --pty $SHELL" },
	{ "JobAcctGatherFrequency", SF_STR, "30" },
	{ "JobAcctGatherType", SF_STR, "jobacct_gather/none" },
	{ "JobAcctGatherParams", SF_STR, "(null)" },
	{ "JobCompHost", SF_STR, "localhost" },
	{ "JobCompLoc", SF_STR, "/var/log/slurm_jobcomp.log" },
	{ "JobCompPort", SF_STR, "0" },
	{ "JobCompType", SF_STR, "jobcomp/none" },
	{ "JobCompUser", SF_STR, "root" },
	{ "JobContainerType", SF_STR, "job_container/none" },
	{ "JobCredentialPrivateKey", SF_STR, "(null)" },
	{ "JobCredentialPublicCertificate", SF_STR, "(null)" },
	{ "JobDefaults", SF_STR, "(null)" },
	{ "JobFileAppend", SF_NUMBOOL, "0" },
	{ "JobRequeue", SF_NUMBOOL, "1" },
	{ "JobSubmitPlugins", SF_STR, "(null)" },
	{ "KillOnBadExit", SF_NUMBOOL, "0" },
	{ "KillWait", SF_SEC, "30" },
	{ "LaunchParameters", SF_STR, "(null)" },
	{ "LaunchType", SF_STR, "launch/slurm" },
	{ "Licenses", SF_STR, "(null)" },
	{ "LogTimeFormat", SF_STR, "iso8601_ms" },
	{ "MailDomain", SF_STR, "(null)" },
	{ "MailProg", SF_STR, "/bin/mail" },
	{ "MaxArraySize", SF_STR, "1001" },
	{ "MaxDBDMsgs", SF_SPECIAL, "10000" },
	{ "MaxJobCount", SF_STR, "10000" },
	{ "MaxJobId", SF_STR, "67043328" },
	{ "MaxMemPerNode", SF_SPECIAL, "UNLIMITED" },
	{ "MaxNodeCount", SF_SPECIAL, "0" },
	{ "MaxStepCount", SF_STR, "40000" },
	{ "MaxTasksPerNode", SF_STR, "512" },
	{ "MCSPlugin", SF_STR, "mcs/none" },
	{ "MCSParameters", SF_STR, "(null)" },
	{ "MessageTimeout", SF_SEC, "10" },
	{ "MetricsAddress", SF_IFSET, NULL },
	{ "MetricsAllowFrom", SF_IFSET, NULL },
	{ "MetricsPort", SF_IFSET, NULL },
	{ "MetricsTokenFile", SF_IFSET, NULL },
	{ "MetricsType", SF_IFSET, NULL },
	{ "MinJobAge", SF_SEC, "300" },
	{ "MpiDefault", SF_STR, "none" },
	{ "MpiParams", SF_STR, "(null)" },
	{ "MULTIPLE_SLURMD", SF_SPECIAL, "Yes" },
	{ "NEXT_JOB_ID", SF_SPECIAL, "1" },
	{ "NodeFeaturesPlugins", SF_STR, "(null)" },
	{ "OverTimeLimit", SF_MIN, "0" },
	{ "PluginDir", SF_STR, "/usr/lib/x86_64-linux-gnu/slurm-wlm" },
	{ "PlugStackConfig", SF_STR, "(null)" },
	{ "PowerParameters", SF_STR, "(null)" },
	{ "PowerPlugin", SF_STR, "" },
	{ "PreemptMode", SF_STR, "OFF" },
	{ "PreemptType", SF_STR, "preempt/none" },
	{ "PreemptExemptTime", SF_TIME, "0" },
	{ "PrEpParameters", SF_STR, "(null)" },
	{ "PrEpPlugins", SF_STR, "prep/script" },
	{ "PriorityParameters", SF_STR, "(null)" },
	{ "PrioritySiteFactorParameters", SF_STR, "(null)" },
	{ "PrioritySiteFactorPlugin", SF_STR, "(null)" },
	{ "PriorityDecayHalfLife", SF_TIME, "10080" },
	{ "PriorityCalcPeriod", SF_TIME, "5" },
	{ "PriorityFavorSmall", SF_YESNO, "No" },
	{ "PriorityFlags", SF_STR, "" },
	{ "PriorityMaxAge", SF_TIME, "10080" },
	{ "PriorityUsageResetPeriod", SF_STR, "NONE" },
	{ "PriorityType", SF_STR, "priority/basic" },
	{ "PriorityWeightAge", SF_STR, "0" },
	{ "PriorityWeightAssoc", SF_STR, "0" },
	{ "PriorityWeightFairShare", SF_STR, "0" },
	{ "PriorityWeightJobSize", SF_STR, "0" },
	{ "PriorityWeightPartition", SF_STR, "0" },
	{ "PriorityWeightQOS", SF_STR, "0" },
	{ "PriorityWeightTRES", SF_STR, "(null)" },
	{ "PrivateData", SF_STR, "none" },
	{ "ProctrackType", SF_STR, "proctrack/cgroup" },
	{ "Prolog", SF_STR, "(null)" },
	{ "PrologEpilogTimeout", SF_STR, "65534" },
	{ "PrologSlurmctld", SF_STR, "(null)" },
	{ "PrologFlags", SF_STR, "(null)" },
	{ "PropagatePrioProcess", SF_STR, "0" },
	{ "PropagateResourceLimits", SF_STR, "ALL" },
	{ "PropagateResourceLimitsExcept", SF_STR, "(null)" },
	{ "RebootProgram", SF_STR, "(null)" },
	{ "ReconfigFlags", SF_STR, "(null)" },
	{ "RequeueExit", SF_STR, "(null)" },
	{ "RequeueExitHold", SF_STR, "(null)" },
	{ "ResumeFailProgram", SF_STR, "(null)" },
	{ "ResumeProgram", SF_STR, "(null)" },
	{ "ResumeRate", SF_RATE, "300" },
	{ "ResumeTimeout", SF_SEC, "60" },
	{ "ResvEpilog", SF_STR, "(null)" },
	{ "ResvOverRun", SF_MIN, "0" },
	{ "ResvProlog", SF_STR, "(null)" },
	{ "ReturnToService", SF_STR, "0" },
	{ "RoutePlugin", SF_STR, "route/default" },
	{ "SchedulerParameters", SF_STR, "(null)" },
	{ "SchedulerTimeSlice", SF_SEC, "30" },
	{ "SchedulerType", SF_STR, "sched/backfill" },
	{ "ScronParameters", SF_STR, "(null)" },
	{ "SelectType", SF_STR, "select/cons_tres" },
	{ "SelectTypeParameters", SF_UPPER, "CR_Core_Memory" },
	{ "SlurmUser", SF_USER, "root" },
	{ "SlurmctldAddr", SF_STR, "(null)" },
	{ "SlurmctldDebug", SF_STR, "info" },
	{ "SlurmctldHost[0]", SF_SPECIAL, "(null)" },
	{ "SlurmctldLogFile", SF_STR, "(null)" },
	{ "SlurmctldPort", SF_STR, "6817" },
	{ "SlurmctldSyslogDebug", SF_STR, "(null)" },
	{ "SlurmctldPrimaryOffProg", SF_STR, "(null)" },
	{ "SlurmctldPrimaryOnProg", SF_STR, "(null)" },
	{ "SlurmctldTimeout", SF_SEC, "120" },
	{ "SlurmctldParameters", SF_STR, "(null)" },
	{ "SlurmdDebug", SF_STR, "info" },
	{ "SlurmdLogFile", SF_STR, "(null)" },
	{ "SlurmdMetricsDcgmMapDir", SF_IFSET, NULL },
	{ "SlurmdMetricsPort", SF_IFSET, NULL },
	{ "SlurmdParameters", SF_STR, "(null)" },
	{ "SlurmdPidFile", SF_STR, "/var/run/slurmd.pid" },
	{ "SlurmdPort", SF_STR, "6818" },
	{ "SlurmdSpoolDir", SF_STR, "/var/spool/slurmd" },
	{ "SlurmdSyslogDebug", SF_STR, "(null)" },
	{ "SlurmdTimeout", SF_SEC, "300" },
	{ "SlurmdUser", SF_USER, "root" },
	{ "SlurmSchedLogFile", SF_STR, "(null)" },
	{ "SlurmSchedLogLevel", SF_STR, "0" },
	{ "SlurmctldPidFile", SF_STR, "/var/run/slurmctld.pid" },
	{ "SlurmctldPlugstack", SF_STR, "(null)" },
	{ "SLURM_CONF", SF_SPECIAL, "(null)" },
	{ "SLURM_VERSION", SF_SPECIAL, "22.05.8" },
	{ "SrunEpilog", SF_STR, "(null)" },
	{ "SrunPortRange", SF_STR, "0-0" },
	{ "SrunProlog", SF_STR, "(null)" },
	{ "StateSaveLocation", SF_STR, "/var/spool/slurmctld" },
	{ "SuspendExcNodes", SF_STR, "(null)" },
	{ "SuspendExcParts", SF_STR, "(null)" },
	{ "SuspendProgram", SF_STR, "(null)" },
	{ "SuspendRate", SF_RATE, "60" },
	{ "SuspendTime", SF_SPECIAL, "INFINITE" },
	{ "SuspendTimeout", SF_SEC, "30" },
	{ "SwitchParameters", SF_STR, "(null)" },
	{ "SwitchType", SF_STR, "switch/none" },
	{ "TaskEpilog", SF_STR, "(null)" },
	{ "TaskPlugin", SF_STR, "task/none" },
	{ "TaskPluginParam", SF_STR, "(null type)" },
	{ "TaskProlog", SF_STR, "(null)" },
	{ "TCPTimeout", SF_SEC, "2" },
	{ "TmpFS", SF_STR, "/tmp" },
	{ "TopologyParam", SF_STR, "(null)" },
	{ "TopologyPlugin", SF_STR, "topology/none" },
	{ "TrackWCKey", SF_YESNO, "No" },
	{ "TreeWidth", SF_STR, "50" },
	{ "UsePam", SF_YESNO, "No" },
	{ "UnkillableStepProgram", SF_STR, "(null)" },
	{ "UnkillableStepTimeout", SF_SEC, "60" },
	{ "VSizeFactor", SF_PCT, "0" },
	{ "WaitTime", SF_SEC, "0" },
	{ "X11Parameters", SF_STR, "(null)" },
};
const size_t conf_nshow_keys = ARRAY_SIZE(conf_show_keys);

const struct conf_keydef *conf_key_lookup(const struct conf_keytab *tab, const char *name)
{
	int c0 = tolower((unsigned char)name[0]);
	for (size_t i = 0; i < tab->nkeys; i++) {
		const char *k = tab->keys[i].name;
		if (tolower((unsigned char)k[0]) == c0 && !strcasecmp(k, name))
			return &tab->keys[i];
	}
	return NULL;
}

/* Case-insensitive Levenshtein distance, capped: names are short. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t prev[65], cur[65];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = prev[j - 1] + cost;
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			cur[j] = v;
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

const char *conf_key_suggest(const struct conf_keytab *tab, const char *name)
{
	size_t len = strlen(name), best = 99;
	const char *best_name = NULL;
	/* Allow about one typo per four letters, at least 2. */
	size_t limit = len / 4 > 2 ? len / 4 : 2;
	for (size_t i = 0; i < tab->nkeys; i++) {
		size_t d = edit_distance(name, tab->keys[i].name);
		if (d < best) {
			best = d;
			best_name = tab->keys[i].name;
		}
	}
	return best <= limit && best < len ? best_name : NULL;
}

int conf_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	uint64_t v = 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

int conf_parse_bool(const char *s, int *out)
{
	static const char *yes[] = { "yes", "y", "true", "1", "on" };
	static const char *no[] = { "no", "n", "false", "0", "off" };
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

/* Read up to 'max' ':'-separated numbers from s into v; returns the count
 * or -1. */
static int time_fields(const char *s, uint64_t *v, int max)
{
	int n = 0;
	for (;;) {
		if (n == max || !isdigit((unsigned char)*s))
			return -1;
		uint64_t x = 0;
		while (isdigit((unsigned char)*s)) {
			x = x * 10 + (uint64_t)(*s++ - '0');
			if (x > 100000000)
				return -1;
		}
		v[n++] = x;
		if (!*s)
			return n;
		if (*s++ != ':')
			return -1;
	}
}

int conf_parse_time(const char *s, uint32_t *mins)
{
	if (!strcasecmp(s, "INFINITE") || !strcasecmp(s, "UNLIMITED") || !strcmp(s, "-1")) {
		*mins = TIME_INFINITE;
		return 0;
	}
	uint64_t d = 0, v[3] = { 0, 0, 0 }, secs;
	const char *dash = strchr(s, '-');
	int n;
	if (dash) {
		uint64_t dv[1];
		char buf[32];
		size_t dl = (size_t)(dash - s);
		if (dl == 0 || dl >= sizeof(buf))
			return -1;
		memcpy(buf, s, dl);
		buf[dl] = '\0';
		if (time_fields(buf, dv, 1) != 1)
			return -1;
		d = dv[0];
		/* days-hours[:minutes[:seconds]] */
		n = time_fields(dash + 1, v, 3);
		if (n < 0)
			return -1;
		secs = ((d * 24 + v[0]) * 60 + v[1]) * 60 + v[2];
	} else {
		n = time_fields(s, v, 3);
		if (n == 1)        /* minutes */
			secs = v[0] * 60;
		else if (n == 2)   /* minutes:seconds */
			secs = v[0] * 60 + v[1];
		else if (n == 3)   /* hours:minutes:seconds */
			secs = (v[0] * 60 + v[1]) * 60 + v[2];
		else
			return -1;
	}
	uint64_t m = (secs + 59) / 60;
	if (m >= TIME_NO_VAL)
		return -1;
	*mins = (uint32_t)m;
	return 0;
}

int conf_parse_mem(const char *s, uint64_t *mb)
{
	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE")) {
		*mb = UINT64_MAX;
		return 0;
	}
	char buf[32];
	size_t len = strlen(s);
	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len + 1);
	uint64_t mult = 1, div = 1;
	switch (toupper((unsigned char)buf[len - 1])) {
	case 'K': div = 1024; buf[--len] = '\0'; break;
	case 'M': buf[--len] = '\0'; break;
	case 'G': mult = 1024; buf[--len] = '\0'; break;
	case 'T': mult = 1024 * 1024; buf[--len] = '\0'; break;
	default: break;
	}
	uint64_t v;
	if (conf_parse_uint(buf, UINT64_MAX / (1024 * 1024), &v) < 0)
		return -1;
	*mb = v * mult / div;
	return 0;
}

/* Is item (length len) one of the '|'-separated values? */
static int enum_has(const char *values, const char *item, size_t len)
{
	const char *p = values;
	while (*p) {
		const char *e = strchr(p, '|');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == len && !strncasecmp(p, item, len))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

const char *conf_key_check(const struct conf_keydef *def, const char *value)
{
	uint64_t u;
	uint32_t m;
	int b;
	switch (def->type) {
	case CV_UINT:
		return conf_parse_uint(value, UINT32_MAX - 2, &u) ? "a number" : NULL;
	case CV_UINTU:
		if (!strcasecmp(value, "UNLIMITED") || !strcasecmp(value, "INFINITE") || !strcmp(value, "-1"))
			return NULL;
		return conf_parse_uint(value, UINT32_MAX - 2, &u) ? "a number or UNLIMITED" : NULL;
	case CV_BOOL:
		return conf_parse_bool(value, &b) ? "YES or NO" : NULL;
	case CV_TIME:
		return conf_parse_time(value, &m) ? "a time ([days-]hours:minutes:seconds, minutes, or INFINITE)" : NULL;
	case CV_MEM:
		return conf_parse_mem(value, &u) ? "a size in megabytes (optional K, M, G or T suffix)" : NULL;
	case CV_DEBUG:
		if (enum_has(debug_levels, value, strlen(value)))
			return NULL;
		return conf_parse_uint(value, 9, &u) ? "a log level (quiet, fatal, error, info, verbose, debug, debug2..debug5)" : NULL;
	case CV_PORT: {
		const char *dash = strchr(value, '-');
		char buf[16];
		if (dash) {
			size_t l = (size_t)(dash - value);
			if (l >= sizeof(buf))
				return "a port number or range (6817-6820)";
			memcpy(buf, value, l);
			buf[l] = '\0';
			uint64_t hi;
			if (conf_parse_uint(buf, 65535, &u) || conf_parse_uint(dash + 1, 65535, &hi) || hi < u || u == 0)
				return "a port number or range (6817-6820)";
			return NULL;
		}
		return conf_parse_uint(value, 65535, &u) || u == 0 ? "a port number (1-65535)" : NULL;
	}
	case CV_ENUM: {
		size_t len = strlen(value);
		if (def->flags & CK_PREFIX) {
			const char *c = strchr(value, ':');
			if (c) {
				len = (size_t)(c - value);
				if (conf_parse_uint(c + 1, 65535, &u))
					return def->values;
			}
		}
		return enum_has(def->values, value, len) ? NULL : def->values;
	}
	case CV_LIST: {
		const char *p = value;
		for (;;) {
			const char *e = strchr(p, ',');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			/* "item=value" items (e.g. PreemptMode within) check the name only. */
			const char *eq = memchr(p, '=', l);
			size_t nl = eq ? (size_t)(eq - p) : l;
			if (!enum_has(def->values, p, nl))
				return def->values;
			if (!e)
				return NULL;
			p = e + 1;
		}
	}
	default:
		return NULL;
	}
}
