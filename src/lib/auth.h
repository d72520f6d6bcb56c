/*
 * auth: who sent a request.
 *
 * Three ways, chosen by slurm.conf AuthType and how the peer connected:
 *   - auth/munge: a MUNGE credential (libmunge; AuthInfo=socket=PATH picks
 *     munged's socket) over the frame body's SHA-256; munged vouches for
 *     uid/gid.
 *   - auth/slurm (Sluice's shared-key mode, what `sluice up` uses): HMAC-
 *     SHA256 with the cluster key (file "slurm.key" beside slurm.conf, or
 *     AuthInfo=key=PATH) over {uid, gid, timestamp, nonce, body digest},
 *     all carried in the credential.
 *     Only holders of the key (root, SlurmUser, the daemons) can sign.
 *   - peer credentials: a local command that cannot read the key connects
 *     to the controller's Unix socket (StateSaveLocation/sluice-ctld.sock)
 *     and the kernel's SO_PEERCRED gives its uid/gid; no credential.
 * Credentials older than AUTH_TTL seconds are rejected, and so are those
 * issued before the verifying daemon started (auth_set_not_before).
 *
 * The same sign/verify pair makes the launch credentials the controller
 * gives srun for a job step (payload signed by the controller, checked by
 * the node daemon: the signer must be root or SlurmUser).
 */
#ifndef SLUICE_AUTH_H
#define SLUICE_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "strbuf.h"

#define AUTH_TTL 300
/* uid/gid delivered for a TCP frame that carries no credential: the
 * daemon must refuse it unless the message carries its own proof (a step
 * launch credential). */
#define AUTH_UID_NONE 0xffffffffu

enum auth_kind { AUTH_NONE = 0, AUTH_HMAC = 1, AUTH_MUNGE = 2 };

typedef struct auth auth_t;

/* Set up from conf. Fails (NULL, *err set) if the mode needs a key or a
 * munged socket that is not there; a client that cannot read the key gets
 * an auth_t with auth_can_sign() == 0 and should use the Unix socket. */
auth_t *auth_create(const conf_t *conf, char **err);
/* The cluster key's file under auth/slurm (AuthInfo=key=PATH, else
 * slurm.key beside slurm.conf), malloc'd; NULL under auth/munge. */
char *auth_key_path(const conf_t *conf);
void auth_destroy(auth_t *a);
int auth_can_sign(const auth_t *a);
enum auth_kind auth_kind(const auth_t *a);

/* Append a credential for payload (as the calling process's uid/gid).
 * 0, or -1 with *err. */
int auth_sign(auth_t *a, const void *payload, size_t len, strbuf_t *cred, char **err);
/* Check cred against payload: 0 and *uid, *gid, or -1 with *err (the
 * reason: "credential expired", "bad signature", munge's error text). */
int auth_verify(auth_t *a, const void *cred, size_t cred_len,
		const void *payload, size_t len, uint32_t *uid, uint32_t *gid, char **err);

/* The first half of auth_verify, for a credential that arrives before the
 * payload it covers (a frame's header and credential come before its
 * body): checks the credential on its own (its signature, age, start-time
 * rule, replay) and gives the uid/gid it vouches for and the SHA-256 of
 * the payload it covers, which the caller must compare with the payload's
 * once that is in. So a peer without a valid credential is refused before
 * it can make a daemon buffer anything. 0, or -1 with *err. */
int auth_verify_cred(auth_t *a, const void *cred, size_t cred_len, uint8_t digest[32],
		     uint32_t *uid, uint32_t *gid, char **err);

/* As auth_verify, for a credential that is legitimately checked more than
 * once, possibly by several daemons on one host (a step launch credential
 * is checked by every node of the step): a MUNGE "replayed" verdict is
 * accepted. The AUTH_TTL age check still applies. */
int auth_verify_reusable(auth_t *a, const void *cred, size_t cred_len,
			 const void *payload, size_t len, uint32_t *uid, uint32_t *gid,
			 char **err);

/* Refuse credentials issued before usec (microseconds since the epoch; 0:
 * now) in auth_verify (not auth_verify_reusable: a launch credential
 * outlives a node daemon's restart). Daemons call it at start, before
 * they listen: the replay cache lives in memory, so a credential captured
 * before a restart would otherwise be accepted once more after it. With
 * auth/munge the credential's encode time (whole seconds) is compared. */
void auth_set_not_before(auth_t *a, int64_t usec);

/* auth/slurm: a key only the cluster key's holders (root, SlurmUser, the
 * daemons) can compute, HMAC-SHA256(cluster key, label with its NUL ||
 * data) into out: a step's launch key (cred_launch_key). 0, or -1 where
 * this process has no cluster key (auth/munge, or a user who cannot read
 * it). Distinct labels give unrelated keys, and none equals a request
 * credential's MAC (whose input starts with a version byte, not text). */
int auth_key_derive(const auth_t *a, const char *label, const void *data, size_t len,
		    uint8_t out[32]);

/* Generate a new random key file (mode 0600). 0 or -1 with *err. */
int auth_keygen(const char *path, char **err);

#endif
