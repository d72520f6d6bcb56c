/*
 * proto_schema: one table per message struct of proto.h, walked by the
 * generic codec in codec.c. Tags are the wire identity of a field: they
 * are numbered in declaration order and must never be reused or renumbered;
 * a new field gets the next free tag of its struct. Counts of lists,
 * arrays and byte buffers are not fields of their own: they travel inside
 * the list they count.
 */
#include "proto_schema.h"

#include <stddef.h>

#define F(st, f, tag, ty) { tag, ty, offsetof(st, f), 0, NULL, #f }
#define U32(st, f, tag) F(st, f, tag, FT_U32)
#define I32(st, f, tag) F(st, f, tag, FT_I32)
#define U64(st, f, tag) F(st, f, tag, FT_U64)
#define I64(st, f, tag) F(st, f, tag, FT_I64)
#define STR(st, f, tag) F(st, f, tag, FT_STR)
#define STRV(st, f, tag) F(st, f, tag, FT_STRV)
#define ARR(st, f, n, tag, ty) { tag, ty, offsetof(st, f), offsetof(st, n), NULL, #f }
#define LIST(st, f, n, tag, sub) { tag, FT_LIST, offsetof(st, f), offsetof(st, n), &sub, #f }
#define SCHEMA(var, st, name, tab) \
	static const proto_schema_t var = { name, sizeof(st), tab, ARRAY_N(tab) }
#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

static const proto_schema_t empty_schema = { "msg_empty", sizeof(msg_empty_t), NULL, 0 };

static const proto_field_t rc_f[] = {
	I32(msg_rc_t, rc, 1),
	STR(msg_rc_t, msg, 2),
};
SCHEMA(rc_schema, msg_rc_t, "msg_rc", rc_f);

static const proto_field_t job_desc_f[] = {
	STR(job_desc_t, name, 1),
	STR(job_desc_t, script, 2),
	STRV(job_desc_t, argv, 3),
	STRV(job_desc_t, env, 4),
	U32(job_desc_t, user_id, 5),
	U32(job_desc_t, group_id, 6),
	STR(job_desc_t, user_name, 7),
	STR(job_desc_t, partition, 8),
	STR(job_desc_t, account, 9),
	STR(job_desc_t, qos, 10),
	STR(job_desc_t, reservation, 11),
	STR(job_desc_t, comment, 12),
	U32(job_desc_t, min_nodes, 13),
	U32(job_desc_t, max_nodes, 14),
	U32(job_desc_t, ntasks, 15),
	U32(job_desc_t, cpus_per_task, 16),
	U32(job_desc_t, ntasks_per_node, 17),
	U64(job_desc_t, mem_per_node, 18),
	U64(job_desc_t, mem_per_cpu, 19),
	STR(job_desc_t, tres_per_node, 20),
	STR(job_desc_t, tres_per_job, 21),
	U32(job_desc_t, time_limit, 22),
	U32(job_desc_t, flags, 23),
	I32(job_desc_t, nice, 24),
	I64(job_desc_t, begin_time, 25),
	STR(job_desc_t, req_nodes, 26),
	STR(job_desc_t, exc_nodes, 27),
	STR(job_desc_t, features, 28),
	STR(job_desc_t, dependency, 29),
	STR(job_desc_t, work_dir, 30),
	STR(job_desc_t, std_in, 31),
	STR(job_desc_t, std_out, 32),
	STR(job_desc_t, std_err, 33),
	STR(job_desc_t, alloc_node, 34),
	U32(job_desc_t, alloc_sid, 35),
	U32(job_desc_t, kill_on_invalid_dep, 36),
	U32(job_desc_t, req_switch, 37),
	U32(job_desc_t, wait4switch, 38),
	STR(job_desc_t, tres_per_task, 39),
	U32(job_desc_t, cpus_per_gpu, 40),
	U64(job_desc_t, mem_per_gpu, 41),
	U32(job_desc_t, warn_signal, 50),
	U32(job_desc_t, warn_time, 51),
	U32(job_desc_t, warn_flags, 52),
	U32(job_desc_t, get_user_env, 53),
	U32(job_desc_t, mail_type, 54),
	STR(job_desc_t, mail_user, 55),
	U32(job_desc_t, as_ids, 56),
	STR(job_desc_t, request_id, 64),
	STR(job_desc_t, array_inx, 70),
	/* 120-129: --mincpus, --tmp, --deadline (branch sbopts) */
	U32(job_desc_t, pn_min_cpus, 120),
	U64(job_desc_t, pn_min_tmp, 121),
	I64(job_desc_t, deadline, 122),
};
SCHEMA(job_desc_schema, job_desc_t, "job_desc", job_desc_f);

static const proto_field_t submit_reply_f[] = {
	I32(msg_submit_reply_t, rc, 1),
	U32(msg_submit_reply_t, job_id, 2),
	STR(msg_submit_reply_t, msg, 3),
	/* 20-29: --test-only (branch sbopts) */
	I64(msg_submit_reply_t, start_time, 20),
	U32(msg_submit_reply_t, test_cpus, 21),
	STR(msg_submit_reply_t, test_nodes, 22),
	STR(msg_submit_reply_t, test_partition, 23),
};
SCHEMA(submit_reply_schema, msg_submit_reply_t, "msg_submit_reply", submit_reply_f);

static const proto_field_t info_req_f[] = {
	U32(msg_info_req_t, job_id, 1),
	STR(msg_info_req_t, name, 2),
	U32(msg_info_req_t, flags, 3),
	I64(msg_info_req_t, changed_since, 4),
	U32(msg_info_req_t, fields, 5),
};
SCHEMA(info_req_schema, msg_info_req_t, "msg_info_req", info_req_f);

static const proto_field_t job_info_f[] = {
	U32(job_info_t, job_id, 1),
	U32(job_info_t, array_job_id, 2),
	U32(job_info_t, array_task_id, 3),
	STR(job_info_t, name, 4),
	U32(job_info_t, user_id, 5),
	U32(job_info_t, group_id, 6),
	STR(job_info_t, user_name, 7),
	STR(job_info_t, group_name, 8),
	U32(job_info_t, priority, 9),
	I32(job_info_t, nice, 10),
	STR(job_info_t, account, 11),
	STR(job_info_t, qos, 12),
	STR(job_info_t, partition, 13),
	U32(job_info_t, state, 14),
	U32(job_info_t, state_reason, 15),
	STR(job_info_t, state_desc, 16),
	STR(job_info_t, dependency, 17),
	U32(job_info_t, requeue, 18),
	U32(job_info_t, restarts, 19),
	U32(job_info_t, batch_flag, 20),
	U32(job_info_t, exit_code, 21),
	U32(job_info_t, derived_exit_code, 22),
	U32(job_info_t, time_limit, 23),
	I64(job_info_t, submit_time, 24),
	I64(job_info_t, eligible_time, 25),
	I64(job_info_t, accrue_time, 26),
	I64(job_info_t, start_time, 27),
	I64(job_info_t, end_time, 28),
	I64(job_info_t, suspend_time, 29),
	I64(job_info_t, last_sched_eval, 30),
	I64(job_info_t, pre_sus_time, 31),
	STR(job_info_t, alloc_node, 32),
	U32(job_info_t, alloc_sid, 33),
	STR(job_info_t, req_nodes, 34),
	STR(job_info_t, exc_nodes, 35),
	STR(job_info_t, nodes, 36),
	STR(job_info_t, sched_nodes, 37),
	STR(job_info_t, batch_host, 38),
	U32(job_info_t, num_nodes, 39),
	U32(job_info_t, max_nodes, 40),
	U32(job_info_t, num_cpus, 41),
	U32(job_info_t, num_tasks, 42),
	U32(job_info_t, cpus_per_task, 43),
	U32(job_info_t, ntasks_per_node, 44),
	U32(job_info_t, pn_min_cpus, 45),
	U64(job_info_t, mem_per_cpu, 46),
	U64(job_info_t, mem_per_node, 47),
	STR(job_info_t, features, 48),
	U32(job_info_t, flags, 49),
	U32(job_info_t, contiguous, 50),
	STR(job_info_t, command, 51),
	STR(job_info_t, work_dir, 52),
	STR(job_info_t, std_in, 53),
	STR(job_info_t, std_out, 54),
	STR(job_info_t, std_err, 55),
	STR(job_info_t, tres_per_node, 56),
	STR(job_info_t, tres_per_job, 57),
	STR(job_info_t, tres_req, 58),
	STR(job_info_t, tres_alloc, 59),
	STRV(job_info_t, gres_detail, 60),
	STR(job_info_t, cpu_ids, 61),
	STR(job_info_t, comment, 62),
	STR(job_info_t, scheduler, 63),
	STR(job_info_t, array_task_str, 64),
	STR(job_info_t, tres_per_task, 65),
	U32(job_info_t, cpus_per_gpu, 66),
	U64(job_info_t, mem_per_gpu, 67),
	STR(job_info_t, mem_alloc, 68),
	U32(job_info_t, array_max_tasks, 70),
	/* tags from 101: squeue parity (issue 10), apart from other work */
	U32(job_info_t, assoc_id, 101),
	/* 120-129: --tmp, --deadline (branch sbopts) */
	U64(job_info_t, min_tmp_disk, 120),
	I64(job_info_t, deadline, 121),
	U32(job_info_t, time_min, 122),
	/* tags from 150: the NCCL transport check (issue 11) */
	STR(job_info_t, nccl_transport, 150),
	STR(job_info_t, nccl_source, 151),
	STR(job_info_t, nccl_node, 152),
	STR(job_info_t, nccl_detail, 153),
	I64(job_info_t, nccl_time, 154),
	/* tags from 160: advance reservations (resv) */
	STR(job_info_t, reservation, 160),
};
SCHEMA(job_info_schema, job_info_t, "job_info", job_info_f);

static const proto_field_t msg_job_info_f[] = {
	I64(msg_job_info_t, last_update, 1),
	LIST(msg_job_info_t, jobs, njobs, 2, job_info_schema),
};
SCHEMA(msg_job_info_schema, msg_job_info_t, "msg_job_info", msg_job_info_f);

static const proto_field_t node_info_f[] = {
	STR(node_info_t, name, 1),
	STR(node_info_t, addr, 2),
	STR(node_info_t, hostname, 3),
	U32(node_info_t, port, 4),
	U32(node_info_t, state, 5),
	U32(node_info_t, cpus, 6),
	U32(node_info_t, cpus_alloc, 7),
	U32(node_info_t, cpus_efctv, 8),
	U32(node_info_t, boards, 9),
	U32(node_info_t, sockets, 10),
	U32(node_info_t, cores, 11),
	U32(node_info_t, threads, 12),
	U32(node_info_t, cpu_load, 13),
	U64(node_info_t, real_memory, 14),
	U64(node_info_t, alloc_mem, 15),
	U64(node_info_t, free_mem, 16),
	U64(node_info_t, tmp_disk, 17),
	U32(node_info_t, weight, 18),
	STR(node_info_t, features, 19),
	STR(node_info_t, features_active, 20),
	STR(node_info_t, gres, 21),
	STR(node_info_t, gres_used, 22),
	STR(node_info_t, arch, 23),
	STR(node_info_t, os, 24),
	STR(node_info_t, version, 25),
	STR(node_info_t, partitions, 26),
	I64(node_info_t, boot_time, 27),
	I64(node_info_t, slurmd_start_time, 28),
	I64(node_info_t, last_busy, 29),
	STR(node_info_t, reason, 30),
	U32(node_info_t, reason_uid, 31),
	STR(node_info_t, reason_user, 32),
	I64(node_info_t, reason_time, 33),
	STR(node_info_t, cfg_tres, 34),
	STR(node_info_t, alloc_tres, 35),
	STR(node_info_t, comment, 36),
	STR(node_info_t, extra, 37),
	STR(node_info_t, health, 38),
	STR(node_info_t, key_digest, 39),
	U32(node_info_t, key_match, 40),
	U32(node_info_t, health_round, 41),
	U32(node_info_t, health_nchecks, 42),
};
SCHEMA(node_info_schema, node_info_t, "node_info", node_info_f);

static const proto_field_t msg_node_info_f[] = {
	I64(msg_node_info_t, last_update, 1),
	LIST(msg_node_info_t, nodes, nnodes, 2, node_info_schema),
};
SCHEMA(msg_node_info_schema, msg_node_info_t, "msg_node_info", msg_node_info_f);

static const proto_field_t part_info_f[] = {
	STR(part_info_t, name, 1),
	STR(part_info_t, nodes, 2),
	U32(part_info_t, flags, 3),
	U32(part_info_t, state, 4),
	U32(part_info_t, max_time, 5),
	U32(part_info_t, default_time, 6),
	U32(part_info_t, max_nodes, 7),
	U32(part_info_t, min_nodes, 8),
	U32(part_info_t, priority_job_factor, 9),
	U32(part_info_t, priority_tier, 10),
	STR(part_info_t, oversubscribe, 11),
	STR(part_info_t, allow_groups, 12),
	STR(part_info_t, allow_accounts, 13),
	STR(part_info_t, allow_qos, 14),
	STR(part_info_t, qos, 15),
	U32(part_info_t, total_cpus, 16),
	U32(part_info_t, total_nodes, 17),
	U32(part_info_t, max_cpus_per_node, 18),
	U32(part_info_t, grace_time, 19),
	U64(part_info_t, def_mem_per_cpu, 20),
	U64(part_info_t, max_mem_per_cpu, 21),
	U64(part_info_t, def_mem_per_node, 22),
	U64(part_info_t, max_mem_per_node, 23),
	STR(part_info_t, tres, 24),
};
SCHEMA(part_info_schema, part_info_t, "part_info", part_info_f);

static const proto_field_t msg_part_info_f[] = {
	I64(msg_part_info_t, last_update, 1),
	LIST(msg_part_info_t, parts, nparts, 2, part_info_schema),
};
SCHEMA(msg_part_info_schema, msg_part_info_t, "msg_part_info", msg_part_info_f);

static const proto_field_t config_f[] = {
	I64(msg_config_t, last_update, 1),
	STRV(msg_config_t, keys, 2),
	STRV(msg_config_t, values, 3),
};
SCHEMA(config_schema, msg_config_t, "msg_config", config_f);

static const proto_field_t config_files_f[] = {
	STRV(msg_config_files_t, names, 1),
	STRV(msg_config_files_t, data, 2),
};
SCHEMA(config_files_schema, msg_config_files_t, "msg_config_files", config_files_f);

static const proto_field_t cancel_f[] = {
	ARR(msg_cancel_t, job_ids, njob_ids, 1, FT_U32ARR),
	U32(msg_cancel_t, signal, 2),
	U32(msg_cancel_t, flags, 3),
	ARR(msg_cancel_t, task_ids, ntask_ids, 10, FT_U32ARR),
};
SCHEMA(cancel_schema, msg_cancel_t, "msg_cancel", cancel_f);

static const proto_field_t cancel_reply_f[] = {
	ARR(msg_cancel_reply_t, rcs, nrcs, 1, FT_I32ARR),
};
SCHEMA(cancel_reply_schema, msg_cancel_reply_t, "msg_cancel_reply", cancel_reply_f);

static const proto_field_t update_node_f[] = {
	STR(msg_update_node_t, names, 1),
	STR(msg_update_node_t, state, 2),
	STR(msg_update_node_t, reason, 3),
	STR(msg_update_node_t, features, 4),
	STR(msg_update_node_t, gres, 5),
	U32(msg_update_node_t, weight, 6),
	STR(msg_update_node_t, comment, 7),
	STR(msg_update_node_t, extra, 8),
};
SCHEMA(update_node_schema, msg_update_node_t, "msg_update_node", update_node_f);

static const proto_field_t update_part_f[] = {
	STR(msg_update_part_t, name, 1),
	STR(msg_update_part_t, state, 2),
	STRV(msg_update_part_t, keys, 3),
	STRV(msg_update_part_t, values, 4),
};
SCHEMA(update_part_schema, msg_update_part_t, "msg_update_part", update_part_f);

static const proto_field_t update_job_f[] = {
	U32(msg_update_job_t, job_id, 1),
	STR(msg_update_job_t, action, 2),
	STRV(msg_update_job_t, keys, 3),
	STRV(msg_update_job_t, values, 4),
	U32(msg_update_job_t, array_task, 10),
};
SCHEMA(update_job_schema, msg_update_job_t, "msg_update_job", update_job_f);

static const proto_field_t job_wait_f[] = {
	U32(msg_job_wait_t, job_id, 1),
	U32(msg_job_wait_t, until, 2),
};
SCHEMA(job_wait_schema, msg_job_wait_t, "msg_job_wait", job_wait_f);

static const proto_field_t step_create_f[] = {
	U32(msg_step_create_t, job_id, 1),
	U32(msg_step_create_t, ntasks, 2),
	U32(msg_step_create_t, min_nodes, 3),
	STR(msg_step_create_t, name, 4),
	STR(msg_step_create_t, digest, 5),
	U32(msg_step_create_t, flags, 6),
	U32(msg_step_create_t, cpus_per_task, 7),
	U32(msg_step_create_t, time_limit, 8),
	STR(msg_step_create_t, srun_host, 9),
	U32(msg_step_create_t, srun_pid, 10),
	STR(msg_step_create_t, tres_per_node, 11),
	STR(msg_step_create_t, tres_per_task, 12),
	STR(msg_step_create_t, tres_per_job, 13),
	U32(msg_step_create_t, cpus_per_gpu, 14),
};
SCHEMA(step_create_schema, msg_step_create_t, "msg_step_create", step_create_f);

static const proto_field_t step_create_reply_f[] = {
	I32(msg_step_create_reply_t, rc, 1),
	U32(msg_step_create_reply_t, job_id, 2),
	U32(msg_step_create_reply_t, step_id, 3),
	STR(msg_step_create_reply_t, nodes, 4),
	STRV(msg_step_create_reply_t, node_names, 5),
	STRV(msg_step_create_reply_t, node_addrs, 6),
	ARR(msg_step_create_reply_t, ports, nports, 7, FT_U32ARR),
	ARR(msg_step_create_reply_t, ntasks_per_node, ntasks_per_node_n, 8, FT_U32ARR),
	STR(msg_step_create_reply_t, cred, 9),
	STRV(msg_step_create_reply_t, topo_addrs, 10),
	STR(msg_step_create_reply_t, topo_pattern, 11),
	ARR(msg_step_create_reply_t, cpus_per_node, ncpus_per_node, 12, FT_U32ARR),
	STRV(msg_step_create_reply_t, cpu_ids, 13),
	STR(msg_step_create_reply_t, launch_key, 14),
};
SCHEMA(step_create_reply_schema, msg_step_create_reply_t, "msg_step_create_reply", step_create_reply_f);

static const proto_field_t set_debug_f[] = {
	U32(msg_set_debug_t, level, 1),
};
SCHEMA(set_debug_schema, msg_set_debug_t, "msg_set_debug", set_debug_f);

static const proto_field_t launch_prolog_f[] = {
	U32(msg_launch_prolog_t, job_id, 1),
	U32(msg_launch_prolog_t, launch_seq, 2),
	STRV(msg_launch_prolog_t, prolog_env, 3),
};
SCHEMA(launch_prolog_schema, msg_launch_prolog_t, "msg_launch_prolog", launch_prolog_f);

static const proto_field_t prolog_complete_f[] = {
	U32(msg_prolog_complete_t, job_id, 1),
	U32(msg_prolog_complete_t, launch_seq, 2),
	STR(msg_prolog_complete_t, node, 3),
	U32(msg_prolog_complete_t, rc, 4),
	U32(msg_prolog_complete_t, flags, 5),
};
SCHEMA(prolog_complete_schema, msg_prolog_complete_t, "msg_prolog_complete", prolog_complete_f);
static const proto_field_t job_nccl_f[] = {
	U32(msg_job_nccl_t, job_id, 1),
	U32(msg_job_nccl_t, launch_seq, 2),
	STR(msg_job_nccl_t, node, 3),
	STR(msg_job_nccl_t, transport, 4),
	U32(msg_job_nccl_t, source, 5),
	STR(msg_job_nccl_t, detail, 6),
	I64(msg_job_nccl_t, time, 7),
};
SCHEMA(job_nccl_schema, msg_job_nccl_t, "msg_job_nccl", job_nccl_f);

static const proto_field_t job_complete_f[] = {
	U32(msg_job_complete_t, job_id, 1),
	U32(msg_job_complete_t, step_id, 2),
	U32(msg_job_complete_t, launch_seq, 3),
	U32(msg_job_complete_t, exit_status, 4),
	U32(msg_job_complete_t, end_state, 5),
	STR(msg_job_complete_t, node, 6),
	I64(msg_job_complete_t, end_time, 7),
	U32(msg_job_complete_t, rc, 8),
};
SCHEMA(job_complete_schema, msg_job_complete_t, "msg_job_complete", job_complete_f);

#define SC msg_step_complete_t
static const proto_field_t step_complete_f[] = {
	U32(SC, job_id, 1), U32(SC, step_id, 2), U32(SC, launch_seq, 3), STR(SC, node, 4),
	U32(SC, node_id, 5), U32(SC, nnodes, 6), U32(SC, exit_status, 7), U32(SC, end_state, 8),
	I64(SC, start_time, 9), I64(SC, end_time, 10), U32(SC, gathered, 11),
	U32(SC, usage.ntasks, 20), U64(SC, usage.user_cpu_us, 21), U64(SC, usage.sys_cpu_us, 22),
	U64(SC, usage.max_rss_kb, 23), U64(SC, usage.sum_rss_kb, 24),
	U64(SC, usage.max_vmsize_kb, 25), U64(SC, usage.sum_vmsize_kb, 26),
	U64(SC, usage.max_pages, 27), U64(SC, usage.sum_pages, 28),
	U64(SC, usage.min_cpu_us, 29), U64(SC, usage.sum_cpu_us, 30),
	U64(SC, usage.max_disk_read, 31), U64(SC, usage.sum_disk_read, 32),
	U64(SC, usage.max_disk_write, 33), U64(SC, usage.sum_disk_write, 34),
	U32(SC, usage.max_rss_task, 35), U32(SC, usage.max_vmsize_task, 36),
	U32(SC, usage.max_pages_task, 37), U32(SC, usage.min_cpu_task, 38),
	U32(SC, usage.max_disk_read_task, 39), U32(SC, usage.max_disk_write_task, 40),
};
#undef SC
SCHEMA(step_complete_schema, msg_step_complete_t, "msg_step_complete", step_complete_f);

static const proto_field_t node_register_f[] = {
	STR(msg_node_register_t, name, 1),
	U32(msg_node_register_t, port, 2),
	U32(msg_node_register_t, cpus, 3),
	U32(msg_node_register_t, boards, 4),
	U32(msg_node_register_t, sockets, 5),
	U32(msg_node_register_t, cores, 6),
	U32(msg_node_register_t, threads, 7),
	U64(msg_node_register_t, real_memory, 8),
	U64(msg_node_register_t, tmp_disk, 9),
	U64(msg_node_register_t, free_mem, 10),
	U32(msg_node_register_t, cpu_load, 11),
	STR(msg_node_register_t, gres, 12),
	STR(msg_node_register_t, arch, 13),
	STR(msg_node_register_t, os, 14),
	STR(msg_node_register_t, version, 15),
	I64(msg_node_register_t, boot_time, 16),
	I64(msg_node_register_t, start_time, 17),
	ARR(msg_node_register_t, job_ids, njob_ids, 18, FT_U32ARR),
	U64(msg_node_register_t, sent_ms, 19),
	U64(msg_node_register_t, ping_seq, 20),
	U32(msg_node_register_t, health_round, 21),
	STR(msg_node_register_t, health, 22),
	STR(msg_node_register_t, key_digest, 23),
	U32(msg_node_register_t, health_nchecks, 24),
};
SCHEMA(node_register_schema, msg_node_register_t, "msg_node_register", node_register_f);

static const proto_field_t launch_job_f[] = {
	U32(msg_launch_job_t, job_id, 1),
	U32(msg_launch_job_t, launch_seq, 2),
	U32(msg_launch_job_t, user_id, 3),
	U32(msg_launch_job_t, group_id, 4),
	STR(msg_launch_job_t, user_name, 5),
	STR(msg_launch_job_t, name, 6),
	STR(msg_launch_job_t, script, 7),
	STR(msg_launch_job_t, work_dir, 8),
	STR(msg_launch_job_t, std_in, 9),
	STR(msg_launch_job_t, std_out, 10),
	STR(msg_launch_job_t, std_err, 11),
	STRV(msg_launch_job_t, argv, 12),
	STRV(msg_launch_job_t, env, 13),
	U32(msg_launch_job_t, flags, 14),
	U32(msg_launch_job_t, time_limit, 15),
	U32(msg_launch_job_t, kill_wait, 16),
	I64(msg_launch_job_t, start_time, 17),
	STR(msg_launch_job_t, ctld_addr, 18),
	U32(msg_launch_job_t, ctld_port, 19),
	STR(msg_launch_job_t, cores, 20),
	U64(msg_launch_job_t, mem_mb, 21),
	U64(msg_launch_job_t, gpus, 22),
	U32(msg_launch_job_t, warn_signal, 30),
	U32(msg_launch_job_t, warn_time, 31),
	U32(msg_launch_job_t, warn_flags, 32),
	U32(msg_launch_job_t, get_user_env, 33),
	STRV(msg_launch_job_t, prolog_env, 23),
};
SCHEMA(launch_job_schema, msg_launch_job_t, "msg_launch_job", launch_job_f);

static const proto_field_t signal_job_f[] = {
	U32(msg_signal_job_t, job_id, 1),
	U32(msg_signal_job_t, signal, 2),
	U32(msg_signal_job_t, flags, 3),
	U32(msg_signal_job_t, kill_wait, 4),
	U32(msg_signal_job_t, end_state, 5),
	I64(msg_signal_job_t, end_time, 6),
	STR(msg_signal_job_t, message, 7),
};
SCHEMA(signal_job_schema, msg_signal_job_t, "msg_signal_job", signal_job_f);

static const proto_field_t node_ack_f[] = {
	U64(msg_node_ack_t, sent_ms, 1),
	I64(msg_node_ack_t, ctld_time_ms, 2),
};
SCHEMA(node_ack_schema, msg_node_ack_t, "msg_node_ack", node_ack_f);

static const proto_field_t node_ping_f[] = {
	U64(msg_node_ping_t, seq, 1),
	U32(msg_node_ping_t, flags, 2),
};
SCHEMA(node_ping_schema, msg_node_ping_t, "msg_node_ping", node_ping_f);

static const proto_field_t launch_step_f[] = {
	U32(msg_launch_step_t, job_id, 1),
	U32(msg_launch_step_t, step_id, 2),
	U32(msg_launch_step_t, user_id, 3),
	U32(msg_launch_step_t, group_id, 4),
	STR(msg_launch_step_t, cred, 5),
	STRV(msg_launch_step_t, argv, 6),
	STRV(msg_launch_step_t, env, 7),
	STR(msg_launch_step_t, cwd, 8),
	U32(msg_launch_step_t, ntasks, 9),
	U32(msg_launch_step_t, first_task, 10),
	U32(msg_launch_step_t, total_tasks, 11),
	U32(msg_launch_step_t, node_id, 12),
	U32(msg_launch_step_t, nnodes, 13),
	U32(msg_launch_step_t, flags, 14),
	U32(msg_launch_step_t, stdin_task, 15),
	U32(msg_launch_step_t, time_limit, 16),
	STR(msg_launch_step_t, multi_prog, 17),
	STR(msg_launch_step_t, tasks_per_node, 18),
	STR(msg_launch_step_t, topo_addr, 19),
	STR(msg_launch_step_t, topo_pattern, 20),
	U32(msg_launch_step_t, cpus_on_node, 21),
	STR(msg_launch_step_t, task_prolog, 22),
	STR(msg_launch_step_t, task_epilog, 23),
	STR(msg_launch_step_t, job_cpus_per_node, 24),
	STR(msg_launch_step_t, cpu_bind, 25),
	STR(msg_launch_step_t, cpu_ids, 26),
	U32(msg_launch_step_t, cpus_per_task, 27),
	U32(msg_launch_step_t, pty_rows, 28),
	U32(msg_launch_step_t, pty_cols, 29),
	STR(msg_launch_step_t, launch_mac, 30),
	STR(msg_launch_step_t, gpu_bind, 31),
};
SCHEMA(launch_step_schema, msg_launch_step_t, "msg_launch_step", launch_step_f);

static const proto_field_t step_io_f[] = {
	U32(msg_step_io_t, task, 1),
	U32(msg_step_io_t, stream, 2),
	ARR(msg_step_io_t, data, len, 3, FT_BYTES),
};
SCHEMA(step_io_schema, msg_step_io_t, "msg_step_io", step_io_f);

static const proto_field_t step_task_exit_f[] = {
	U32(msg_step_task_exit_t, task, 1),
	U32(msg_step_task_exit_t, status, 2),
};
SCHEMA(step_task_exit_schema, msg_step_task_exit_t, "msg_step_task_exit", step_task_exit_f);

static const proto_field_t prio_req_f[] = {
	ARR(msg_prio_req_t, job_ids, njob_ids, 1, FT_U32ARR),
	ARR(msg_prio_req_t, user_ids, nuser_ids, 2, FT_U32ARR),
	STR(msg_prio_req_t, partitions, 3),
};
SCHEMA(prio_req_schema, msg_prio_req_t, "msg_prio_req", prio_req_f);

static const proto_field_t prio_tres_f[] = {
	STR(prio_tres_t, name, 1),
	U64(prio_tres_t, weighted, 2),
	U64(prio_tres_t, weight, 3),
};
SCHEMA(prio_tres_schema, prio_tres_t, "prio_tres", prio_tres_f);

static const proto_field_t prio_job_f[] = {
	U32(prio_job_t, job_id, 1),
	U32(prio_job_t, user_id, 2),
	STR(prio_job_t, partition, 3),
	U32(prio_job_t, priority, 4),
	I64(prio_job_t, site, 5),
	I32(prio_job_t, nice, 6),
	U64(prio_job_t, age, 7),
	U64(prio_job_t, assoc, 8),
	U64(prio_job_t, fairshare, 9),
	U64(prio_job_t, jobsize, 10),
	U64(prio_job_t, part, 11),
	U64(prio_job_t, qos, 12),
	LIST(prio_job_t, tres, ntres, 13, prio_tres_schema),
	U32(prio_job_t, direct, 14),
};
SCHEMA(prio_job_schema, prio_job_t, "prio_job", prio_job_f);

static const proto_field_t prio_info_f[] = {
	U32(msg_prio_info_t, multifactor, 1),
	STR(msg_prio_info_t, priority_type, 2),
	U32(msg_prio_info_t, w_age, 3),
	U32(msg_prio_info_t, w_assoc, 4),
	U32(msg_prio_info_t, w_fairshare, 5),
	U32(msg_prio_info_t, w_jobsize, 6),
	U32(msg_prio_info_t, w_part, 7),
	U32(msg_prio_info_t, w_qos, 8),
	STR(msg_prio_info_t, w_tres, 9),
	LIST(msg_prio_info_t, jobs, njobs, 10, prio_job_schema),
};
SCHEMA(prio_info_schema, msg_prio_info_t, "msg_prio_info", prio_info_f);

static const proto_field_t step_info_f[] = {
	U32(step_info_t, job_id, 1),
	U32(step_info_t, step_id, 2),
	U32(step_info_t, array_job_id, 3),
	U32(step_info_t, array_task_id, 4),
	STR(step_info_t, name, 5),
	U32(step_info_t, user_id, 6),
	STR(step_info_t, user_name, 7),
	STR(step_info_t, partition, 8),
	I64(step_info_t, start_time, 9),
	U32(step_info_t, time_limit, 10),
	U32(step_info_t, state, 11),
	STR(step_info_t, nodes, 12),
	U32(step_info_t, num_nodes, 13),
	U32(step_info_t, num_tasks, 14),
	U32(step_info_t, num_cpus, 15),
	STR(step_info_t, tres_alloc, 16),
	STR(step_info_t, srun_host, 17),
	U32(step_info_t, srun_pid, 18),
	U32(step_info_t, dist, 19),
};
SCHEMA(step_info_schema, step_info_t, "step_info", step_info_f);

static const proto_field_t msg_step_info_f[] = {
	I64(msg_step_info_t, last_update, 1),
	LIST(msg_step_info_t, steps, nsteps, 2, step_info_schema),
};
SCHEMA(msg_step_info_schema, msg_step_info_t, "msg_step_info", msg_step_info_f);

static const proto_field_t list_pids_req_f[] = {
	U32(msg_list_pids_req_t, job_id, 1),
	U32(msg_list_pids_req_t, step_id, 2),
};
SCHEMA(list_pids_req_schema, msg_list_pids_req_t, "msg_list_pids_req", list_pids_req_f);

static const proto_field_t list_pid_f[] = {
	U32(list_pid_t, pid, 1),
	U32(list_pid_t, job_id, 2),
	U32(list_pid_t, step_id, 3),
	U32(list_pid_t, local_id, 4),
	U32(list_pid_t, global_id, 5),
};
SCHEMA(list_pid_schema, list_pid_t, "list_pid", list_pid_f);

static const proto_field_t list_pids_f[] = {
	I32(msg_list_pids_t, rc, 1),
	STR(msg_list_pids_t, node, 2),
	LIST(msg_list_pids_t, pids, npids, 3, list_pid_schema),
};
SCHEMA(list_pids_schema, msg_list_pids_t, "msg_list_pids", list_pids_f);

static const proto_field_t stats_req_f[] = {
	U32(msg_stats_req_t, flags, 1),
};
SCHEMA(stats_req_schema, msg_stats_req_t, "msg_stats_req", stats_req_f);

static const proto_field_t rpc_stat_f[] = {
	U32(rpc_stat_t, id, 1),
	STR(rpc_stat_t, name, 2),
	U32(rpc_stat_t, count, 3),
	U64(rpc_stat_t, time_us, 4),
};
SCHEMA(rpc_stat_schema, rpc_stat_t, "rpc_stat", rpc_stat_f);

static const proto_field_t stats_f[] = {
	I64(msg_stats_t, req_time, 1),
	I64(msg_stats_t, req_time_start, 2),
	U32(msg_stats_t, server_threads, 3),
	U32(msg_stats_t, agent_queue, 4),
	U32(msg_stats_t, agent_count, 5),
	U32(msg_stats_t, agent_threads, 6),
	U32(msg_stats_t, dbd_queue, 7),
	U32(msg_stats_t, jobs_submitted, 8),
	U32(msg_stats_t, jobs_started, 9),
	U32(msg_stats_t, jobs_completed, 10),
	U32(msg_stats_t, jobs_canceled, 11),
	U32(msg_stats_t, jobs_failed, 12),
	I64(msg_stats_t, job_states_ts, 13),
	U32(msg_stats_t, jobs_pending, 14),
	U32(msg_stats_t, jobs_running, 15),
	U32(msg_stats_t, sched_last, 16),
	U32(msg_stats_t, sched_max, 17),
	U32(msg_stats_t, sched_cycles, 18),
	U32(msg_stats_t, sched_mean, 19),
	U32(msg_stats_t, sched_mean_depth, 20),
	U32(msg_stats_t, sched_queue_len, 21),
	U32(msg_stats_t, bf_backfilled_total, 22),
	U32(msg_stats_t, bf_backfilled, 23),
	U32(msg_stats_t, bf_backfilled_het, 24),
	U32(msg_stats_t, bf_cycles, 25),
	I64(msg_stats_t, bf_last_when, 26),
	U32(msg_stats_t, bf_last, 27),
	U32(msg_stats_t, bf_max, 28),
	U32(msg_stats_t, bf_mean, 29),
	U32(msg_stats_t, bf_last_depth, 30),
	U32(msg_stats_t, bf_last_depth_try, 31),
	U32(msg_stats_t, bf_depth_mean, 32),
	U32(msg_stats_t, bf_depth_try_mean, 33),
	U32(msg_stats_t, bf_queue_len, 34),
	U32(msg_stats_t, bf_queue_mean, 35),
	U32(msg_stats_t, bf_table_size, 36),
	U32(msg_stats_t, bf_table_mean, 37),
	U32(msg_stats_t, gtod_latency, 38),
	LIST(msg_stats_t, rpc_types, nrpc_types, 39, rpc_stat_schema),
	LIST(msg_stats_t, rpc_users, nrpc_users, 40, rpc_stat_schema),
};
SCHEMA(stats_schema, msg_stats_t, "msg_stats", stats_f);

static const proto_field_t acct_req_f[] = {
	U32(msg_acct_req_t, op, 1),
	STRV(msg_acct_req_t, args, 2),
	STR(msg_acct_req_t, body, 3),
};
SCHEMA(acct_req_schema, msg_acct_req_t, "msg_acct_req", acct_req_f);

static const proto_field_t acct_reply_f[] = {
	I32(msg_acct_reply_t, rc, 1),
	STR(msg_acct_reply_t, msg, 2),
	STRV(msg_acct_reply_t, cols, 3),
	STRV(msg_acct_reply_t, cells, 4),
	ARR(msg_acct_reply_t, table, table_len, 5, FT_BYTES),
};
SCHEMA(acct_reply_schema, msg_acct_reply_t, "msg_acct_reply", acct_reply_f);

static const proto_field_t step_stat_f[] = {
	U32(msg_step_stat_t, job_id, 1),
	U32(msg_step_stat_t, step_id, 2),
	STR(msg_step_stat_t, cred, 3),
};
SCHEMA(step_stat_schema, msg_step_stat_t, "msg_step_stat", step_stat_f);

static const proto_field_t step_stat_auth_f[] = {
	I32(msg_step_stat_auth_t, rc, 1),
	U32(msg_step_stat_auth_t, job_id, 2),
	U32(msg_step_stat_auth_t, job_state, 3),
	STRV(msg_step_stat_auth_t, node_names, 4),
	STRV(msg_step_stat_auth_t, node_addrs, 5),
	ARR(msg_step_stat_auth_t, ports, nports, 6, FT_U32ARR),
	STR(msg_step_stat_auth_t, cred, 7),
};
SCHEMA(step_stat_auth_schema, msg_step_stat_auth_t, "msg_step_stat_auth", step_stat_auth_f);

static const proto_field_t stat_task_f[] = {
	U32(stat_task_t, step_id, 1), U32(stat_task_t, rank, 2),
	U64(stat_task_t, rss_kb, 3), U64(stat_task_t, vmsize_kb, 4), U64(stat_task_t, pages, 5),
	U64(stat_task_t, cpu_us, 6), U64(stat_task_t, disk_read, 7),
	U64(stat_task_t, disk_write, 8),
};
SCHEMA(stat_task_schema, stat_task_t, "stat_task", stat_task_f);

static const proto_field_t stat_step_f[] = {
	U32(stat_step_t, step_id, 1),
	STR(stat_step_t, pids, 2),
};
SCHEMA(stat_step_schema, stat_step_t, "stat_step", stat_step_f);

static const proto_field_t step_stat_reply_f[] = {
	I32(msg_step_stat_reply_t, rc, 1),
	STR(msg_step_stat_reply_t, msg, 2),
	STR(msg_step_stat_reply_t, node, 3),
	LIST(msg_step_stat_reply_t, steps, nsteps, 4, stat_step_schema),
	LIST(msg_step_stat_reply_t, tasks, ntasks, 5, stat_task_schema),
};
SCHEMA(step_stat_reply_schema, msg_step_stat_reply_t, "msg_step_stat_reply", step_stat_reply_f);

static const proto_field_t resv_update_f[] = {
	U32(msg_resv_update_t, op, 1),
	STR(msg_resv_update_t, name, 2),
	I64(msg_resv_update_t, start_time, 3),
	I64(msg_resv_update_t, end_time, 4),
	U32(msg_resv_update_t, duration, 5),
	STR(msg_resv_update_t, nodes, 6),
	U32(msg_resv_update_t, node_cnt, 7),
	STR(msg_resv_update_t, partition, 8),
	STR(msg_resv_update_t, features, 9),
	STR(msg_resv_update_t, users, 10),
	STR(msg_resv_update_t, accounts, 11),
	U32(msg_resv_update_t, flags_set, 12),
	U32(msg_resv_update_t, flags_clear, 13),
	I64(msg_resv_update_t, duration_delta, 14),
	U32(msg_resv_update_t, purge_comp, 15),
};
SCHEMA(resv_update_schema, msg_resv_update_t, "msg_resv_update", resv_update_f);

static const proto_field_t resv_info_f[] = {
	STR(resv_info_t, name, 1),
	U32(resv_info_t, resv_id, 2),
	I64(resv_info_t, start_time, 3),
	I64(resv_info_t, end_time, 4),
	STR(resv_info_t, nodes, 5),
	U32(resv_info_t, node_cnt, 6),
	U32(resv_info_t, core_cnt, 7),
	STR(resv_info_t, features, 8),
	STR(resv_info_t, partition, 9),
	U32(resv_info_t, flags, 10),
	STR(resv_info_t, tres, 11),
	STR(resv_info_t, users, 12),
	STR(resv_info_t, accounts, 13),
	U32(resv_info_t, purge_comp, 14),
};
SCHEMA(resv_info_schema, resv_info_t, "resv_info", resv_info_f);

static const proto_field_t msg_resv_info_f[] = {
	I64(msg_resv_info_t, last_update, 1),
	LIST(msg_resv_info_t, resvs, nresvs, 2, resv_info_schema),
};
SCHEMA(msg_resv_info_schema, msg_resv_info_t, "msg_resv_info", msg_resv_info_f);

static const struct {
	const char *name;
	const proto_schema_t *schema;
} types[MSG_TYPE_END] = {
	[MSG_RC] = { "MSG_RC", &rc_schema },
	[MSG_PING] = { "MSG_PING", &empty_schema },
	[MSG_SUBMIT] = { "MSG_SUBMIT", &job_desc_schema },
	[MSG_SUBMIT_REPLY] = { "MSG_SUBMIT_REPLY", &submit_reply_schema },
	[MSG_JOB_INFO_REQ] = { "MSG_JOB_INFO_REQ", &info_req_schema },
	[MSG_JOB_INFO] = { "MSG_JOB_INFO", &msg_job_info_schema },
	[MSG_NODE_INFO_REQ] = { "MSG_NODE_INFO_REQ", &info_req_schema },
	[MSG_NODE_INFO] = { "MSG_NODE_INFO", &msg_node_info_schema },
	[MSG_PART_INFO_REQ] = { "MSG_PART_INFO_REQ", &info_req_schema },
	[MSG_PART_INFO] = { "MSG_PART_INFO", &msg_part_info_schema },
	[MSG_CONFIG_REQ] = { "MSG_CONFIG_REQ", &empty_schema },
	[MSG_CONFIG] = { "MSG_CONFIG", &config_schema },
	[MSG_CANCEL] = { "MSG_CANCEL", &cancel_schema },
	[MSG_CANCEL_REPLY] = { "MSG_CANCEL_REPLY", &cancel_reply_schema },
	[MSG_UPDATE_NODE] = { "MSG_UPDATE_NODE", &update_node_schema },
	[MSG_UPDATE_PART] = { "MSG_UPDATE_PART", &update_part_schema },
	[MSG_UPDATE_JOB] = { "MSG_UPDATE_JOB", &update_job_schema },
	[MSG_JOB_WAIT] = { "MSG_JOB_WAIT", &job_wait_schema },
	[MSG_STEP_CREATE] = { "MSG_STEP_CREATE", &step_create_schema },
	[MSG_STEP_CREATE_REPLY] = { "MSG_STEP_CREATE_REPLY", &step_create_reply_schema },
	[MSG_JOB_COMPLETE] = { "MSG_JOB_COMPLETE", &job_complete_schema },
	[MSG_NODE_REGISTER] = { "MSG_NODE_REGISTER", &node_register_schema },
	[MSG_NODE_HEARTBEAT] = { "MSG_NODE_HEARTBEAT", &node_register_schema },
	[MSG_LAUNCH_JOB] = { "MSG_LAUNCH_JOB", &launch_job_schema },
	[MSG_SIGNAL_JOB] = { "MSG_SIGNAL_JOB", &signal_job_schema },
	[MSG_LAUNCH_STEP] = { "MSG_LAUNCH_STEP", &launch_step_schema },
	[MSG_STEP_IO] = { "MSG_STEP_IO", &step_io_schema },
	[MSG_STEP_TASK_EXIT] = { "MSG_STEP_TASK_EXIT", &step_task_exit_schema },
	[MSG_RECONFIGURE] = { "MSG_RECONFIGURE", &empty_schema },
	[MSG_SHUTDOWN] = { "MSG_SHUTDOWN", &empty_schema },
	[MSG_PRIO_INFO_REQ] = { "MSG_PRIO_INFO_REQ", &prio_req_schema },
	[MSG_PRIO_INFO] = { "MSG_PRIO_INFO", &prio_info_schema },
	[MSG_STATS_REQ] = { "MSG_STATS_REQ", &stats_req_schema },
	[MSG_STATS] = { "MSG_STATS", &stats_schema },
	[MSG_NODE_ACK] = { "MSG_NODE_ACK", &node_ack_schema },
	[MSG_NODE_PING] = { "MSG_NODE_PING", &node_ping_schema },
	[MSG_ACCT_REQ] = { "MSG_ACCT_REQ", &acct_req_schema },
	[MSG_ACCT_REPLY] = { "MSG_ACCT_REPLY", &acct_reply_schema },
	[MSG_STEP_COMPLETE] = { "MSG_STEP_COMPLETE", &step_complete_schema },
	[MSG_HEALTH_CHECK] = { "MSG_HEALTH_CHECK", &info_req_schema },
	[MSG_SET_DEBUG] = { "MSG_SET_DEBUG", &set_debug_schema },
	[MSG_STEP_STAT_AUTH] = { "MSG_STEP_STAT_AUTH", &step_stat_schema },
	[MSG_STEP_STAT_AUTH_REPLY] = { "MSG_STEP_STAT_AUTH_REPLY", &step_stat_auth_schema },
	[MSG_STEP_STAT] = { "MSG_STEP_STAT", &step_stat_schema },
	[MSG_STEP_STAT_REPLY] = { "MSG_STEP_STAT_REPLY", &step_stat_reply_schema },
	[MSG_LAUNCH_PROLOG] = { "MSG_LAUNCH_PROLOG", &launch_prolog_schema },
	[MSG_PROLOG_COMPLETE] = { "MSG_PROLOG_COMPLETE", &prolog_complete_schema },
	[MSG_STEP_INFO_REQ] = { "MSG_STEP_INFO_REQ", &info_req_schema },
	[MSG_STEP_INFO] = { "MSG_STEP_INFO", &msg_step_info_schema },
	[MSG_LIST_PIDS_REQ] = { "MSG_LIST_PIDS_REQ", &list_pids_req_schema },
	[MSG_LIST_PIDS] = { "MSG_LIST_PIDS", &list_pids_schema },
	[MSG_JOB_NCCL] = { "MSG_JOB_NCCL", &job_nccl_schema },
	[MSG_RESV_UPDATE] = { "MSG_RESV_UPDATE", &resv_update_schema },
	[MSG_RESV_INFO_REQ] = { "MSG_RESV_INFO_REQ", &info_req_schema },
	[MSG_RESV_INFO] = { "MSG_RESV_INFO", &msg_resv_info_schema },
	[MSG_CONFIG_FILES_REQ] = { "MSG_CONFIG_FILES_REQ", &empty_schema },
	[MSG_CONFIG_FILES] = { "MSG_CONFIG_FILES", &config_files_schema },
};

const proto_schema_t *proto_schema(enum msg_type type)
{
	if ((unsigned)type >= MSG_TYPE_END)
		return NULL;
	return types[type].schema;
}

const char *proto_schema_name(enum msg_type type)
{
	if ((unsigned)type >= MSG_TYPE_END)
		return NULL;
	return types[type].name;
}
