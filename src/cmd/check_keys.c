/*
 * check_keys: `sluice check-keys [NODELIST]` prints, per node, the digest
 * of the auth key its node daemon reported at registration (the first 16
 * hex digits of a SHA-256; never the key) and whether it matches the
 * controller's: yes, NO (the node is drained for it), unreadable (the
 * node or the controller cannot read its key file: not a mismatch), or
 * "-" when the node has not reported one (not registered since the
 * controller started). Exit status 1 when any node differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "hostlist.h"
#include "net.h"
#include "proto.h"
#include "xalloc.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: sluice check-keys [NODELIST]\n"
		"  Compare each node's auth key (munge.key, or slurm.key for auth/slurm) with the\n"
		"  controller's, by SHA-256 digest. Exit status 1 when a node's key differs.\n");
}

static const char *match_name(uint32_t m)
{
	switch (m) {
	case KEY_MATCH_YES: return "yes";
	case KEY_MATCH_NO: return "NO";
	case KEY_MATCH_UNREADABLE: return "unreadable";
	default: return "-";
	}
}

int cmd_check_keys(int argc, char **argv)
{
	const char *list = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (argv[i][0] == '-' || list) {
			fprintf(stderr, "sluice check-keys: %s '%s'\n",
				argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
			usage(stderr);
			return 1;
		}
		list = argv[i];
	}
	hostlist_t *want = NULL;
	char *herr = NULL;
	if (list && !(want = hostlist_create(list, &herr))) {
		fprintf(stderr, "sluice check-keys: invalid node list '%s': %s\n", list,
			herr ? herr : "malformed");
		free(herr);
		return 1;
	}
	cmd_conf();
	msg_info_req_t req = { 0 };
	msg_node_info_t *ni = NULL;
	int err = cmd_call(MSG_NODE_INFO_REQ, &req, MSG_NODE_INFO, (void **)&ni, NULL);
	if (err) {
		fprintf(stderr, "sluice check-keys: %s\n", slurm_strerror(err));
		hostlist_destroy(want);
		return 1;
	}
	int rc = 0;
	size_t shown = 0;
	printf("%-20s %-16s %s\n", "NODE", "DIGEST", "MATCH");
	for (uint32_t i = 0; i < ni->nnodes; i++) {
		const node_info_t *n = &ni->nodes[i];
		if (want && hostlist_find(want, n->name) < 0)
			continue;
		const char *d = n->key_digest ? n->key_digest : "-";
		printf("%-20s %-16.16s %s\n", n->name, d, match_name(n->key_match));
		if (n->key_match == KEY_MATCH_NO)
			rc = 1;
		shown++;
	}
	if (want && !shown) {
		fprintf(stderr, "sluice check-keys: no node of '%s' is configured\n", list);
		rc = 1;
	}
	proto_msg_destroy(MSG_NODE_INFO, ni);
	hostlist_destroy(want);
	return rc;
}
