# cluster.sh: start and stop a real Sluice cluster on loopback, for the
# integration tests (t/integration/lib.sh) and the benchmarks (bench/).
#
# cluster_start N [extra slurm.conf lines...] starts a real controller and N
# node daemons on loopback in the test's trash directory, each with its own
# ports, and waits until every node is registered (never a bare sleep).
# Mixed nodes: NODE_ATTRS_<i> adds attributes to node i's line (they win
# over NodeName=DEFAULT), GRES_CONF replaces the gres.conf lines.
# cluster_stop (run automatically at exit) stops them and any job
# supervisors they left.
# NODED_DAEMON=1 starts the node daemons as real daemons (no -D: they
# detach, log to SlurmdLogFile and write SlurmdPidFile, $CL/noded-NAME.pid)
# instead of in the foreground; a share of the scripts set it.

SLUICE_BUILD=${SLUICE_BUILD:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}
export PATH="$SLUICE_BUILD/bin:$PATH"
export SLUICE_HEARTBEAT_MS=${SLUICE_HEARTBEAT_MS:-500}

# Slow runs (valgrind) stretch every bounded wait by this factor.
SLUICE_TIMEOUT_SCALE=${SLUICE_TIMEOUT_SCALE:-1}
[ -n "${SLUICE_VALGRIND:-}" ] && [ "$SLUICE_TIMEOUT_SCALE" = 1 ] && SLUICE_TIMEOUT_SCALE=5

# wait_for SECONDS CMD...: poll CMD every 0.05 s until it succeeds
# (SECONDS times SLUICE_TIMEOUT_SCALE).
wait_for() {
	local limit=$(( $1 * SLUICE_TIMEOUT_SCALE )); shift
	local end=$(( $(date +%s%N) + limit * 1000000000 ))
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pick_ports COUNT: a base port with COUNT free ports after it.
pick_ports() {
	local n=$1 base i ok
	for _ in $(seq 1 50); do
		# below the ephemeral range (32768+) that outgoing connections take
		base=$(( 10000 + (RANDOM * 32768 + RANDOM) % 22000 ))
		ok=1
		for i in $(seq 0 "$n"); do port_free $((base + i)) || { ok=0; break; }; done
		[ $ok = 1 ] && { echo "$base"; return 0; }
	done
	return 1
}

cluster_write_conf() {
	local n=$1; shift
	# Outside the trash directory: its name has a space and Unix socket
	# paths must stay short.
	CL=$(mktemp -d /tmp/sluice-t.XXXXXX)
	# state: private to the controller (it holds every job's script and
	# environment); run: its socket and pid file, which users reach.
	mkdir -p "$CL/etc" "$CL/state" "$CL/run" "$CL/spool" "$CL/log" "$CL/work"
	chmod 755 "$CL" "$CL/run" "$CL/spool" "$CL/work"
	chmod 700 "$CL/state"
	CTLD_PORT=$(pick_ports $((n + 1))) || return 1
	local last
	last=$(printf 'comp%03d' "$n")
	{
		echo "ClusterName=test"
		echo "SlurmctldHost=$(hostname -s)(${CTLD_ADDR:-127.0.0.1})"
		echo "SlurmctldPort=$CTLD_PORT"
		if [ "${AUTH:-slurm}" = munge ]; then
			echo "AuthType=auth/munge"
			echo "CredType=cred/munge"
			echo "AuthInfo=socket=$CL/munge/munge.sock"
		else
			echo "AuthType=auth/slurm"
		fi
		echo "StateSaveLocation=$CL/state"
		echo "SlurmdSpoolDir=$CL/spool/%n"
		echo "SlurmctldLogFile=$CL/log/ctld.log"
		echo "SlurmdLogFile=$CL/log/noded-%n.log"
		echo "SlurmctldPidFile=$CL/run/ctld.pid"
		# where noded_start (-D) puts the pid too: one place to find it
		echo "SlurmdPidFile=$CL/noded-%n.pid"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core_Memory"
		echo "GresTypes=gpu"
		echo "TopologyPlugin=topology/tree"
		echo "ReturnToService=2"
		echo "KillWait=2"
		echo "DefMemPerCPU=1024"
		echo "MinJobAge=300"
		echo "SlurmdTimeout=${SLURMD_TIMEOUT:-300}"
		# Jobs tracked by process group, as `sluice up` does, unless the
		# test asks for cgroups (0720, 0721): the other tests must not
		# depend on whether the host lets them make cgroups.
		case " $* " in *" ProctrackType="*) ;; *) echo "ProctrackType=proctrack/pgid" ;; esac
		for l in "$@"; do echo "$l"; done
		echo "NodeName=DEFAULT CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=32768 Gres=gpu:h100:8 Feature=h100,ib"
		for i in $(seq 1 "$n"); do
			addr=$(echo "${NODE_ADDRS:-}" | awk -v i="$i" '{ print $i }')
			# NODE_ATTRS_i (e.g. NODE_ATTRS_5="Gres=gpu:a100:4 Feature=a100")
			# overrides the DEFAULT attributes on node i's line.
			extra=NODE_ATTRS_$i
			printf 'NodeName=comp%03d NodeAddr=%s Port=%d%s\n' "$i" "${addr:-127.0.0.1}" $((CTLD_PORT + i)) \
				"${!extra:+ ${!extra}}"
		done
		echo "PartitionName=defq Nodes=comp[001-$(printf %03d "$n")] Default=YES MaxTime=INFINITE State=UP"
		echo "PartitionName=short Nodes=comp[001-$(printf %03d "$n")] MaxTime=1:00:00 State=UP"
	} >"$CL/etc/slurm.conf"
	: "$last"
	# GRES_CONF: gres.conf lines instead of the default (8 h100 per node).
	if [ -n "${GRES_CONF:-}" ]; then
		printf 'AutoDetect=off\n%s\n' "$GRES_CONF" >"$CL/etc/gres.conf"
	else
		printf 'AutoDetect=off\nNodeName=comp[001-%03d] Name=gpu Type=h100 Count=8\n' "$n" >"$CL/etc/gres.conf"
	fi
	half=$(( (n + 1) / 2 ))
	{
		printf 'SwitchName=leaf1 Nodes=comp[001-%03d]\n' "$half"
		if [ "$n" -gt "$half" ]; then
			printf 'SwitchName=leaf2 Nodes=comp[%03d-%03d]\n' $((half + 1)) "$n"
			echo "SwitchName=spine1 Switches=leaf1,leaf2"
		fi
	} >"$CL/etc/topology.conf"
	echo "CgroupPlugin=cgroup/v2" >"$CL/etc/cgroup.conf"
	sluice keygen "$CL/etc/slurm.key" 2>/dev/null ||
		head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$CL/etc/slurm.key"
	chmod 600 "$CL/etc/slurm.key"
	if [ "${AUTH:-slurm}" = munge ]; then munged_start "$CL/munge" || return 1; fi
	export SLURM_CONF="$CL/etc/slurm.conf"
	# each cluster's node daemons make their cgroups in subtrees of
	# their own (<prefix>_<node>), removed by cluster_stop
	export SLUICE_CGROUP_PREFIX="${CL##*/}"
	NNODES=$n
}

# munged_start DIR: a private munged with a new key, its socket DIR/munge.sock
# (AUTH=munge clusters use $CL/munge; a test may start others). Needs root.
munged_start() {
	local d=$1
	mkdir -p "$d" && chmod 755 "$d" || return 1
	dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$d/munge.key" || return 1
	set -- --socket="$d/munge.sock" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
		--log-file="$d/munged.log" --seed-file="$d/munged.seed"
	/usr/sbin/munged "$@" 2>>"$d/munged.stderr" || /usr/sbin/munged --force "$@" 2>>"$d/munged.stderr" ||
		{ echo "munged did not start:"; cat "$d/munged.stderr" "$d/munged.log" 2>/dev/null; return 1; }
	wait_for 10 test -S "$d/munge.sock" -a -s "$d/munged.pid"
}

# daemon_run ARGS...: run `sluice ARGS` as a daemon of the test cluster.
# Sanitizer reports (ASan/UBSan builds) also go to files under $CL/log so a
# forked supervisor's report cannot end up in a job's output file; with
# SLUICE_VALGRIND=1 the daemon (and the supervisors it forks) run under
# valgrind, logging to $CL/log/vg-PID.log. cluster_stop checks all of them.
daemon_run() {
	local asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$CL/log/asan"
	local ubsan="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:log_path=$CL/log/ubsan"
	if [ -n "${SLUICE_VALGRIND:-}" ]; then
		exec valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			--trace-children=no --log-file="$CL/log/vg-%p.log" "$SLUICE_BUILD/sluice" "$@"
	fi
	ASAN_OPTIONS=$asan UBSAN_OPTIONS=$ubsan exec sluice "$@"
}

# ctld_start: start the controller and wait until it answers. With
# CTLD_DAEMON=1 it runs as a real daemon (no -D): `sluice ctld` returns once
# the daemon serves (its start-up errors on our stderr), and the pid comes
# from SlurmctldPidFile.
ctld_start() {
	if [ -n "${CTLD_DAEMON:-}" ]; then
		if ! (daemon_run ctld) >>"$CL/log/ctld.stderr" 2>&1; then
			echo "controller did not start:"; tail -20 "$CL/log/ctld.stderr" "$CL/log/ctld.log"
			return 1
		fi
		CTLD_PID=$(cat "$CL/run/ctld.pid") || return 1
	else
		(daemon_run ctld -D) >>"$CL/log/ctld.stderr" 2>&1 &
		CTLD_PID=$!
		disown "$CTLD_PID"  # no "Killed" notices from bash when we kill it
	fi
	echo "$CTLD_PID" >"$CL/ctld.pid"
	wait_for 20 scontrol ping || { echo "controller did not start:"; tail -20 "$CL/log/ctld.stderr" "$CL/log/ctld.log"; return 1; }
}

# wait_gone PID: until the process has exited (bounded).
wait_gone() { wait_for 20 sh -c "! kill -0 $1 2>/dev/null"; }
ctld_kill9() { kill -9 "$CTLD_PID" 2>/dev/null; wait_gone "$CTLD_PID"; return 0; }

noded_start() {
	local name=$1
	if [ -n "${NODED_DAEMON:-}" ]; then
		# It reports start-up errors and exits non-zero before it
		# detaches; its pid file is in place when it returns.
		rm -f "$CL/noded-$name.pid"
		(daemon_run noded -N "$name") >>"$CL/log/noded-$name.stderr" 2>&1 ||
			{ echo "noded $name did not start:"; tail -5 "$CL/log/noded-$name.stderr"; return 1; }
		test -s "$CL/noded-$name.pid" || { echo "noded $name wrote no pid file"; return 1; }
		return 0
	fi
	(daemon_run noded -D -N "$name") >>"$CL/log/noded-$name.stderr" 2>&1 &
	echo $! >"$CL/noded-$name.pid"
	disown $!
}

noded_kill() { # noded_kill NAME [SIG]
	local pid
	pid=$(cat "$CL/noded-$1.pid")
	kill "-${2:-TERM}" "$pid" 2>/dev/null
	wait_gone "$pid"
	return 0
}

nodes_idle() { # all N nodes registered and idle
	[ "$(sinfo -h -N -o '%N %t' | awk '$2=="idle"' | sort -u | wc -l)" -eq "$NNODES" ]
}

cluster_start() {
	cluster_write_conf "$@" || return 1
	ctld_start || return 1
	for i in $(seq 1 "$NNODES"); do noded_start "$(printf 'comp%03d' "$i")" || return 1; done
	wait_for 30 nodes_idle || { echo "nodes did not register:"; sinfo -N; tail -5 "$CL"/log/*; return 1; }
}

# cluster_reports: print every sanitizer report (ASan, LSan, UBSan) and
# valgrind log with errors that the daemons and their supervisors left in
# $CL/log; false if there is any.
cluster_reports() {
	local f bad=0
	for f in "$CL"/log/*.stderr "$CL"/log/asan.* "$CL"/log/ubsan.*; do
		[ -f "$f" ] && grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$f" || continue
		echo "# sanitizer report in $f:" >&2
		sed 's/^/# /' "$f" | head -300 >&2
		bad=1
	done
	for f in "$CL"/log/vg-*.log; do
		[ -f "$f" ] && grep -qE 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$f" || continue
		echo "# valgrind errors in $f:" >&2
		sed 's/^/# /' "$f" | head -300 >&2
		bad=1
	done
	return $bad
}

# cgroup_cleanup: remove the cgroups this cluster's node daemons left
# (deepest first; a cgroup goes once its processes are gone).
cgroup_cleanup() {
	local root=${SLUICE_CGROUP_ROOT:-/sys/fs/cgroup} d
	[ -n "${SLUICE_CGROUP_PREFIX:-}" ] || return 0
	for d in "$root"/*/"$SLUICE_CGROUP_PREFIX"_* "$root"/system.slice/"$SLUICE_CGROUP_PREFIX"_*; do
		[ -d "$d" ] || continue
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

# cluster_stop: stop everything; false (after printing them) if the daemons
# left sanitizer or valgrind reports.
cluster_stop() {
	[ -n "${CL:-}" ] || return 0
	# A clean SIGTERM shutdown first, so that the leak checks at exit
	# (LeakSanitizer, valgrind) run; what is left after that is killed.
	local f pid pids= bad=0
	for f in "$CL"/noded-*.pid "$CL"/ctld.pid; do
		[ -f "$f" ] && pid=$(cat "$f") && kill -TERM "$pid" 2>/dev/null && pids="$pids $pid"
	done
	for pid in $pids; do wait_for 5 sh -c "! kill -0 $pid 2>/dev/null"; done
	for f in "$CL"/noded-*.pid "$CL"/ctld.pid "$CL"/munge*/munged.pid; do
		[ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
	done
	# Job supervisors detach from the node daemons and rename themselves
	# ("sluice slurmstepd: [1.batch]"), so neither pid files nor their
	# command lines find them: everything started with this cluster's
	# SLURM_CONF in its environment (daemons, supervisors, job processes)
	# is, except this shell and its parents.
	local self=" $$ ${BASHPID:-} $PPID "
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}; pid=${pid%/environ}
		case $self in *" $pid "*) continue ;; esac
		grep -qsxzF "SLURM_CONF=$CL/etc/slurm.conf" "$f" && kill -9 "$pid" 2>/dev/null
	done
	pkill -9 -f "$CL/" 2>/dev/null
	# A test's mounts under $CL (a tiny tmpfs as StateSaveLocation): lazy,
	# since a killed daemon's files may not be closed yet.
	awk -v p="$CL/" 'index($2, p) == 1 { print $2 }' /proc/mounts | while read -r f; do
		umount -l "$f"
	done
	cgroup_cleanup
	cluster_reports || bad=1
	if [ "${test_failure:-0}" = 0 ] && [ $bad = 0 ] && [ -z "${SLUICE_KEEP:-}" ]; then
		rm -rf "$CL"
	else
		echo "# cluster state kept in $CL" >&2
	fi
	CL=
	return $bad
}

# job_state ID: the job's state as squeue/scontrol print it.
job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# job_launched ID: the job's supervisor has written its spool record (ctld
# says RUNNING as soon as it sends the launch; a slow node daemon, as under
# valgrind, may not have forked the supervisor yet).
job_launched() { [ -n "$(find "$CL/spool" -path "*/job$1/state" 2>/dev/null)" ]; }
wait_job_state() { # wait_job_state ID STATE [SECONDS]
	wait_for "${3:-30}" test_job_state "$1" "$2"
}
test_job_state() { [ "$(job_state "$1")" = "$2" ]; }

# compat_stdout FILE: the stdout part of a captured Slurm output file.
compat_stdout() {
	sed -e '1d' -e '/^--- stderr ---$/,$d' "$SHARNESS_TEST_DIRECTORY/../compat/$1"
}
compat_stderr() {
	sed -n '/^--- stderr ---$/,/^--- exit status/p' "$SHARNESS_TEST_DIRECTORY/../compat/$1" | sed -e '1d' -e '$d'
}
compat_status() {
	local st
	st=$(sed -n 's/^--- exit status: //p' "$SHARNESS_TEST_DIRECTORY/../compat/$1")
	echo "${st:-0}"
}

# test_reason ID REASON: the reason, without a detail such as ",_UnavailableNodes:x".
test_reason() { local r; r=$(job_field "$1" Reason); [ "${r%%,*}" = "$2" ]; }
node_state() { sinfo -h -n "$1" -N -o '%T' | head -1; }
test_node_state() { [ "$(node_state "$1")" = "$2" ]; }
