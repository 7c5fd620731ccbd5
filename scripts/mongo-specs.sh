#!/usr/bin/env bash
# Runs the MongoDB drivers' unified specification tests, with the Go
# driver's own runner (internal/integration/unified of a mongo-go-driver
# checkout, unmodified, with its testdata/specifications submodule checked
# out), against a fresh `mayfly serve --set-parameter enableTestCommands=1`,
# and prints per specification directory how many tests passed, failed and
# were skipped by the runner (topology, server version, client-side
# encryption, known driver limitations).
#
#   scripts/mongo-specs.sh DRIVER_CHECKOUT [RUN_REGEX]
#
# DRIVER_CHECKOUT is a clone of mongodb/mongo-go-driver with
# testdata/specifications populated (git submodule update, or a clone of
# mongodb/specifications at the commit the driver pins); this script
# fetches nothing. RUN_REGEX narrows the run (default TestUnifiedSpec; for
# example 'TestUnifiedSpec/crud'). MAYFLY=path uses that binary instead of
# building one; PORT picks the MongoDB port (default 27117); OUT=dir keeps
# the server log and the verbose test output there (default a temporary
# directory). The directories the README's table reports are marked with
# a star, and their total is printed last.
#
# SET=rs0 starts a three-member replica set of that name instead (each
# member with --change-streams, on PORT, PORT+1 and PORT+2, raft on
# PORT+100..102) and connects with ?replicaSet=, for the transactions,
# retryable-writes and change-streams directories. SKIP=regex is passed
# as -test.skip, for tests that wait for an event mayfly never sends.
set -euo pipefail

driver=${1:?usage: scripts/mongo-specs.sh DRIVER_CHECKOUT [RUN_REGEX]}
run=${2:-TestUnifiedSpec}
driver=$(cd "$driver" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
port=${PORT:-27117}

if [ ! -d "$driver/testdata/specifications/source" ]; then
	echo "no $driver/testdata/specifications/source: check out the specifications submodule" >&2
	exit 2
fi

mayfly=${MAYFLY:-}
if [ -z "$mayfly" ]; then
	mayfly=$out/mayfly
	(cd "$repo" && go build -o "$mayfly" ./cmd/mayfly)
fi
(cd "$driver" && go test -c -o "$out/unified.test" ./internal/integration/unified/)

set_name=${SET:-}
members=1
[ -n "$set_name" ] && members=3
datas=() servers=() hosts=() peers=()
for i in $(seq 0 $((members - 1))); do
	hosts+=("127.0.0.1:$((port + i))")
	peers+=("127.0.0.1:$((port + 100 + i))")
done
cleanup() {
	for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
	rm -rf "${datas[@]}"
}
trap cleanup EXIT
for i in $(seq 0 $((members - 1))); do
	data=$(mktemp -d)
	datas+=("$data")
	args=(--dir "$data" --mongo-addr "${hosts[$i]}" --resp-addr "" --http-addr "" --set-parameter enableTestCommands=1)
	if [ -n "$set_name" ]; then
		args+=(--replica-set "$set_name" --raft-addr "${peers[$i]}" --peers "$(IFS=,; echo "${peers[*]}")" --change-streams)
	fi
	"$mayfly" serve "${args[@]}" >"$out/mayfly$i.log" 2>&1 &
	servers+=($!)
done
for i in $(seq 0 $((members - 1))); do
	for _ in $(seq 100); do
		grep -q 'mayfly ready' "$out/mayfly$i.log" && break
		kill -0 "${servers[$i]}" 2>/dev/null || { cat "$out/mayfly$i.log" >&2; exit 1; }
		sleep 0.1
	done
done
uri="mongodb://127.0.0.1:$port"
if [ -n "$set_name" ]; then
	uri="mongodb://$(IFS=,; echo "${hosts[*]}")/?replicaSet=$set_name"
	# Wait for the set to elect its primary.
	for _ in $(seq 200); do
		grep -q 'replica set member is primary' "$out"/mayfly*.log && break
		sleep 0.1
	done
fi

skip=()
[ -n "${SKIP:-}" ] && skip=(-test.skip "$SKIP")
(cd "$driver/internal/integration/unified" &&
	MONGODB_URI="$uri" "$out/unified.test" -test.run "$run" "${skip[@]}" -test.v -test.timeout 30m \
		>"$out/unified.txt" 2>&1) || true

starred="crud gridfs collection-management index-management command-logging-and-monitoring versioned-api retryable-reads sessions"
[ -n "$set_name" ] && starred="transactions transactions-convenient-api retryable-writes change-streams"
# Count the leaf tests (those with no subtests) by their directory.
awk '
	match($0, /--- (PASS|FAIL|SKIP): [^ ]+/) {
		split(substr($0, RSTART, RLENGTH), f, " ")
		result[f[3]] = substr(f[2], 1, 4)
	}
	END {
		for (n in result) {
			k = split(n, p, "/")
			for (i = 1; i < k; i++) {
				pre = p[1]
				for (j = 2; j <= i; j++) pre = pre "/" p[j]
				parent[pre] = 1
			}
		}
		split(starred, m, " ")
		for (i in m) marked[m[i]] = 1
		for (n in result) {
			if (n in parent) continue
			split(n, p, "/")
			if (p[2] == "") continue
			count[p[2], result[n]]++
			dirs[p[2]] = 1
		}
		for (d in dirs) {
			star = (d in marked) ? "*" : " "
			printf "%d %s %-36s pass %4d  fail %4d  skip %4d\n", (d in marked), star, d, count[d, "PASS"], count[d, "FAIL"], count[d, "SKIP"]
			if (d in marked) { tp += count[d, "PASS"]; tf += count[d, "FAIL"]; ts += count[d, "SKIP"] }
		}
		printf "2 * total of the starred directories: pass %d  fail %d  skip %d\n", tp, tf, ts
	}' starred="$starred" "$out/unified.txt" | sort -k1,1n -k3,3 | cut -c3-
echo "output in $out" >&2
