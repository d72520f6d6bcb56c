/*
 * resv.h: advance reservations in the controller (scontrol create|update|
 * delete|show reservation, sbatch --reservation). See resv.c.
 */
#ifndef SLUICE_CTLD_RESV_H
#define SLUICE_CTLD_RESV_H

#include <sqlite3.h>
#include <stdint.h>

#include "proto.h"

struct ctld;
struct job;
struct conn;

/* Migration step (state_db.c): the resvs table. */
int resv_db_migrate(sqlite3 *db, char **err);
/* Migration: resvs.purge_comp (PURGE_COMP's time). */
int resv_db_migrate_purge(sqlite3 *db, char **err);
/* Recovery (db_load): the reservations and the next ResvID. */
void resv_load(struct ctld *cd);
void resv_free(struct ctld *cd);

/* db_commit's hooks: resv_db_pending says whether there is anything to
 * write; resv_db_commit writes it into the open transaction (a failed
 * statement fails the transaction); resv_db_committed forgets it once the
 * commit succeeded (after a rollback it is written again next time). */
int resv_db_pending(const struct ctld *cd);
void resv_db_commit(struct ctld *cd);
void resv_db_committed(struct ctld *cd);

/* turn.c: the commit of the turn failed: the reservations its requests
 * created, changed or deleted are put back as their committed rows say,
 * and what those requests queued for the store is dropped.
 * resv_turn_forget: the turn is settled. */
void resv_undo(struct ctld *cd);
void resv_turn_forget(struct ctld *cd);
int resv_turn_noted(const struct ctld *cd);   /* anything for resv_undo? */

/* MSG_RESV_UPDATE by uid: 0 (create: *msg the name, malloc'd), or an
 * errors.h number. */
int resv_update(struct ctld *cd, const msg_resv_update_t *m, uint32_t uid, char **msg);
/* MSG_RESV_INFO_REQ: the reservations (req->name: that one). */
void resv_info_reply(struct ctld *cd, struct conn *c, const msg_info_req_t *req);

/* Every minute or so: remove ended reservations, roll repeating ones to
 * their next period, refresh the node flags when one starts. */
void resv_periodic(struct ctld *cd, int64_t now);

/* Submission: may job j of uid use the reservation it names
 * (j->desc->reservation; none: 0)? 0, ESLURM_RESERVATION_INVALID or
 * ESLURM_RESERVATION_ACCESS. Call once the job's account is known. */
int resv_job_check(struct ctld *cd, const struct job *j, uint32_t uid);

/* The id of the reservation called name (sacct's ReservationId), 0 if
 * there is none by that name now. */
uint32_t resv_id_of(struct ctld *cd, const char *name);

/* Fill cd->sched.resvs/nresvs from the reservations (borrowed by the
 * core until the next call; every change of a reservation calls it). */
void resv_sched_fill(struct ctld *cd);
/* sched_job_t.resv of a job asking for reservation name: 1 + its index
 * in cd->sched.resvs, 0 for none (NULL or unknown); refills the mirror
 * if cd->sched was rebuilt since. */
uint32_t resv_sched_index(struct ctld *cd, const char *name);

/* After a reconfigure swapped in new node records (old: the previous
 * ones, still readable): the reservations' node indexes follow the
 * names; a node no longer configured leaves its reservations. */
struct node;
void resv_nodes_remap(struct ctld *cd, const struct node *old, uint32_t nold);

/* NODE_FLAG_RESERVED (| NODE_FLAG_MAINT) while node idx is in an active
 * reservation, else 0. */
uint32_t resv_node_flags(const struct ctld *cd, uint32_t idx);

#endif
