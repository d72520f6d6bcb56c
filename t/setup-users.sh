#!/bin/sh
# Create the unprivileged test users alice and bob (as Slurm's reference
# cluster does) so that the integration tests can check permissions and that
# jobs run as their submitter. Needs root; does nothing otherwise.
[ "$(id -u)" = 0 ] || exit 0
for u in alice bob; do
	id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u" || exit 1
done
