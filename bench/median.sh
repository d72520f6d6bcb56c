# median.sh: sourced by the bench scripts that time one command as a user
# types it.
#
# median_of N CMD...: ms (3 decimals), the median of N runs after a
# warm-up. median5 CMD...: the same with N = 5. Each run is timed with
# bash's own clock ($EPOCHREALTIME), so that the figure is the command's:
# timing with $(date) put two extra process starts (about 1 ms each)
# inside every interval, which flattened the ratio between two fast
# commands. A command of a few ms needs more runs than 5 on a shared
# machine: single runs of the same one spread from 2 to 10 ms there.
median_of() {
	local n=$1 i a b
	shift
	"$@" >/dev/null 2>&1
	for ((i = 0; i < n; i++)); do
		a=${EPOCHREALTIME/./}
		"$@" >/dev/null 2>&1
		b=${EPOCHREALTIME/./}
		echo $((b - a))
	done | sort -n | sed -n "$((n / 2 + 1))p" | awk '{ printf "%.3f", $1 / 1000 }'
}
median5() { median_of 5 "$@"; }
