#!/usr/bin/env bash
# Runs units of Redis's own test suite (the tests/ tree of a Redis 7.0
# source checkout, unmodified) against mayfly in external-server mode, one
# fresh `mayfly serve` per unit, and prints per unit how many tests passed
# ([ok]), failed ([err]) and whether the unit ended early.
#
#   scripts/redis-suite.sh REDIS_SRC [UNIT...]
#
# REDIS_SRC is a Redis source tree (for example `git archive 7.0.15` of
# redis/redis unpacked, or Debian's `apt-get source redis`). UNIT is a unit
# name as runtest's --single takes it (type/list, sort, ...); with none the
# default list below runs. MAYFLY=path uses that binary instead of building
# one; OUT=dir keeps the logs there (default a temporary directory);
# UNIT_TIMEOUT bounds each unit in seconds (default 900), TEST_TIMEOUT
# how long one test may go without progress (default 120); BASEPORT moves the
# suite's own ports (default 21111) so that two runs can share a machine.
# SERVER=redis runs the same units, same flags, against redis-server
# instead (REDIS_SERVER=path, default redis-server from PATH; redis-cli
# checks it is up), started per unit in its own directory with no
# persistence and with DEBUG, protected configs and MODULE allowed, as the
# suite's own config starts it: the baseline a mayfly figure is read
# against (scripts/redis-suite-compare.sh compares two runs).
#
# runtest flags: --host/--port select external mode (tests tagged
# external:skip are left out by the suite itself); --tags -needs:repl
# leaves out tests that need a replica; --durable counts a test that raises
# an error (an unknown command, say) as failed and goes on with the unit,
# instead of ending it there; --ignore-encoding and --ignore-digest skip
# the suite's checks of Redis's internal encodings and of DEBUG DIGEST,
# which describe Redis's memory layout, not replies. A unit still ends at
# an error outside any test, or when a test makes no progress for
# TEST_TIMEOUT seconds. STRICT=1 leaves --durable out: the first test that
# raises an error ends its unit, as in a plain runtest.
set -euo pipefail

if [ $# -lt 1 ]; then
	sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
src="$(cd "$1" && pwd)"
shift
repo="$(cd "$(dirname "$0")/.." && pwd)"

units=("$@")
if [ ${#units[@]} -eq 0 ]; then
	units=(type/list type/hash type/set type/zset type/list-2 type/list-3 sort latency-monitor
		type/string type/incr keyspace expire other pubsub multi info-command protocol querybuf
		introspection introspection-2)
fi

out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
server="${SERVER:-mayfly}"
case "$server" in
mayfly | redis) ;;
*)
	echo "SERVER must be mayfly or redis, not $server" >&2
	exit 2
	;;
esac
bin="${MAYFLY:-}"
if [ "$server" = redis ]; then
	bin="${REDIS_SERVER:-redis-server}"
elif [ -z "$bin" ]; then
	bin="$out/mayfly"
	(cd "$repo" && go build -o "$bin" ./cmd/mayfly)
fi

pid=""
# stop ends the server: SIGTERM, and SIGKILL if it has not exited 15
# seconds later (a command still running holds up a graceful stop).
stop() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 150); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=""
	fi
}
trap stop EXIT

# freeport prints a loopback TCP port nothing listens on now.
freeport() {
	local p
	while :; do
		p=$((30000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

# start launches the server on a free port and sets pid and port.
start() {
	local name="$1" dir="$out/data-$1" log="$out/$server-$1.log"
	rm -rf "$dir"
	if [ "$server" = redis ]; then
		mkdir -p "$dir"
		port="$(freeport)"
		(cd "$dir" && exec "$bin" --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
			--daemonize no --enable-debug-command yes --enable-protected-configs yes \
			--enable-module-command yes --dir "$dir" >"$log" 2>&1) &
		pid=$!
		for _ in $(seq 1 100); do
			redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && return 0
			sleep 0.1
		done
		echo "redis-server did not start for $name; see $log" >&2
		exit 1
	fi
	"$bin" serve --dir "$dir" --resp-addr 127.0.0.1:0 --mongo-addr "" --http-addr "" >"$log" 2>&1 &
	pid=$!
	port=""
	for _ in $(seq 1 100); do
		port="$(sed -n 's/.*msg="mayfly ready".* resp=127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -1)"
		[ -n "$port" ] && return 0
		sleep 0.1
	done
	echo "mayfly did not start for $name; see $log" >&2
	exit 1
}

durable=(--durable)
if [ "${STRICT:-0}" = 1 ]; then
	durable=()
fi

printf '| unit | [ok] | [err] | unit ended early |\n| --- | ---: | ---: | --- |\n'
for unit in "${units[@]}"; do
	safe="${unit//\//_}"
	start "$safe"
	log="$out/$safe.log"
	(cd "$src" && timeout "${UNIT_TIMEOUT:-900}" ./runtest --host 127.0.0.1 --port "$port" \
		--baseport "${BASEPORT:-21111}" --timeout "${TEST_TIMEOUT:-120}" --tags -needs:repl "${durable[@]}" --ignore-encoding --ignore-digest --single "unit/$unit" 2>&1 |
		sed -u 's/\x1b\[[0-9;]*m//g' >"$log") || true
	stop
	ok=$(grep -c '^\[ok\]' "$log" || true)
	err=$(grep -c '^\[err\]' "$log" || true)
	exc="no"
	if grep -q '^\[exception\]' "$log"; then
		exc="exception: $(grep -A1 '^\[exception\]' "$log" | sed -n 2p | cut -c1-100 | tr '|' '/')"
	elif grep -q 'TIMEOUT\]' "$log"; then
		exc="timeout, a test made no progress for TEST_TIMEOUT"
	elif ! grep -q 'All tests passed\|tests failed' "$log"; then
		exc="stopped: $(tail -1 "$log" | cut -c1-100 | tr '|' '/')"
	fi
	printf '| %s | %s | %s | %s |\n' "$unit" "$ok" "$err" "$exc"
done
echo "logs: $out" >&2
