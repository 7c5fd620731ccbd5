#!/usr/bin/env bash
# Compares two runs of scripts/redis-suite.sh, one against mayfly and one
# against redis-server (SERVER=redis), by the logs they kept (OUT=dir):
# per unit, how many of the test executions that redis-server passed
# mayfly passed too, and the total.
#
#   scripts/redis-suite-compare.sh MAYFLY_OUT REDIS_OUT [UNIT...]
#
# A test execution is a test name; a name the suite runs more than once
# (once per encoding, say) counts once per run, so mayfly's count of a name
# is capped by redis-server's. With no UNIT, every unit log in REDIS_OUT is
# compared. With LIST=1 the tests redis-server passed and mayfly did not
# are printed after the table.
set -euo pipefail

if [ $# -lt 2 ]; then
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
mf="$1" rd="$2"
shift 2

units=("$@")
if [ ${#units[@]} -eq 0 ]; then
	for f in "$rd"/*.log; do
		b="$(basename "$f" .log)"
		case "$b" in redis-* | mayfly-*) continue ;; esac
		units+=("${b//_//}")
	done
fi

# passed prints the names of the tests a log marks [ok], one a line,
# without the timing runtest appends.
passed() {
	[ -f "$1" ] || return 0
	sed -n 's/^\[ok\]: \(.*\) ([0-9]* ms)$/\1/p' "$1"
}

printf '| unit | redis-server [ok] | mayfly [ok] of those | mayfly [ok] |\n| --- | ---: | ---: | ---: |\n'
tr=0 tb=0 tm=0 missing=""
for unit in "${units[@]}"; do
	safe="${unit//\//_}"
	r=$(passed "$rd/$safe.log" | wc -l)
	m=$(passed "$mf/$safe.log" | wc -l)
	# both: for each name, the smaller of its two counts.
	both=$(awk 'NR==FNR { r[$0]++; next } ($0 in r) && r[$0] > 0 { r[$0]--; n++ } END { print n + 0 }' \
		<(passed "$rd/$safe.log") <(passed "$mf/$safe.log"))
	if [ "${LIST:-0}" = 1 ]; then
		missing+=$(awk -v u="$unit" 'NR==FNR { m[$0]++; next } { if (m[$0] > 0) m[$0]--; else print u ": " $0 }' \
			<(passed "$mf/$safe.log") <(passed "$rd/$safe.log"))$'\n'
	fi
	printf '| %s | %s | %s | %s |\n' "$unit" "$r" "$both" "$m"
	tr=$((tr + r)) tb=$((tb + both)) tm=$((tm + m))
done
printf '| **total** | **%s** | **%s** | **%s** |\n' "$tr" "$tb" "$tm"
if [ "${LIST:-0}" = 1 ]; then
	printf '\n%s' "$missing" | sed '/^$/d'
fi
