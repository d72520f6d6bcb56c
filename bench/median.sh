# median.sh: sourced by the bench scripts that time one command as a user
# types it.
#
# median5 CMD...: ms (3 decimals), the median of 5 runs after a warm-up.
# Each run is timed with bash's own clock ($EPOCHREALTIME), so that the
# figure is the command's: timing with $(date) put two extra process
# starts (about 1 ms each) inside every interval, which flattened the
# ratio between two fast commands.
median5() {
	"$@" >/dev/null 2>&1
	local i a b
	for i in 1 2 3 4 5; do
		a=${EPOCHREALTIME/./}
		"$@" >/dev/null 2>&1
		b=${EPOCHREALTIME/./}
		echo $((b - a))
	done | sort -n | sed -n 3p | awk '{ printf "%.3f", $1 / 1000 }'
}
