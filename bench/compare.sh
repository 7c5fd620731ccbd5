#!/usr/bin/env bash
# Measures mayfly against its peers in one run, on this machine, loopback only:
#   - installs the peers: Debian's redis-server (apt-get) and FerretDB 1.24 with
#     its embedded SQLite backend, built from a copy of its Go module (the module
#     lacks build/version/version.txt; nothing of FerretDB is committed);
#   - starts redis-server (appendonly yes, appendfsync everysec), FerretDB and
#     mayfly, each on its own temp dir and free loopback ports;
#   - runs every `mayfly bench` workload against all of them (medians of $RUNS
#     runs), purge on mayfly (and Redis's AOF) with a longer bound, then
#     redis-benchmark (SET, GET, INCR, LPUSH, HSET, SET EX; 50 clients; with
#     and without -P 16) against mayfly and redis-server;
#   - prints the ratio tables (mayfly / peer) and writes everything to $OUT.
#
# Environment: RUNS (default 3), SCALE=full|quick (quick: tiny sizes, a smoke
# test of the script), OUT (default bench/results), CHARTS (default
# bench/charts), WORKLOADS (default "kv doc storm sparse steady"; empty skips
# them), PURGE (default 1; 0 skips purge), PURGE_TIMEOUT (default 11m), RB
# (default 1; 0 skips redis-benchmark), RB_N / RB_NP (redis-benchmark requests
# without / with -P 16), MAYFLY_BIN (a built mayfly; default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=${RUNS:-3}
SCALE=${SCALE:-full}
OUT=${OUT:-bench/results}
CHARTS=${CHARTS:-bench/charts}
PURGE_TIMEOUT=${PURGE_TIMEOUT:-11m}
FERRETDB_VERSION=${FERRETDB_VERSION:-v1.24.2}
CACHE=${MAYFLY_BENCH_CACHE:-$HOME/.cache/mayfly-bench}
WORKLOADS=${WORKLOADS-kv doc storm sparse steady}
PURGE=${PURGE:-1}
RB=${RB:-1}

if [ "$SCALE" = quick ]; then
	RB_N=${RB_N:-5000}
	RB_NP=${RB_NP:-20000}
	SIZES=(--duration 300ms --keys 2000 --storm-items 20000 --sparse-due 100 --sparse-hidden 20000
		--steady-rate 5000 --steady-for 3s --steady-ttl 500ms --purge-items 2000 --timeout 10s --lead 500ms)
	PURGE_TIMEOUT=${PURGE_TIMEOUT_QUICK:-20s}
else
	RB_N=${RB_N:-100000}
	RB_NP=${RB_NP:-1000000}
	SIZES=()
fi

step() { printf '\n== %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mayfly-compare.XXXXXX")
PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap "exit 130" INT
trap "exit 143" TERM

# free_port prints a loopback port nothing listens on.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
}

# wait_port waits up to 30 s for 127.0.0.1:$1 to accept connections.
wait_port() {
	for _ in $(seq 300); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "nothing listens on 127.0.0.1:$1" >&2
	return 1
}

step "peers"
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-benchmark >/dev/null 2>&1; then
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
redis-server --version

FERRETDB=$CACHE/ferretdb-$FERRETDB_VERSION
if [ ! -x "$FERRETDB" ]; then
	mkdir -p "$CACHE"
	dir=$(cd "$WORK" && go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] || { echo "go mod download gave no Dir for FerretDB $FERRETDB_VERSION" >&2; exit 1; }
	cp -r "$dir" "$WORK/ferretdb-src"
	chmod -R u+w "$WORK/ferretdb-src"
	echo "$FERRETDB_VERSION" >"$WORK/ferretdb-src/build/version/version.txt"
	(cd "$WORK/ferretdb-src" && go build -o "$FERRETDB" ./cmd/ferretdb)
	rm -rf "$WORK/ferretdb-src"
fi
"$FERRETDB" --version 2>&1 | head -n 1

if [ -n "${MAYFLY_BIN:-}" ]; then
	MAYFLY=$MAYFLY_BIN
else
	MAYFLY=$WORK/mayfly
	go build -o "$MAYFLY" ./cmd/mayfly
fi

step "servers"
REDIS_PORT=$(free_port)
mkdir -p "$WORK/redis"
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly yes --appendfsync everysec \
	--dir "$WORK/redis" --logfile "$WORK/redis.log" &
PIDS+=($!)
wait_port "$REDIS_PORT"

FERRET_PORT=$(free_port)
mkdir -p "$WORK/ferretdb/data"
"$FERRETDB" --handler=sqlite --sqlite-url="file:$WORK/ferretdb/data/" --state-dir="$WORK/ferretdb" \
	--listen-addr="127.0.0.1:$FERRET_PORT" --debug-addr=127.0.0.1:0 --telemetry=disable --log-level=warn \
	>"$WORK/ferretdb.log" 2>&1 &
PIDS+=($!)
wait_port "$FERRET_PORT"

"$MAYFLY" serve --dir "$WORK/mayfly" --mongo-addr 127.0.0.1:0 --resp-addr 127.0.0.1:0 --http-addr 127.0.0.1:0 \
	>"$WORK/mayfly.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do grep -q 'msg="mayfly ready"' "$WORK/mayfly.log" && break; sleep 0.1; done
ready=$(grep 'msg="mayfly ready"' "$WORK/mayfly.log" || { cat "$WORK/mayfly.log" >&2; exit 1; })
MAYFLY_RESP=$(sed -n 's/.* resp=\([^ ]*\).*/\1/p' <<<"$ready")
MAYFLY_MONGO=$(sed -n 's/.* mongo=\([^ ]*\).*/\1/p' <<<"$ready")
echo "mayfly: resp=$MAYFLY_RESP mongo=$MAYFLY_MONGO; redis: $REDIS_PORT; ferretdb: $FERRET_PORT" >&2

TARGETS=(--resp-addr "mayfly=$MAYFLY_RESP" --resp-addr "redis=127.0.0.1:$REDIS_PORT"
	--mongo-uri "mayfly=mongodb://$MAYFLY_MONGO/" --mongo-uri "ferretdb=mongodb://127.0.0.1:$FERRET_PORT/")
if [ -z "$MAYFLY_RESP" ] || [ -z "$MAYFLY_MONGO" ]; then
	echo "mayfly serves no RESP or no MongoDB address yet: measuring the peers only" >&2
	TARGETS=(--resp-addr "redis=127.0.0.1:$REDIS_PORT" --mongo-uri "ferretdb=mongodb://127.0.0.1:$FERRET_PORT/")
fi

mkdir -p "$OUT" "$CHARTS"
if [ -n "$WORKLOADS" ]; then
	step "mayfly bench: $WORKLOADS (runs: $RUNS)"
	# shellcheck disable=SC2086
	"$MAYFLY" bench "${TARGETS[@]}" --runs "$RUNS" "${SIZES[@]}" --charts "$CHARTS" --progress plain \
		--out "$OUT/bench.json" $WORKLOADS | tee "$OUT/bench.txt"
fi

if [ "$PURGE" = 1 ]; then
	step "mayfly bench: purge (bound $PURGE_TIMEOUT)"
	PURGE_TARGETS=(--resp-addr "redis=127.0.0.1:$REDIS_PORT" --data-dir "redis=$WORK/redis")
	if [ -n "$MAYFLY_RESP" ]; then
		PURGE_TARGETS=(--resp-addr "mayfly=$MAYFLY_RESP" --data-dir "mayfly=$WORK/mayfly" "${PURGE_TARGETS[@]}")
	fi
	"$MAYFLY" bench "${PURGE_TARGETS[@]}" "${SIZES[@]}" --timeout "$PURGE_TIMEOUT" --charts "$CHARTS" --progress plain \
		--out "$OUT/purge.json" purge | tee "$OUT/purge.txt"
fi
[ "$RB" = 1 ] || exit 0

step "redis-benchmark (runs: $RUNS, 50 clients, $RB_N requests, $RB_NP with -P 16)"
# rb PORT PIPELINE: prints "test rps" lines, one per test, for one run. Each
# test runs on its own: redis-benchmark stops at a server's first error reply.
rb() {
	local port=$1 p=$2 n=$RB_N t
	if [ "$p" -gt 1 ]; then n=$RB_NP; fi
	for t in set get incr lpush hset; do
		{ redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n "$n" -r 100000 -P "$p" -t "$t" --csv -q 2>/dev/null || true; } |
			awk -F'","' 'NR>1 {gsub(/"/,"",$1); print $1, $2}'
	done
	{ redis-benchmark -h 127.0.0.1 -p "$port" -c 50 -n "$n" -r 100000 -P "$p" --csv -q SET 'rb:__rand_int__' xxx EX 3600 2>/dev/null || true; } |
		awk -F'","' 'NR>1 {print "SET_EX", $2}'
}
# supported PORT CMD...: whether the server accepts the command.
supported() {
	local port=$1
	shift
	! redis-cli -h 127.0.0.1 -p "$port" "$@" 2>&1 | grep -q '^ERR\|^(error)'
}
RB_SERVERS=("redis $REDIS_PORT")
[ -n "$MAYFLY_RESP" ] && RB_SERVERS=("mayfly ${MAYFLY_RESP##*:}" "${RB_SERVERS[@]}")
: >"$WORK/rb.raw"
for run in $(seq "$RUNS"); do
	for s in "${RB_SERVERS[@]}"; do
		read -r name port <<<"$s"
		redis-cli -h 127.0.0.1 -p "$port" FLUSHDB >/dev/null
		for p in 1 16; do
			rb "$port" "$p" | while read -r test rps; do echo "$name $p $test $rps"; done >>"$WORK/rb.raw"
		done
		echo "redis-benchmark run $run on $name done" >&2
	done
done
# A command the server refuses gets "unsupported", not redis-benchmark's
# figure (which would count the error replies).
: >"$WORK/rb.unsupported"
for s in "${RB_SERVERS[@]}"; do
	read -r name port <<<"$s"
	for c in "LPUSH rb:check x" "HSET rb:check:h f v" "INCR rb:check:i" "SET rb:check:s x EX 10"; do
		# shellcheck disable=SC2086
		if ! supported "$port" $c; then
			t=${c%% *}
			[ "$c" = "SET rb:check:s x EX 10" ] && t=SET_EX
			echo "$name $t" >>"$WORK/rb.unsupported"
		fi
	done
done
med() {
	if grep -qx "$1 $3" "$WORK/rb.unsupported"; then echo unsupported; return; fi
	awk -v n="$1" -v p="$2" -v t="$3" '$1==n && $2==p && $3==t {print $4}' "$WORK/rb.raw" | sort -n |
		awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'
}
{
	echo "| test | -P | mayfly rps | redis rps | mayfly / redis |"
	echo "| --- | ---: | ---: | ---: | ---: |"
	for p in 1 16; do
		for test in SET GET INCR LPUSH HSET SET_EX; do
			m=$(med mayfly "$p" "$test")
			r=$(med redis "$p" "$test")
			ratio=$(awk -v m="$m" -v r="$r" 'BEGIN {if (m !~ /^[0-9.]+$/ || r !~ /^[0-9.]+$/ || r == 0) print "-"; else printf "%.2fx\n", m/r}')
			echo "| $test | $p | $m | $r | $ratio |"
		done
	done
} | tee "$OUT/redis-benchmark.md"
cp "$WORK/rb.raw" "$OUT/redis-benchmark.raw"
echo "results in $OUT, charts in $CHARTS" >&2
