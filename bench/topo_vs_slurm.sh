#!/bin/bash
# topo_vs_slurm.sh: topology placement quality, Sluice against real Slurm,
# for the same stream of multi-node jobs on the same 3-level switch tree.
#
# What it measures: for every multi-node job, the number of leaf switches its
# nodes span, against the fewest leaves a job of its size could have used
# given the nodes that were idle on each leaf at the moment it started
# (largest idle leaves first), on each side. It is the live-cluster
# counterpart of `bench/sched_pass -q` (docs/benchmarks.md, "Placement
# quality"), which measures Sluice's scheduler alone.
#
# How:
# - One deterministic job stream (own LCG, seed SEED): NJOBS whole-node jobs
#   (`sbatch --exclusive -N k`), half of 1-4 nodes and half of 2-12 nodes,
#   each `sleep 3..12` s under a 2-minute limit, submitted one every GAP
#   seconds on a fixed timetable (job i at t0 + i*GAP), so that the queue
#   builds up and jobs end in a staggered way: most placements happen on a
#   fragmented cluster, not an empty one.
# - The same topology on both sides: 32 nodes comp001-032 in 8 leaves of 4
#   (leaf1..leaf8), leaves 1-4 under mid1, 5-8 under mid2, both under spine.
#   Both sides: sched/backfill, select/cons_tres (CR_Core_Memory),
#   topology/tree, priority/multifactor with realslurm's weights, nodes of
#   64 CPUs / 512000 MB.
# - Real Slurm: the realslurm cluster (../shared/tools/realslurm), used
#   when /tmp/realslurm/env.sh exists and `scontrol ping` answers; its
#   topology.conf is replaced for the run (then restored, with `scontrol
#   reconfigure` both times). Otherwise that side is skipped with a message.
# - Sluice: a fresh cluster from t/cluster.sh (SLUICE_BUILD, default build/),
#   its node lines changed to realslurm's shape, topology.conf replaced.
# - While a side runs, a poller records `squeue -h -t R,CG -o '%i %t %N'`
#   every POLL seconds. A job is "started" in the first snapshot where it is
#   R. Its idle pool is every node minus the nodes of the other jobs in that
#   snapshot that had started before (running or completing), minus the nodes
#   of the jobs first seen R in the same snapshot that started before it,
#   plus its own nodes (their order is unknown: for up to 5 such jobs the
#   order with the least excess is taken, else job id order).
#   Minimum = fewest leaves, largest idle counts first, that hold its node
#   count. The same is done one level up (mid switches spanned: 1 or 2,
#   against 1 when one mid switch's idle nodes could hold the job), since
#   topology/tree also prefers the lowest common switch. Error sources: a
#   job that ended between two snapshots and whose nodes the new job could
#   not have used yet counts as idle (minimum may be too low);
#   a node held back by the scheduler for a pending higher-priority job's
#   reservation counts as idle; the best order of simultaneous starts is
#   assumed. Only jobs with 2+ nodes are counted.
#
# Usage: bench/topo_vs_slurm.sh [slurm|sluice|both]   (default both)
#   env: NJOBS=80 SEED=42 GAP=0.5 POLL=0.2 SLUICE_BUILD=build
#        RES=bench/results/topo_vs_slurm.txt  RES_APPEND=1 appends to it
#        (one "# ..." header per run) instead of rewriting it
#        KEEP_DIR=1 keeps the raw data (snapshots, per-job lines)
# Prints a table and writes key=value lines to $RES. Run one side at a time on
# a small machine (the default "both" runs them one after the other).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
NJOBS=${NJOBS:-80}
SEED=${SEED:-42}
GAP=${GAP:-0.5}
POLL=${POLL:-0.2}
RES=${RES:-$here/results/topo_vs_slurm.txt}
WHICH=${1:-both}
NN=32
RS=${RS:-/tmp/realslurm}
WORK=$(mktemp -d /tmp/topo_vs_slurm.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$(dirname "$RES")"

log() { echo "# $*" >&2; }

# 8 leaves of 4 nodes, 2 mid switches, 1 spine.
write_topology() {
	local l
	for l in 1 2 3 4 5 6 7 8; do
		printf 'SwitchName=leaf%d Nodes=comp[%03d-%03d]\n' "$l" $(( (l - 1) * 4 + 1 )) $(( l * 4 ))
	done
	echo "SwitchName=mid1 Switches=leaf[1-4]"
	echo "SwitchName=mid2 Switches=leaf[5-8]"
	echo "SwitchName=spine Switches=mid[1-2]"
}

# The job stream, one "nodes seconds" line per job: deterministic for a seed
# (a 31-bit LCG in shell arithmetic, the same on every machine).
job_stream() {
	local s=$SEED i k d r
	next() { s=$(( (s * 1103515245 + 12345) % 2147483648 )); r=$(( s >> 8 )); }
	for ((i = 0; i < NJOBS; i++)); do
		next
		if (( r % 2 == 0 )); then next; k=$(( 1 + r % 4 )); else next; k=$(( 2 + r % 11 )); fi
		next; d=$(( 3 + r % 10 ))
		echo "$k $d"
	done
}

# run_stream DIR: submit the stream on the current cluster (sbatch/squeue on
# PATH, SLURM_CONF set) while polling squeue into DIR/snaps; wait until all
# jobs are gone (bounded). DIR/jobs gets "jobid nodes".
run_stream() {
	local dir=$1 t0 i=0 k d id when now lim
	: >"$dir/jobs"
	(
		while [ ! -e "$dir/stop" ]; do
			echo "@"
			squeue -h -t R,CG -o '%i %t %N' 2>/dev/null
			sleep "$POLL"
		done
	) >"$dir/snaps" &
	local poller=$!
	t0=$(date +%s.%N)
	while read -r k d; do
		when=$(echo "$t0 + $i * $GAP" | bc)
		now=$(date +%s.%N)
		sleep "$(echo "x = $when - $now; if (x < 0) x = 0; x" | bc)"
		id=$(sbatch --parsable -p defq --exclusive -N "$k" -t 2 -J "tv$i" -o /dev/null \
			--wrap="sleep $d" 2>>"$dir/sbatch.err") || { log "sbatch failed: $(tail -1 "$dir/sbatch.err")"; }
		[ -n "$id" ] && echo "${id%%;*} $k" >>"$dir/jobs"
		i=$((i + 1))
	done < <(job_stream)
	lim=$(( $(date +%s) + 600 ))
	while [ -n "$(squeue -h -t PD,R,CG -o %i 2>/dev/null)" ]; do
		[ "$(date +%s)" -lt "$lim" ] || { log "jobs still queued after 600 s"; break; }
		sleep 0.5
	done
	echo "$(echo "$(date +%s.%N) - $t0" | bc)" >"$dir/elapsed"
	touch "$dir/stop"
	wait "$poller"
}

# analyse DIR SIDE: per multi-node job, leaves spanned and minimum; summary
# "side jobs mean_leaves mean_min pct_at_min elapsed never warn mean_mids
# mean_min_mids pct_mids_at_min" on stdout, per-job lines in DIR/perjob.
analyse() {
	local dir=$1 side=$2
	awk -v side="$side" -v nn=$NN -v elapsed="$(cat "$dir/elapsed" 2>/dev/null || echo 0)" '
	# expand a Slurm hostlist of compNNN names into idx[] (1-based node numbers)
	function expand(hl, idx,    n, parts, i, p, pre, rng, rs, j, a, b, w, m) {
		n = 0
		# split on commas outside brackets
		gsub(/,/, ";", hl)
		while (match(hl, /\[[^]]*;[^]]*\]/)) {
			m = substr(hl, RSTART, RLENGTH); gsub(/;/, ",", m)
			hl = substr(hl, 1, RSTART - 1) m substr(hl, RSTART + RLENGTH)
		}
		np = split(hl, parts, ";")
		for (i = 1; i <= np; i++) {
			p = parts[i]
			if (p !~ /\[/) { sub(/^comp/, "", p); idx[++n] = p + 0; continue }
			pre = p; sub(/\[.*/, "", pre)
			rng = p; sub(/^[^[]*\[/, "", rng); sub(/\].*/, "", rng)
			w = split(rng, rs, ",")
			for (j = 1; j <= w; j++) {
				if (split(rs[j], ab, "-") == 2) { a = ab[1] + 0; b = ab[2] + 0 }
				else { a = rs[j] + 0; b = a }
				for (; a <= b; a++) idx[++n] = a
			}
		}
		return n
	}
	function leaf(i) { return int((i - 1) / 4) + 1 }
	# fewest leaves whose counts cnt[1..8] (largest first) hold k nodes
	function mid(l) { return l <= 4 ? 1 : 2 }
	# fewest of the np switches with idle counts cnt[1..np] (largest first) that hold k nodes
	function minparts(k, cnt, np,    c, l, i, j, t, got, used) {
		for (l = 1; l <= np; l++) c[l] = cnt[l] + 0
		for (i = 1; i <= np; i++) for (j = i + 1; j <= np; j++) if (c[j] > c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
		got = 0; used = 0
		for (i = 1; i <= np && got < k; i++) { got += c[i]; used++ }
		return used
	}
	# measure ID B: leaves and mid switches job ID spans, and the minimum of
	# each given busy nodes B (its own nodes count as idle), into G_*.
	function measure(id, b,    n, nid, i, cnt, cntm, sl, sm) {
		n = split(snode[id], nid, " ")
		split("", cnt); split("", cntm); split("", sl); split("", sm)
		for (i = 1; i <= nn; i++) if (!(i in b)) cnt[leaf(i)]++
		for (i = 1; i <= n; i++) if (nid[i] in b) cnt[leaf(nid[i])]++   # overlap: should not happen
		for (i = 1; i <= 8; i++) cntm[mid(i)] += cnt[i]
		G_n = n; G_sp = 0; G_spm = 0
		for (i = 1; i <= n; i++) {
			if (!(leaf(nid[i]) in sl)) { sl[leaf(nid[i])] = 1; G_sp++ }
			if (!(mid(leaf(nid[i])) in sm)) { sm[mid(leaf(nid[i]))] = 1; G_spm++ }
		}
		G_mn = minparts(n, cnt, 8); G_mnm = minparts(n, cntm, 2)
	}
	function take(id, b,    n, nid, i) { n = split(snode[id], nid, " "); for (i = 1; i <= n; i++) b[nid[i]] = 1 }
	# one snapshot: jobs first seen R in it are measured against the nodes of
	# the jobs that had started before. Their order among themselves is not
	# known: up to 5 of them, every order is tried and the one with the least
	# excess (spanned - minimum, leaves and mids) is kept (the benefit of the
	# doubt goes to the scheduler); more than 5, job id order.
	function flush(    id, i, n, nid, busy, b, x, ord, no, a, c, p, bp, used, ok, ex, best, total, code) {
		split("", busy)
		for (id in snode) if (id in started) take(id, busy)
		no = 0
		for (id in snode) if (!(id in started) && sstate[id] == "R") ord[++no] = id + 0
		for (a = 1; a <= no; a++) for (c = a + 1; c <= no; c++) if (ord[c] < ord[a]) { x = ord[a]; ord[a] = ord[c]; ord[c] = x }
		for (a = 1; a <= no; a++) bp[a] = a
		if (no >= 2 && no <= 5) {
			best = -1; total = no ^ no
			for (code = 0; code < total; code++) {
				c = code; ok = 1; split("", used)
				for (a = 1; a <= no; a++) { p[a] = c % no + 1; c = int(c / no); if (p[a] in used) { ok = 0; break } used[p[a]] = 1 }
				if (!ok) continue
				split("", b); for (x in busy) b[x] = 1
				ex = 0
				for (a = 1; a <= no; a++) {
					id = ord[p[a]]; measure(id, b)
					if (G_n >= 2 && (id in want)) ex += (G_sp - G_mn) + (G_spm - G_mnm)
					take(id, b)
				}
				if (best < 0 || ex < best) { best = ex; for (a = 1; a <= no; a++) bp[a] = p[a] }
			}
		}
		for (a = 1; a <= no; a++) {
			id = ord[bp[a]]; started[id] = 1
			measure(id, busy); take(id, busy)
			if (G_n != want[id]) warn++
			if (G_n < 2) continue
			jobs++; sumsp += G_sp; summn += G_mn; if (G_sp == G_mn) atmin++
			summ += G_spm; summin += G_mnm; if (G_spm == G_mnm) atminm++
			printf "%s job=%d nodes=%d leaves=%d min=%d mids=%d minmids=%d nodelist=%s\n", side, id, G_n, G_sp, G_mn, G_spm, G_mnm, hl[id] > perjob
		}
		split("", snode); split("", sstate)
	}
	FILENAME ~ /jobs$/ { want[$1] = $2; next }
	/^@$/ { if (havesnap) flush(); havesnap = 1; next }
	{
		id = $1 + 0; if (!(id in want)) next
		sstate[id] = $2
		if ($3 == "" ) next
		split("", ix); n = expand($3, ix); s = ""
		for (i = 1; i <= n; i++) s = s " " ix[i]
		snode[id] = substr(s, 2)
		if (!(id in hl)) hl[id] = $3
	}
	END {
		if (havesnap) flush()
		never = 0; for (id in want) if (!(id in started)) never++
		printf "%s %d %.3f %.3f %.1f %.1f %d %d %.3f %.3f %.1f\n", side, jobs, jobs ? sumsp / jobs : 0, jobs ? summn / jobs : 0,
			jobs ? 100 * atmin / jobs : 0, elapsed, never, warn,
			jobs ? summ / jobs : 0, jobs ? summin / jobs : 0, jobs ? 100 * atminm / jobs : 0
	}' perjob="$dir/perjob" "$dir/jobs" "$dir/snaps"
}

# ----------------------------------------------------------------- real Slurm
side_slurm() (
	local dir=$WORK/slurm etc topo
	mkdir -p "$dir"
	if [ ! -f "$RS/env.sh" ]; then log "real Slurm: $RS/env.sh missing, side skipped"; return 2; fi
	. "$RS/env.sh"
	if ! timeout 10 scontrol ping 2>/dev/null | grep -q UP; then
		log "real Slurm: controller does not answer, side skipped"; return 2
	fi
	if [ -n "$(squeue -h -o %i)" ]; then log "real Slurm: queue not empty, side skipped"; return 2; fi
	etc=$(dirname "$SLURM_CONF"); topo=$etc/topology.conf
	cp "$topo" "$dir/topology.conf.orig"
	write_topology >"$topo"
	restore() { cp "$dir/topology.conf.orig" "$topo"; scontrol reconfigure >/dev/null 2>&1; }
	trap restore EXIT
	scontrol reconfigure || { log "real Slurm: reconfigure failed"; return 2; }
	sleep 2
	if ! scontrol show topology 2>/dev/null | grep -q 'SwitchName=leaf8'; then
		log "real Slurm: new topology not loaded"; scontrol show topology >&2; return 2
	fi
	# wait for every node idle again (reconfigure)
	for _ in $(seq 100); do
		[ "$(sinfo -h -N -p defq -o '%N %t' | awk '$2=="idle"' | sort -u | wc -l)" -ge $NN ] && break
		sleep 0.3
	done
	log "real Slurm: $(scontrol show config | grep -E '^(SchedulerType|SelectTypeParameters|TopologyPlugin|PriorityType) ' | awk '{printf "%s=%s ", $1, $3}')"
	cd "$RS/work" || return 2
	run_stream "$dir"
)

# ------------------------------------------------------------------- Sluice
side_sluice() (
	local dir=$WORK/sluice
	mkdir -p "$dir"
	export SLUICE_BUILD=${SLUICE_BUILD:-$root/build}
	[ -x "$SLUICE_BUILD/sluice" ] || { log "Sluice: no $SLUICE_BUILD/sluice (make first), side skipped"; return 2; }
	. "$root/t/cluster.sh"
	trap 'cluster_stop >/dev/null 2>&1' EXIT
	cluster_write_conf $NN "SchedulerType=sched/backfill" "PriorityType=priority/multifactor" \
		"PriorityWeightAge=1000" "PriorityWeightFairshare=10000" "PriorityWeightJobSize=1000" \
		"PriorityWeightPartition=1000" "PriorityWeightQOS=1000" "PriorityMaxAge=7-0" "MaxJobCount=100000" ||
		{ log "Sluice: cluster_write_conf failed"; return 2; }
	sed -i 's/^NodeName=DEFAULT .*/NodeName=DEFAULT CPUs=64 Boards=1 SocketsPerBoard=2 CoresPerSocket=32 ThreadsPerCore=1 RealMemory=512000 Gres=gpu:h100:8 Feature=h100,ib/' \
		"$CL/etc/slurm.conf"
	write_topology >"$CL/etc/topology.conf"
	ctld_start || return 2
	for i in $(seq 1 $NN); do noded_start "$(printf 'comp%03d' "$i")"; done
	wait_for 30 nodes_idle || { log "Sluice: nodes did not register"; sinfo -N >&2; return 2; }
	log "Sluice: $SLUICE_BUILD, cluster in $CL"
	cd "$CL/work" || return 2
	run_stream "$dir"
)

# --------------------------------------------------------------------- main
summary=()
run_side() { # run_side NAME FUNC
	local rc
	log "$1: $NJOBS jobs (seed $SEED, one every $GAP s), polling every $POLL s"
	"$2"; rc=$?
	if [ $rc = 0 ]; then summary+=("$(analyse "$WORK/$1" "$1")"); fi
}
case $WHICH in
slurm) run_side slurm side_slurm ;;
sluice) run_side sluice side_sluice ;;
both) run_side slurm side_slurm; run_side sluice side_sluice ;;
*) echo "usage: $0 [slurm|sluice|both]" >&2; exit 2 ;;
esac

[ -n "${RES_APPEND:-}" ] || : >"$RES"
{
	echo "# bench/topo_vs_slurm.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): NJOBS=$NJOBS SEED=$SEED GAP=$GAP POLL=$POLL"
	echo "# 32 nodes, 8 leaves of 4 under 2 mid switches under a spine; whole-node jobs"
	echo "seed=$SEED"
} >>"$RES"
printf '\n| side   | multi-node jobs | leaves per job | minimum possible | at minimum | mid switches per job | minimum | at minimum | makespan s |\n'
printf '|--------|-----------------|----------------|------------------|------------|----------------------|---------|------------|------------|\n'
for line in "${summary[@]}"; do
	read -r side jobs ml mm pct el never warn mids mmids pmids <<<"$line"
	printf '| %-6s | %15s | %14s | %16s | %9s%% | %20s | %7s | %9s%% | %10s |\n' \
		"$side" "$jobs" "$ml" "$mm" "$pct" "$mids" "$mmids" "$pmids" "$el"
	[ "$never" -gt 0 ] && log "$side: $never jobs never seen running (too short for POLL?)"
	[ "$warn" -gt 0 ] && log "$side: $warn jobs seen with another node count than requested"
	{
		echo "${side}_multinode_jobs=$jobs"
		echo "${side}_mean_leaves=$ml"
		echo "${side}_mean_min_leaves=$mm"
		echo "${side}_pct_at_min=$pct"
		echo "${side}_mean_mid_switches=$mids"
		echo "${side}_mean_min_mid_switches=$mmids"
		echo "${side}_pct_mid_at_min=$pmids"
		echo "${side}_makespan_s=$el"
		echo "${side}_jobs_never_seen=$never"
	} >>"$RES"
done
if [ -n "${KEEP_DIR:-}" ]; then log "raw data in $WORK"; else rm -rf "$WORK"; fi
